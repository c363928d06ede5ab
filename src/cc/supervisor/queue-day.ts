import type { CallRecord } from "../../api/cdrs";
import type { CallCenterEventData } from "../agent-status";

/**
 * A queue's day, caller by caller: from the day's call records (read once, in the background)
 * and from live events (as they come), each caller once whichever told it first. A caller is keyed
 * by its channel's uuid: the member leg's record `uuid`, the events' `CC-Member-Session-UUID`, the
 * queue's list of members (`session_uuid`) and agent_state's `customer_uuid` name the same leg.
 *
 * What counts (docs/decisions.md, "Today's figures"):
 * - offered: every caller who joined the queue today;
 * - answered: bridged to an agent; its wait is from joining to the agent's answer;
 * - abandoned: left the queue before an agent answered (hung up, or gave up);
 * - service level: answered within the threshold / (answered + abandoned);
 * - average speed of answer: the mean wait of answered callers whose wait is known;
 * - average handle time: the mean time connected to an agent (talk and hold) of answered calls
 *   that ended (after-call work is not in the records).
 */
export interface QueueCaller {
  /** When it joined the queue, ms (this browser's clock); 0: not known. */
  joinedAt: number;
  /** When an agent answered it; 0: not answered (yet); -1: answered, when not known. */
  answeredAt: number;
  /** When it left the queue unanswered; 0: it did not. */
  abandonedAt: number;
  /** When its call ended; 0: not yet (or not known). */
  endedAt: number;
  /** The agent who answered it. */
  agent: string;
}

export interface QueueDayFigures {
  offered: number;
  answered: number;
  abandoned: number;
  /** Answered within the threshold. */
  answeredWithin: number;
  /** 0..1; null: no caller answered or abandoned yet. */
  serviceLevel: number | null;
  /** ms; null: no answered caller with a known wait. */
  averageSpeedOfAnswer: number | null;
  /** ms; null: no answered call ended yet. */
  averageHandleTime: number | null;
}

/** One 15-minute interval of the day: what the intraday charts draw. */
export interface QueueInterval extends QueueDayFigures {
  /** Its start, ms. */
  from: number;
}

export const INTERVAL_MS = 15 * 60_000;

/** The call center's variables (`CallRecord.cc`) that a queue's day reads. */
const QUEUE_VARIABLES = [
  "cc_side",
  "cc_agent",
  "cc_queue_joined_epoch",
  "cc_queue_answered_epoch",
  "cc_queue_canceled_epoch",
  "cc_queue_terminated_epoch",
] as const;

/**
 * What a queue's day reads of a call record (`queueRecordOf`): a whole `CallRecord` is one too.
 * The board's day is read as these, reduced where the records are parsed (a worker), so that the
 * page's thread receives a few fields of each record rather than its megabyte of JSON per page.
 */
export type QueueRecord = Pick<
  CallRecord,
  "uuid" | "direction" | "destination" | "startedAt" | "answeredAt" | "endedAt" | "otherUuid"
> & { cc: Readonly<Partial<Record<(typeof QUEUE_VARIABLES)[number], string>>> };

/** The part of a call record a queue's day reads (and the day's reading: uuid, start). */
export function queueRecordOf(r: CallRecord): QueueRecord {
  const cc: Partial<Record<(typeof QUEUE_VARIABLES)[number], string>> = {};
  for (const k of QUEUE_VARIABLES) if (r.cc[k] !== undefined) cc[k] = r.cc[k];
  return {
    uuid: r.uuid,
    direction: r.direction,
    destination: r.destination,
    startedAt: r.startedAt,
    answeredAt: r.answeredAt,
    endedAt: r.endedAt,
    otherUuid: r.otherUuid,
    cc,
  };
}

/** A caller's leg in a queue's records: the call center says so (`cc_side`), else it is the leg that came in. */
const isCallerLeg = (r: QueueRecord) => (r.cc.cc_side ? r.cc.cc_side === "member" : r.direction === "inbound");

