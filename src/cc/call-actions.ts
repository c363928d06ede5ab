import type { PlatformClient } from "../api";
import { cc, type AgentStateCall, type AgentTarget } from "../api/cc";
import { parseDialInput, type CallId, type Phone } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { Colleague } from "./agent-state";
import type { AgentSync } from "./agent-sync";
import { callViewOf, type CallView } from "./call-controls";
import { commandError, type AgentCommand } from "./command-error";

/** Where a call goes: an agent, a queue, a number, or what was typed (a number or, for the phone alone, a SIP address). */
export type CallTarget =
  | { kind: "agent"; number: string }
  | { kind: "queue"; name: string }
  | { kind: "number"; number: string }
  | { kind: "address"; address: string };

/** Turning a ringing call away: 603 Decline, or 486 Busy Here. */
export type RejectReason = "decline" | "busy";

/**
 * What can be done with a call, for every surface (the toolbar, a host page, another tab): each
 * action takes the platform's cc function for a call of the call center (its `CallView.via`) and
 * the phone's own SIP for any other call, and resolves once it is done: the platform's changes
 * once `agent_state` or an event shows them, the phone's once the other side answered.
 * Failures of the platform's functions reject with a `CommandError` (also the store's `error`),
 * the phone's with its `PhoneError`.
 */
export interface CallActions {
  answer(callId: CallId): Promise<void>;
  /**
   * 603 Decline or 486 Busy Here, never 480: mod_callcenter counts 480 (sip.js's default for a call
   * turned away) as no answer toward `max_no_answer`, which puts the agent On Break.
   */
  reject(callId: CallId, reason?: RejectReason): Promise<void>;
  hangUp(callId: CallId): Promise<void>;
  mute(callId: CallId, muted: boolean): Promise<void>;
  sendDtmf(callId: CallId, tones: string): Promise<void>;
  hold(callId: CallId): Promise<void>;
  resume(callId: CallId): Promise<void>;
  /** Resumes this call and holds the one talking. */
  swap(callId: CallId): Promise<void>;
  transfer(callId: CallId, target: CallTarget): Promise<void>;
  /** The first step of an attended transfer: the other party waits (music) while the agent talks to `target`. */
  consult(callId: CallId, target: CallTarget): Promise<void>;
  /** The agent leaves the consultation: the other party and the consulted one stay together. */
  completeConsult(callId: CallId): Promise<void>;
  cancelConsult(callId: CallId): Promise<void>;
  /** `target` joins the call: everyone hears everyone (the platform's calls only). */
  threeWay(callId: CallId, target: CallTarget): Promise<void>;
  /** Follows the other side's request to call someone else (REFER), or declines it. */
  acceptRefer(callId: CallId): Promise<void>;
  rejectRefer(callId: CallId): Promise<void>;
  /** Takes an ended call off the list. */
  dismiss(callId: CallId): Promise<void>;
}

/** What the call actions use of the phone. */
export type CallPhone = Pick<
  Phone,
  | "callsStore"
  | "answer"
  | "reject"
  | "hangup"
  | "setMuted"
  | "sendDtmf"
  | "hold"
  | "resume"
  | "swap"
  | "transfer"
  | "startConsult"
  | "completeConsult"
  | "cancelConsult"
  | "acceptRefer"
  | "rejectRefer"
  | "dismiss"
>;

