import type { CcCall } from "../../cc";
import type { Call, DialInputProblem } from "../../softphone";
import type { Messages } from "../i18n";

// A call in words: who it is with, where it stands, and what cannot be dialled.

/** Who a call is with, for people: the name, else the number, else "Unknown caller". */
export function whoOf(call: Call, t: Messages): string {
  const r = call.remote;
  if (r.withheld && !r.number) return t.phone.unknownCaller;
  return r.name || r.number || t.phone.unknownCaller;
}

/** The name and, when there is a name, the number under it. */
export function partyLines(call: Call, t: Messages): { name: string; number: string } {
  const r = call.remote;
  const name = whoOf(call, t);
  return { name, number: r.name && r.number && r.number !== r.name ? r.number : "" };
}

/** What a call card says about where the call stands. */
export function stateText(call: Call, t: Messages, waiting: boolean): string {
  const s = t.phone.state;
  if (call.state === "ended") {
    if (!call.end) return s.ended;
    // Completed elsewhere after it was answered: not another device answering it, but someone
    // (a supervisor's intercept) taking the other party over.
    if (call.end.kind === "completed-elsewhere" && call.answeredAt) return t.phone.end.takenOver;
    return t.phone.end[call.end.kind];
  }
  // Early media is almost always the far end's own ringback: it reads as ringing all the same.
  if (call.state === "early") return s.ringingOut;
  if (call.state === "ringing") return waiting ? s.waiting : s.ringing;
  return s[call.state];
}

/** A SIP URI as a person would write it: no scheme, no parameters, no domain for plain numbers. */
export function displayTarget(uri: string): string {
  const bare = uri.replace(/^sips?:/, "").split(/[;?]/)[0] ?? uri;
  return /^\+?[\d*#]+@/.test(bare) ? bare.replace(/@.*/, "") : bare;
}

/**
 * The state of a call-center call in words: the platform's hold (the phone only sees a re-INVITE
 * from the far side), a click-to-dial still calling out, and why it ended (the platform's
 * hang-up cause in the BYE's Reason).
 */
export function ccStateText(call: Call, cc: CcCall, t: Messages, waiting: boolean): string {
  if (call.state === "ended") {
    const cause = call.end?.reasons?.find((r) => r.protocol.toUpperCase() === "Q.850")?.text;
    const said = cause && cause !== "NORMAL_CLEARING" ? t.history.cause[cause] : undefined;
    return said ?? stateText(call, t, waiting);
  }
  // The platform's hold reaches the phone as the far side's (a re-INVITE with sendonly).
  if ((cc.held || call.state === "remote-held") && call.state !== "ringing") return t.phone.state.held;
  if (cc.action === "dial" && cc.callstate === "DIALING") return t.agent.calling;
  return stateText(call, t, waiting);
}

/** A supervisor on the agent's call, as the platform tells the agent. */
export function supervisedText(s: NonNullable<CcCall["supervised"]>, t: Messages): string {
  const by = s.by || t.phone.unknownCaller;
  return t.agent.supervised[s.mode]?.(by) ?? t.agent.supervisedOther(by, s.mode);
}

/** What the supervisor's own leg does, on the supervisor's card. */
export function supervisingText(s: NonNullable<CcCall["supervising"]>, t: Messages): string {
  return t.agent.supervising[s.mode]?.(s.agent) ?? s.mode;
}

/** A supervisor's action in a word: Monitor, Whisper, Speak to customer, Barge in, Intercept, Stop, Set status. */
export function supervisionWord(command: string, t: Messages): string {
  const m = t.supervisor;
  const words: Record<string, string> = {
    monitor: m.monitor,
    whisper: m.whisper,
    "whisper-customer": m.whisperCustomer,
    barge: m.barge,
    intercept: m.intercept,
    stop: m.stop,
    "agent-status": m.setStatus,
  };
  return words[command] ?? command;
}

/** Why what was typed cannot be dialled. */
export function dialProblemText(p: DialInputProblem, t: Messages): string {
  const m = t.phone.dialProblem;
  if (p.kind === "invalid-character") return m["invalid-character"](p.character);
  if (p.kind === "too-long") return m["too-long"](p.maxDigits);
  return m[p.kind];
}
