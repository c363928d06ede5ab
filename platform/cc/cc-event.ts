import { timestamp } from "../store/db";

/**
 * A call-center event as mod_callcenter fires it: a CUSTOM event of subclass `callcenter::info`
 * whose `CC-Action` header says what happened. The headers keep FreeSWITCH's names so that a
 * client written against mod_verto's `FSevent.custom::callcenter::info` reads ours unchanged.
 */
export type CcAction =
  | "agent-status-change"
  | "agent-state-change"
  | "agent-offering"
  | "bridge-agent-start"
  | "bridge-agent-end"
  | "bridge-agent-fail"
  | "agent-max-no-answer"
  | "member-queue-start"
  | "member-queue-end"
  | "members-count"
  /** The local platform's addition: a supervisor's leg on the agent's call changed (see CallControlEngine). */
  | "agent-supervision";

export interface CcEvent {
  "Event-Name": "CUSTOM";
  "Event-Subclass": "callcenter::info";
  /** Microseconds since the epoch, as FreeSWITCH stamps events. */
  "Event-Date-Timestamp": string;
  /** The platform's local time without a zone, and the same moment in GMT (FreeSWITCH's headers of every event). */
  "Event-Date-Local": string;
  "Event-Date-GMT": string;
  /** Increases by one per event of this platform: the order events happened in. */
  "Event-Sequence": string;
  "CC-Action": CcAction;
  "CC-Queue"?: string;
  "CC-Agent"?: string;
  [header: string]: string | undefined;
}

/** The agent an event is about, if any (who may see it depends on this and on its queue). */
export const eventAgent = (e: CcEvent): string | undefined => e["CC-Agent"];
export const eventQueue = (e: CcEvent): string | undefined => e["CC-Queue"];

/** Seconds since the epoch as text, the unit of mod_callcenter's `CC-...-Time` headers. */
export const epochSeconds = (ms: number): string => String(Math.floor(ms / 1000));

let sequence = 0;

export function ccEvent(action: CcAction, headers: Record<string, string | undefined>, now = Date.now()): CcEvent {
  const event: CcEvent = {
    "Event-Name": "CUSTOM",
    "Event-Subclass": "callcenter::info",
    "Event-Date-Timestamp": String(now * 1000),
    "Event-Date-Local": timestamp(new Date(now)),
    "Event-Date-GMT": new Date(now).toUTCString(),
    "Event-Sequence": String(++sequence),
    "CC-Action": action,
  };
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) event[k] = v;
  return event;
}