export function createCallActions({
  ctx,
  sync,
  phone,
}: {
  ctx: AgentContext;
  sync: AgentSync;
  phone: CallPhone;
}): CallActions {
  const { store, now } = ctx;

  const viewOf = (callId: CallId): CallView | undefined => {
    const calls = phone.callsStore.getState().calls;
    const call = calls.find((c) => c.id === callId);
    return call ? callViewOf(call, store.getState(), calls) : undefined;
  };

  /**
   * A cc function on the platform's callID of the call; resolves once `done` holds for the
   * platform's call (or, without `done`, after the next read of agent_state).
   */
  const onPlatform = async (
    command: AgentCommand,
    view: CallView,
    send: (client: PlatformClient, callID: string) => Promise<void>,
    done?: (pc: AgentStateCall | null) => boolean,
  ): Promise<void> => {
    const client = ctx.requireClient(command);
    const id = view.cc?.callId;
    if (!id) throw ctx.fail(command, commandError("unknown-call", command, now()));
    store.setState({ error: null });
    try {
      await send(client, id);
    } catch (e) {
      throw ctx.fail(command, e);
    }
    if (!done) return sync.refresh();
    if (!(await sync.until((s) => done(s.platformCall?.uuid === id ? s.platformCall : null))))
      throw ctx.fail(command, commandError("not-confirmed", command, now()));
  };

  /** `view` when the call is the platform's, else undefined: the phone acts. */
  const platformView = (callId: CallId): CallView | undefined => {
    const view = viewOf(callId);
    return view?.via === "platform" ? view : undefined;
  };

  const unheld = (pc: AgentStateCall | null) => pc?.held === false;
  const resume = (view: CallView) => onPlatform("resume", view, (c, id) => cc.unhold(c, { callID: id }), unheld);

  /** `destAgent` and `destExtn` of ccConsult and ccThreeWay: an agent and the extension its calls ring, or PSTN and the number; throws for a queue. */
  const agentTarget = (command: AgentCommand, target: CallTarget): AgentTarget => {
    const to = platformTarget(command, target, now());
    if (to.kind === "agent")
      return { destAgent: to.number, destExtn: extensionOf(to.number, store.getState().colleagues) };
    if (to.kind === "number") return { destAgent: "PSTN", destExtn: to.number };
    // A queue cannot be consulted or joined to a call.
    throw commandError("invalid-target", command, now());
  };

  return {
    answer: (callId) => phone.answer(callId),
    reject: (callId, reason = "decline") => phone.reject(callId, reason === "busy" ? 486 : 603),
    hangUp: (callId) => phone.hangup(callId),
    mute: async (callId, muted) => phone.setMuted(callId, muted),
    sendDtmf: (callId, tones) => phone.sendDtmf(callId, tones),
    async hold(callId) {
      const view = platformView(callId);
      if (!view) return phone.hold(callId);
      await onPlatform(
        "hold",
        view,
        (c, id) => cc.hold(c, { callID: id }),
        (pc) => pc?.held === true,
      );
    },
    async resume(callId) {
      const view = platformView(callId);
      return view ? resume(view) : phone.resume(callId);
    },
    async swap(callId) {
      const view = platformView(callId);
      return view ? resume(view) : phone.swap(callId);
    },
    async transfer(callId, target) {
      const view = platformView(callId);
      if (!view) return phone.transfer(callId, phoneDestination(target));
      await onPlatform("transfer", view, (c, id) => {
        const to = platformTarget("transfer", target, now());
        return cc.transfer(c, { callID: id, destNumber: to.kind === "queue" ? to.name : to.number });
      });
    },
    async consult(callId, target) {
      const view = platformView(callId);
      if (!view) return void (await phone.startConsult(callId, phoneDestination(target)));
      await onPlatform(
        "consult",
        view,
        (c, id) => cc.consult(c, { agent: store.getState().number, callID: id, ...agentTarget("consult", target) }),
        (pc) => !!pc?.consult,
      );
    },
    async completeConsult(callId) {
      // The platform hands the other party over to the consulted one when the agent leaves.
      if (platformView(callId)) return phone.hangup(callId);
      return phone.completeConsult(callId);
    },
    async cancelConsult(callId) {
      const view = platformView(callId);
      if (!view) return phone.cancelConsult(callId);
      await onPlatform(
        "cancel-consult",
        view,
        (c, id) => cc.cancelConsult(c, { callID: id }),
        (pc) => !pc?.consult,
      );
    },
    async threeWay(callId, target) {
      const view = platformView(callId);
      // The phone makes no conference of its own.
      if (!view) throw commandError("not-available", "three-way", now());
      await onPlatform("three-way", view, (c, id) =>
        cc
          .threeWay(c, { agent: store.getState().number, callID: id, ...agentTarget("three-way", target) })
          .then(() => undefined),
      );
    },
    acceptRefer: async (callId) => void (await phone.acceptRefer(callId)),
    rejectRefer: async (callId) => phone.rejectRefer(callId),
    dismiss: async (callId) => phone.dismiss(callId),
  };
}

type PlatformTarget = Exclude<CallTarget, { kind: "address" }>;

/** A target as the platform's functions take it: what was typed must be a number (the platform dials no SIP addresses for an agent). */
function platformTarget(command: AgentCommand, target: CallTarget, at: number): PlatformTarget {
  if (target.kind !== "address") return target;
  const parsed = parseDialInput(target.address);
  if (parsed.ok && parsed.target.kind === "number") return { kind: "number", number: parsed.target.number };
  throw commandError("invalid-target", command, at);
}

/** What the phone dials for a target: an agent's number, a queue's name, a number or the address typed. */
function phoneDestination(target: CallTarget): string {
  switch (target.kind) {
    case "agent":
    case "number":
      return target.number;
    case "queue":
      return target.name;
    case "address":
      return target.address;
  }
}

/** The extension an agent's calls ring, from the agent_state rows read; its number when not known (the extension on this platform). */
function extensionOf(agent: string, colleagues: readonly Colleague[]): string {
  return colleagues.find((c) => c.number === agent)?.extension || agent;
}
