import { isLive, type Call } from "../softphone";
import type { AgentState } from "./agent-state";
import { ccCallOf, type CcCall } from "./cc-call";
import { answeredAutomatically } from "./queue-calls";

/**
 * What can be done with a call. Each surface words and places them; none decides them:
 * - `answer`, `reject` (603 Decline), `busy` (486 Busy Here) for a call ringing here;
 * - `mute` (or unmute, by `call.muted`), `dtmf`, `hold`, `resume`, `swap` (resume this one and
 *   hold the one talking), `transfer`, `consult`, `three-way` for an answered call;
 * - `complete-consult` and `cancel-consult` during a consultation;
 * - `hang-up` for a call that is not ringing here; `call-back` and `dismiss` for one that ended;
 * - `accept-refer`, `reject-refer` when the other side asks to transfer us (REFER).
 */
export type CallControl =
  | "answer"
  | "reject"
  | "busy"
  | "mute"
  | "dtmf"
  | "hold"
  | "resume"
  | "swap"
  | "transfer"
  | "consult"
  | "three-way"
  | "complete-consult"
  | "cancel-consult"
  | "hang-up"
  | "accept-refer"
  | "reject-refer"
  | "call-back"
  | "dismiss";

/**
 * A phone call as a surface shows it: the call, its call-center view, who carries out its hold,
 * transfers and consultations, and the controls it has now.
 */
export interface CallView {
  call: Call;
  /** The call-center view, for a call of the call center (queue, customer, the platform's hold and consultation). */
  cc: CcCall | undefined;
  /**
   * `platform`: hold, transfer, consult and three-way are the platform's cc functions (ccHold,
   * ccTransfer, ...), on the callID it knows the call by; `phone`: SIP re-INVITEs and REFERs of
   * the phone itself. Answer, reject, hang-up, mute and keypad tones are the phone's either way.
   */
  via: "platform" | "phone";
  /** On hold by us, as whoever holds it says (the platform's ccHold reaches the phone as the far side's hold). */
  held: boolean;
  controls: readonly CallControl[];
  /** Answered by itself, as the agent would say it (not a leg taken back, not the agent's own click-to-dial). */
  answeredAutomatically: boolean;
}

/** The states of an answered call. */
const ANSWERED = new Set<Call["state"]>(["active", "held", "remote-held"]);

/** The view of `call` among the phone's `calls`, with the agent's state as the platform reports it. */
export function callViewOf(
  call: Call,
  s: Pick<AgentState, "platformCall" | "agent"> & Partial<Pick<AgentState, "supervised">>,
  calls: readonly Call[],
): CallView {
  const live = calls.filter(isLive);
  const cc = ccCallOf(call, s, live);
  const via = cc?.callId ? "platform" : "phone";
  const ended = call.state === "ended";
  const ringingHere = call.direction === "inbound" && call.state === "ringing";
  const talkingElsewhere = live.some(
    (c) => c.id !== call.id && (c.state === "active" || c.state === "remote-held" || c.state === "connecting"),
  );
  // An attended transfer of the phone's own: this call is the consultation, or has one.
  const consultFor = call.consultForCallId ? calls.find((c) => c.id === call.consultForCallId) : undefined;
  const consulting = call.consultCallId ? calls.find((c) => c.id === call.consultCallId) : undefined;
  const held = via === "platform" ? !!cc?.held : call.held;

  const controls: CallControl[] = [];
  if (ringingHere) controls.push("answer", "reject", "busy");
  if (ANSWERED.has(call.state)) {
    controls.push("mute", "dtmf");
    if (via === "platform") {
      if (cc?.held) controls.push("resume");
      else if (!cc?.consult) controls.push("hold");
      if (!cc?.consult) controls.push("transfer", "consult", "three-way");
    } else {
      controls.push(call.held ? (talkingElsewhere ? "swap" : "resume") : "hold");
      if (!consultFor && !consulting) controls.push("transfer", "consult");
    }
  }
  if (!ended && ((via === "platform" && cc?.consult) || (via === "phone" && consultFor)))
    controls.push("complete-consult", "cancel-consult");
  if (!ended && !ringingHere) controls.push("hang-up");
  if (ended) controls.push(...(call.remote.number ? (["call-back", "dismiss"] as const) : (["dismiss"] as const)));
  if (call.referRequest?.state === "pending") controls.push("accept-refer", "reject-refer");
  return { call, cc, via, held, controls, answeredAutomatically: answeredAutomatically(call) };
}