/** The platform's stamps on this browser's clock: `offset` is PlatformClock's (0 when not measured). */
const shifted = (ms: number | null, offset: number) => (ms === null ? 0 : ms - offset);
const epochMs = (v: string | undefined) => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n * 1000 : 0;
};

export class QueueDay {
  readonly callers = new Map<string, QueueCaller>();
  /** While the records are read: agents' legs by uuid, and callers whose agent's leg is not read yet. */
  private readonly legs = new Map<string, { answeredAt: number; agent: string }>();
  private readonly linked = new Map<string, string>();
  /** Bumped at every change: a view recomputes figures only when it moved. */
  version = 0;

  constructor(
    /** Midnight that begins the day, ms. */
    readonly from: number,
  ) {}

  private merge(key: string, patch: Partial<QueueCaller>): void {
    if (!key) return;
    const old = this.callers.get(key);
    const next: QueueCaller = old ? { ...old } : { joinedAt: 0, answeredAt: 0, abandonedAt: 0, endedAt: 0, agent: "" };
    // What is known is kept: a record and an event of the same caller say the same; the first wins.
    for (const k of ["joinedAt", "answeredAt", "abandonedAt", "endedAt"] as const)
      if (patch[k] && (!next[k] || next[k] === -1)) next[k] = patch[k];
    if (patch.agent && !next.agent) next.agent = patch.agent;
    if (next.joinedAt && next.joinedAt < this.from) {
      // A caller who joined before midnight is yesterday's.
      if (this.callers.delete(key)) this.version++;
      return;
    }
    if (old && (Object.keys(next) as (keyof QueueCaller)[]).every((k) => next[k] === old[k])) return;
    this.callers.set(key, next);
    this.version++;
  }

  /**
   * The queue's call records (`groupValue`): the callers' legs (inbound) and the agents' legs
   * they were bridged to. The call center's variables, where the records carry them, say when the
   * caller joined, was answered or gave up; otherwise the legs' stamps and links do.
   */
  addRecords(records: readonly QueueRecord[], offset: number): void {
    // Agents' legs first: a caller's record names the leg it was bridged to, maybe on another page.
    for (const r of records) {
      if (isCallerLeg(r)) continue;
      const leg = { answeredAt: shifted(r.answeredAt, offset), agent: r.cc.cc_agent ?? r.destination };
      this.legs.set(r.uuid, leg);
      const waiting = this.linked.get(r.uuid);
      if (waiting) {
        this.linked.delete(r.uuid);
        this.merge(waiting, { answeredAt: leg.answeredAt || -1, agent: leg.agent });
      }
    }
    for (const r of records) {
      if (!isCallerLeg(r)) continue;
      const agentLeg = r.otherUuid ? this.legs.get(r.otherUuid) : undefined;
      if (r.otherUuid && !agentLeg) this.linked.set(r.otherUuid, r.uuid);
      const answeredAt = epochMs(r.cc.cc_queue_answered_epoch) || (r.otherUuid ? agentLeg?.answeredAt || -1 : 0);
      this.merge(r.uuid, {
        joinedAt: epochMs(r.cc.cc_queue_joined_epoch) || shifted(r.startedAt, offset),
        answeredAt,
        abandonedAt: epochMs(r.cc.cc_queue_canceled_epoch) || (answeredAt ? 0 : shifted(r.endedAt, offset)),
        // The queue call's end (as member-queue-end tells it live): a caller taken over by a
        // supervisor or handed on talks longer than the agent's call.
        endedAt: epochMs(r.cc.cc_queue_terminated_epoch) || shifted(r.endedAt, offset),
        agent: r.cc.cc_agent ?? agentLeg?.agent ?? "",
      });
    }
  }

  /** The day's records are all read: the agents' legs kept to link callers to them are let go. */
  recordsRead(): void {
    this.legs.clear();
    this.linked.clear();
  }

