import type { CallId } from "../softphone";
import type { CallActions, CallTarget, RejectReason } from "./call-actions";
import type { StatusChoice } from "./status-commands";

/**
 * Everything a surface can ask of the agent session. Each resolves when it is done (a status once
 * the platform shows it) and rejects with a typed error (`CommandError`, or the phone's
 * `PhoneError`).
 */
export interface AgentActions extends CallActions {
  /** Ready, Ready on demand, Break with a reason, out of or into the queues (see StatusCommands.choose). */
  choose(status: StatusChoice): Promise<void>;
  clearNext(): Promise<void>;
  /** Dials what was typed: through the call center (ccDial) while the agent works in it, else from the phone. */
  dial(input: string): Promise<void>;
  cancelDial(): Promise<void>;
  setDisposition(disposition: string): Promise<void>;
  /** The notes of after-call work. */
  setNotes(notes: string): Promise<void>;
  /** Notes typed during a call (the phone's call id): kept with its conversation and carried into its after-call work. */
  setCallNotes(callId: CallId, notes: string): Promise<void>;
  extendWrapUp(seconds?: number): Promise<void>;
  finishWrapUp(): Promise<void>;
  /** Reads agent_state now. */
  refresh(): Promise<void>;
  /** Reads the other agents of the agent's queues (transfer targets). */
  loadColleagues(): Promise<void>;
  /** Joins the queues again after a failure. */
  retry(): Promise<void>;
  dismissError(): Promise<void>;
  /** The agent has read what the phone's watch said after the page slept. */
  dismissPhoneNote(): Promise<void>;
}

/**
 * The same actions as plain data, for what cannot call a function: a host page's message, a
 * command from another tab of the same agent. `dispatcherOf` carries one out, `actionsOf` turns a
 * way of sending them back into actions.
 */
export type Command =
  | { type: "status"; status: StatusChoice }
  | { type: "clear-next" }
  | { type: "dial"; input: string }
  | { type: "cancel-dial" }
  | { type: "answer"; callId: CallId }
  | { type: "reject"; callId: CallId; reason?: RejectReason }
  | { type: "hang-up"; callId: CallId }
  | { type: "mute"; callId: CallId; muted: boolean }
  | { type: "dtmf"; callId: CallId; tones: string }
  | { type: "hold"; callId: CallId }
  | { type: "resume"; callId: CallId }
  | { type: "swap"; callId: CallId }
  | { type: "transfer"; callId: CallId; target: CallTarget }
  | { type: "consult"; callId: CallId; target: CallTarget }
  | { type: "complete-consult"; callId: CallId }
  | { type: "cancel-consult"; callId: CallId }
  | { type: "three-way"; callId: CallId; target: CallTarget }
  | { type: "accept-refer"; callId: CallId }
  | { type: "reject-refer"; callId: CallId }
  | { type: "dismiss"; callId: CallId }
  | { type: "set-disposition"; disposition: string }
  | { type: "set-notes"; notes: string }
  | { type: "set-call-notes"; callId: CallId; notes: string }
  | { type: "extend-wrap-up"; seconds?: number }
  | { type: "finish-wrap-up" }
  | { type: "refresh" }
  | { type: "load-colleagues" }
  | { type: "retry" }
  | { type: "dismiss-error" }
  | { type: "dismiss-phone-note" };

export type Dispatch = (command: Command) => Promise<void>;

