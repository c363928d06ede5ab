import type { AgentStateCall } from "../api/cc";
import type { Call, IncomingCall, IncomingCallDecision } from "../softphone";
import type { CallCenterEventData } from "./agent-status";

/**
 * What the call center says about a phone call, kept in the call's `context` (plain strings, as
 * the phone keeps them). Legs the platform sends carry it in headers (docs/platform-contract.md,
 * "Legs the call center sends to phones"); a platform without them is read from its last
 * `agent-offering` event instead, and one without events from agent_state (`labelFromAgentState`).
 */
export const CC = {
  /** `queue`, `dial`, `consult`, `three-way`, `monitor`, `intercept`. */
  action: "cc.action",
  /** The agent leg's uuid: the `callID` of ccHold, ccTransfer, ccConsult... */
  callId: "cc.callId",
  queue: "cc.queue",
  /** When the customer joined the queue, ms since epoch. */
  joinedAt: "cc.joinedAt",
  memberUuid: "cc.memberUuid",
  /** The customer's channel uuid. */
  customerUuid: "cc.customerUuid",
  /**
   * A leg that continues a conversation taken back after a reload (call-recovery.ts): `manual`
   * when the agent had answered it, `auto` when it had answered by itself.
   */
  continued: "cc.continued",
  /** The conversation a leg taken back continues (conversationOf): its notes go on with it. */
  conversation: "cc.conversation",
} as const;

/** mod_callcenter's `agent-offering`, kept for a few seconds to label the INVITE that follows. */
export interface Offering {
  queue: string;
  memberUuid: string;
  customerUuid: string;
  cidName: string;
  cidNumber: string;
  joinedAt: number;
  at: number;
}

/** The offering an `agent-offering` event tells, seen at `at`. */
export function offeringOf(e: CallCenterEventData, at: number): Offering {
  return {
    queue: e["CC-Queue"] ?? "",
    memberUuid: e["CC-Member-UUID"] ?? "",
    customerUuid: e["CC-Member-Session-UUID"] ?? "",
    cidName: e["CC-Member-CID-Name"] ?? "",
    cidNumber: e["CC-Member-CID-Number"] ?? "",
    joinedAt: Number(e["CC-Member-Joined-Time"] ?? 0) * 1000 || 0,
    at,
  };
}

/** An offering is taken for the INVITE arriving within this time of it. */
export const OFFERING_MATCH_MS = 10_000;

export interface QueueCallOptions {
  offering: Offering | null | undefined;
  now: number;
  /** Seconds after which a queue offer is answered by itself; null: it rings until answered. */
  queueAutoAnswerSec: number | null;
  /** A click-to-dial waits for its leg to ring at the phone. */
  dialWaiting?: boolean;
}

/** Labels an incoming call with its call-center meaning, and answers queue offers when the agent asked for that. */
export function decideIncomingCall(incoming: IncomingCall, o: QueueCallOptions): IncomingCallDecision | void {
  const header = (name: string) => incoming.header(name)?.trim() || undefined;
  let action = header("X-CC-Action");
  const context: Record<string, string> = {};
  const put = (key: string, value: string | undefined) => {
    if (value) context[key] = value;
  };
  const offering = o.offering;
  const fromOffering =
    !action &&
    offering &&
    o.now - offering.at < OFFERING_MATCH_MS &&
    (!offering.cidNumber || offering.cidNumber === incoming.call.remote.number);
  if (fromOffering) action = "queue";
  // A platform that marks no leg: the leg a click-to-dial waits for is the one the phone answers by itself.
  if (!action && o.dialWaiting && incoming.autoAnswer.answer) action = "dial";
  if (!action) return;
  put(CC.action, action.toLowerCase());
  // A consultation leg carries the consulting agent's callID, not one of this agent's calls.
  if (context[CC.action] !== "consult") put(CC.callId, header("X-CC-Agent-UUID"));
  put(CC.queue, header("X-CC-Queue") ?? (fromOffering ? offering.queue : undefined));
  put(CC.memberUuid, header("X-CC-Member-UUID") ?? (fromOffering ? offering.memberUuid : undefined));
  put(
    CC.customerUuid,
    header("X-CC-Member-Session-UUID") ??
      header("X-CC-Target-UUID") ??
      (fromOffering ? offering.customerUuid : undefined),
  );
  const joined = Number(header("X-CC-Member-Joined"));
  if (Number.isFinite(joined) && joined > 0) put(CC.joinedAt, String(joined * 1000));
  else if (fromOffering && offering.joinedAt) put(CC.joinedAt, String(offering.joinedAt));

  const decision: IncomingCallDecision = { context };
  if (context[CC.action] === "queue" && o.queueAutoAnswerSec !== null)
    decision.autoAnswer = { afterSec: o.queueAutoAnswerSec };
  return decision;
}

/** The call-center meaning of a phone call, when it has one. */
export interface CcCallLabels {
  action: string;
  callId: string;
  queue: string;
  joinedAt: number;
}

export function ccLabelsOf(call: Call): CcCallLabels | undefined {
  const action = call.context[CC.action];
  if (!action) return undefined;
  return {
    action,
    callId: call.context[CC.callId] ?? "",
    queue: call.context[CC.queue] ?? "",
    joinedAt: Number(call.context[CC.joinedAt] ?? 0) || 0,
  };
}

/**
 * What agent_state tells of a call a platform labelled neither by headers nor by events: its
 * `agent_uuid` is the agent's call, when the phone has one live call, which then carries that
 * callID (and, if it came in unlabelled, is taken for a queue's customer: mod_callcenter reports
 * only its own calls, and a call-center leg that is no offer, a click-to-dial's, is labelled when
 * it rings). Returns the context to add, if any.
 */
export function labelFromAgentState(
  platformCall: AgentStateCall | null,
  liveCalls: readonly Call[],
): { id: Call["id"]; context: Record<string, string> } | undefined {
  // Only a call the platform described by its spec fields alone (no kind): the full record names its calls.
  if (!platformCall?.uuid || platformCall.kind || liveCalls.length !== 1) return undefined;
  const call = liveCalls[0]!;
  const labels = ccLabelsOf(call);
  if (labels?.callId) return undefined;
  if (labels) return { id: call.id, context: { [CC.callId]: platformCall.uuid } };
  if (call.direction !== "inbound") return undefined;
  return { id: call.id, context: { [CC.action]: "queue", [CC.callId]: platformCall.uuid } };
}

/**
 * Whether the conversation was answered by itself, as the agent would say it: a leg taken back
 * after a reload answers by itself but continues a call the agent may have answered by hand, and
 * a click-to-dial's leg is the agent's own outgoing call, not a call answered for them.
 */
export function answeredAutomatically(call: Call): boolean {
  const continued = call.context[CC.continued];
  if (continued) return continued === "auto";
  if (call.context[CC.action] === "dial") return false;
  return !!call.autoAnswer;
}

/**
 * The conversation a call belongs to, for what is kept with it (notes typed during the call): the
 * same through a take-back after a reload, which brings a new leg (and callID) for the same
 * customer.
 */
export function conversationOf(call: Call): string {
  return (
    call.context[CC.conversation] || call.context[CC.customerUuid] || call.context[CC.callId] || `phone:${call.id}`
  );
}
