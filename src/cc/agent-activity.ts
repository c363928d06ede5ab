import { isLive, type Call } from "../softphone";
import type { AgentState } from "./agent-state";
import { ccLabelsOf } from "./queue-calls";

/**
 * What the agent is doing, whatever the platform's status says: mod_callcenter keeps an agent
 * "Available" through a queue call, a click-to-dial and after-call work, so its status alone would
 * say "Ready" (and its state "Waiting") while the agent cannot take a call.
 * - `offered`: a queue call rings at the agent's phone;
 * - `queue-call`: talking with a queue's customer (offered, or handed over by a colleague);
 * - `outbound-call`: the agent's own call out (click-to-dial, from its ringing leg on);
 * - `call`: any other call of the phone (a colleague's consultation, a call of the phone alone);
 * - `after-call-work`: a queue call ended and Done was not pressed yet.
 */
export type AgentActivity = "offered" | "queue-call" | "outbound-call" | "call" | "after-call-work";

/** Legs that carry a queue's customer to this agent. */
const CUSTOMER_ACTIONS = new Set(["queue", "transfer", "intercept"]);

export function activityOf(s: Pick<AgentState, "wrapUp" | "dialling">, calls: readonly Call[]): AgentActivity | null {
  const live = calls.filter(isLive);
  const labelled = live.map((c) => ({ call: c, action: ccLabelsOf(c)?.action ?? "" }));
  if (labelled.some((l) => l.action === "dial") || (s.dialling && !s.dialling.failed)) return "outbound-call";
  const customer = labelled.filter((l) => CUSTOMER_ACTIONS.has(l.action));
  if (customer.some((l) => l.call.state !== "ringing")) return "queue-call";
  if (customer.length) return "offered";
  if (live.some((c) => c.state !== "ringing")) return "call";
  if (s.wrapUp) return "after-call-work";
  return null;
}