/** Carries out commands with `actions`. */
export function dispatcherOf(actions: AgentActions): Dispatch {
  return (c) => {
    switch (c.type) {
      case "status":
        return actions.choose(c.status);
      case "clear-next":
        return actions.clearNext();
      case "dial":
        return actions.dial(c.input);
      case "cancel-dial":
        return actions.cancelDial();
      case "answer":
        return actions.answer(c.callId);
      case "reject":
        return actions.reject(c.callId, c.reason);
      case "hang-up":
        return actions.hangUp(c.callId);
      case "mute":
        return actions.mute(c.callId, c.muted);
      case "dtmf":
        return actions.sendDtmf(c.callId, c.tones);
      case "hold":
        return actions.hold(c.callId);
      case "resume":
        return actions.resume(c.callId);
      case "swap":
        return actions.swap(c.callId);
      case "transfer":
        return actions.transfer(c.callId, c.target);
      case "consult":
        return actions.consult(c.callId, c.target);
      case "complete-consult":
        return actions.completeConsult(c.callId);
      case "cancel-consult":
        return actions.cancelConsult(c.callId);
      case "three-way":
        return actions.threeWay(c.callId, c.target);
      case "accept-refer":
        return actions.acceptRefer(c.callId);
      case "reject-refer":
        return actions.rejectRefer(c.callId);
      case "dismiss":
        return actions.dismiss(c.callId);
      case "set-disposition":
        return actions.setDisposition(c.disposition);
      case "set-notes":
        return actions.setNotes(c.notes);
      case "set-call-notes":
        return actions.setCallNotes(c.callId, c.notes);
      case "extend-wrap-up":
        return actions.extendWrapUp(c.seconds);
      case "finish-wrap-up":
        return actions.finishWrapUp();
      case "refresh":
        return actions.refresh();
      case "load-colleagues":
        return actions.loadColleagues();
      case "retry":
        return actions.retry();
      case "dismiss-error":
        return actions.dismissError();
      case "dismiss-phone-note":
        return actions.dismissPhoneNote();
    }
  };
}

/** Actions that send commands: what another tab, or a test, uses in place of the session's own. */
export function actionsOf(dispatch: Dispatch): AgentActions {
  return {
    choose: (status) => dispatch({ type: "status", status }),
    clearNext: () => dispatch({ type: "clear-next" }),
    dial: (input) => dispatch({ type: "dial", input }),
    cancelDial: () => dispatch({ type: "cancel-dial" }),
    answer: (callId) => dispatch({ type: "answer", callId }),
    reject: (callId, reason) => dispatch({ type: "reject", callId, ...(reason ? { reason } : {}) }),
    hangUp: (callId) => dispatch({ type: "hang-up", callId }),
    mute: (callId, muted) => dispatch({ type: "mute", callId, muted }),
    sendDtmf: (callId, tones) => dispatch({ type: "dtmf", callId, tones }),
    hold: (callId) => dispatch({ type: "hold", callId }),
    resume: (callId) => dispatch({ type: "resume", callId }),
    swap: (callId) => dispatch({ type: "swap", callId }),
    transfer: (callId, target) => dispatch({ type: "transfer", callId, target }),
    consult: (callId, target) => dispatch({ type: "consult", callId, target }),
    completeConsult: (callId) => dispatch({ type: "complete-consult", callId }),
    cancelConsult: (callId) => dispatch({ type: "cancel-consult", callId }),
    threeWay: (callId, target) => dispatch({ type: "three-way", callId, target }),
    acceptRefer: (callId) => dispatch({ type: "accept-refer", callId }),
    rejectRefer: (callId) => dispatch({ type: "reject-refer", callId }),
    dismiss: (callId) => dispatch({ type: "dismiss", callId }),
    setDisposition: (disposition) => dispatch({ type: "set-disposition", disposition }),
    setNotes: (notes) => dispatch({ type: "set-notes", notes }),
    setCallNotes: (callId, notes) => dispatch({ type: "set-call-notes", callId, notes }),
    extendWrapUp: (seconds) => dispatch({ type: "extend-wrap-up", ...(seconds === undefined ? {} : { seconds }) }),
    finishWrapUp: () => dispatch({ type: "finish-wrap-up" }),
    refresh: () => dispatch({ type: "refresh" }),
    loadColleagues: () => dispatch({ type: "load-colleagues" }),
    retry: () => dispatch({ type: "retry" }),
    dismissError: () => dispatch({ type: "dismiss-error" }),
    dismissPhoneNote: () => dispatch({ type: "dismiss-phone-note" }),
  };
}
