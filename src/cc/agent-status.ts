import type { AgentStateRecord } from "../api/cc";

/**
 * The agent as the platform reports it, in mod_callcenter's words where the platform gives them:
 * status `Logged Out | Available | Available (On Demand) | On Break`, state `Waiting | Receiving |
 * In a queue call | Idle`. Values are kept as they come; `statusKind` reads what it knows.
 */
export interface AgentView {
  /** The agent number (the extension on this platform). */
  number: string;
  status: string;
  /** mod_callcenter's state; "" when the platform only gave its own `callstate`. */
  state: string;
  /** agent_state's `callstate` (IDLE, RINGING, TALKING, ...); "" when only events told. */
  callstate: string;
  /** Break reason while On Break. */
  reason: string;
  /** When the status began, as the toolbar saw it (see StatusSince), ms since epoch; 0 when unknown. */
  since: number;
}

export type StatusKind = "ready" | "on-demand" | "break" | "logged-out" | "unknown";

/** What a status means for the agent; anything unseen is `unknown` and shown as it came. */
export function statusKind(status: string): StatusKind {
  switch (status.replace(/\s+/g, " ").trim().toLowerCase()) {
    case "available":
    case "ready":
      return "ready";
    case "available (on demand)":
    case "available(on demand)":
      return "on-demand";
    case "on break":
    case "unready":
    case "busy":
      return "break";
    case "logged out":
    case "out":
    case "logout":
      return "logged-out";
    default:
      return "unknown";
  }
}

/** Whether two statuses say the same as far as XSwitch's `state` can tell (Available and Available (On Demand) are both READY). */
export function sameStatusKind(a: string, b: string): boolean {
  const coarse = (k: StatusKind) => (k === "on-demand" ? "ready" : k);
  const ka = statusKind(a);
  return ka !== "unknown" && coarse(ka) === coarse(statusKind(b));
}

/** XSwitch's agent_state `state` (READY, UNREADY, LOGOUT) in mod_callcenter's words, for platforms that give only it. */
const STATE_WORDS: Record<string, string> = {
  READY: "Available",
  UNREADY: "On Break",
  LOGOUT: "Logged Out",
  LOGIN: "On Break",
};

/** An agent the platform reports nothing of (yet): every value unknown. */
export function unknownAgent(number: string): Omit<AgentView, "since"> {
  return { number, status: "", state: "", callstate: "", reason: "" };
}

/** The agent as an agent_state row shows it; when its status began is the toolbar's to know (StatusSince). */
export function agentViewOf(record: AgentStateRecord): Omit<AgentView, "since"> {
  return {
    number: record.agent_id,
    status: record.status || STATE_WORDS[record.state] || record.state,
    state: record.cc_state,
    callstate: record.callstate,
    reason: record.reason,
  };
}

/** A call-center event's data: mod_callcenter's headers (`CC-Action`, `CC-Agent`, ...). */
export type CallCenterEventData = Readonly<Record<string, string>>;

/** Whether an event names this agent (`1001`, or `<group>.1001`, or `1001@domain`). */
export function namesAgent(event: CallCenterEventData, number: string): boolean {
  const agent = event["CC-Agent"];
  if (!agent || !number) return false;
  return agent === number || agent.endsWith(`.${number}`) || agent.startsWith(`${number}@`);
}

/** The event's time in ms (`Event-Date-Timestamp` is in µs), or `fallback`. */
export function eventTime(event: CallCenterEventData, fallback: number): number {
  const us = Number(event["Event-Date-Timestamp"]);
  return Number.isFinite(us) && us > 0 ? Math.round(us / 1000) : fallback;
}

/** Data of a `verto.event` that is a call-center event: an object of string headers with a `CC-Action`. */
export function isCallCenterEvent(data: unknown): data is CallCenterEventData {
  return !!data && typeof data === "object" && typeof (data as Record<string, unknown>)["CC-Action"] === "string";
}