  /** A live call-center event of this queue. Returns whether it changed the day. */
  addEvent(e: CallCenterEventData, at: number): boolean {
    const key = e["CC-Member-Session-UUID"] ?? "";
    if (!key) return false;
    const before = this.version;
    const joinedAt = epochMs(e["CC-Member-Joined-Time"]);
    switch (e["CC-Action"]) {
      case "member-queue-start":
        this.merge(key, { joinedAt: joinedAt || at });
        break;
      case "bridge-agent-start":
        // A handover (a second agent taking the caller) answers nobody new: the first answer stays.
        this.merge(key, {
          joinedAt,
          answeredAt: epochMs(e["CC-Agent-Answered-Time"]) || at,
          agent: (e["CC-Agent"] ?? "").split(".").pop() ?? "",
        });
        break;
      case "member-queue-end":
        if (e["CC-Cause"] === "Cancel")
          this.merge(key, { joinedAt, abandonedAt: epochMs(e["CC-Member-Leaving-Time"]) || at });
        else
          this.merge(key, {
            joinedAt,
            answeredAt: epochMs(e["CC-Agent-Answered-Time"]) || -1,
            endedAt: epochMs(e["CC-Member-Leaving-Time"]) || at,
          });
        break;
      default:
        return false;
    }
    return this.version !== before;
  }

  /** Callers the platform lists as waiting now (they joined at `joinedAt`). */
  addWaiting(callers: readonly { key: string; joinedAt: number }[]): void {
    for (const c of callers) this.merge(c.key, { joinedAt: c.joinedAt });
  }

  /** A caller an agent is talking to now (agent_state): answered, when not known. */
  addInCall(key: string, agent: string): void {
    this.merge(key, { answeredAt: -1, agent });
  }

  private counted: { version: number; thresholdSeconds: number; figures: QueueDayFigures } | null = null;

  /**
   * The day's figures with `thresholdSeconds` as the service level's threshold: counted again only
   * when a caller changed (every view and the alerts ask each second, over a day's callers).
   */
  figures(thresholdSeconds: number): QueueDayFigures {
    const c = this.counted;
    if (c && c.version === this.version && c.thresholdSeconds === thresholdSeconds) return c.figures;
    const figures = figuresOf(this.callers.values(), thresholdSeconds);
    this.counted = { version: this.version, thresholdSeconds, figures };
    return figures;
  }

  /** The day in 15-minute intervals, from midnight to the interval holding `now`. */
  intervals(thresholdSeconds: number, now: number): QueueInterval[] {
    const count = Math.max(1, Math.min(96, Math.floor((now - this.from) / INTERVAL_MS) + 1));
    const buckets: QueueCaller[][] = Array.from({ length: count }, () => []);
    for (const c of this.callers.values()) {
      if (!c.joinedAt) continue;
      const i = Math.floor((c.joinedAt - this.from) / INTERVAL_MS);
      if (i >= 0 && i < count) buckets[i]!.push(c);
    }
    return buckets.map((b, i) => ({ from: this.from + i * INTERVAL_MS, ...figuresOf(b, thresholdSeconds) }));
  }
}

function figuresOf(callers: Iterable<QueueCaller>, thresholdSeconds: number): QueueDayFigures {
  let offered = 0;
  let answered = 0;
  let abandoned = 0;
  let within = 0;
  let waits = 0;
  let waited = 0;
  let handled = 0;
  let handleTime = 0;
  const limit = thresholdSeconds * 1000;
  for (const c of callers) {
    offered++;
    if (c.answeredAt) {
      answered++;
      if (c.answeredAt > 0 && c.joinedAt) {
        const wait = Math.max(0, c.answeredAt - c.joinedAt);
        waits++;
        waited += wait;
        if (wait <= limit) within++;
      }
      if (c.endedAt && c.answeredAt > 0) {
        handled++;
        handleTime += Math.max(0, c.endedAt - c.answeredAt);
      }
    } else if (c.abandonedAt) abandoned++;
  }
  return {
    offered,
    answered,
    abandoned,
    answeredWithin: within,
    serviceLevel: answered + abandoned ? within / (answered + abandoned) : null,
    averageSpeedOfAnswer: waits ? waited / waits : null,
    averageHandleTime: handled ? handleTime / handled : null,
  };
}
