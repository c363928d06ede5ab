import type { StatusKind } from "../agent-status";
import type { QueueDay } from "./queue-day";
import type { WallboardAgent } from "./wallboard";

/**
 * An agent's day as the board saw it: a status timeline and the time spent in each status. The
 * spec's platform keeps no history of statuses (agent_state says the current one, and since when),
 * so the timeline begins when the board first saw the agent: at the start of its current status
 * where the platform said it (`status_since`), else at that first sight. What came before is not
 * known, and the view says so (`knownSince`).
 */
export interface AgentSegment {
  from: number;
  /** The status's kind, and its words (a break's reason). */
  kind: StatusKind;
  status: string;
  reason: string;
  /** In a call (or its after-call work) during this segment. */
  busy: boolean;
}

export interface AgentDayView {
  /** Since when the board knows the agent's statuses, ms. */
  knownSince: number;
  /** Oldest first; the last one runs until now. */
  segments: readonly AgentSegment[];
  /** ms per status ("Available", "On Break · Lunch", ...), the current segment up to now included. */
  timePerStatus: ReadonlyMap<string, number>;
  /** Time in a call / time signed in and not on break, since `knownSince`; null: none yet. */
  occupancy: number | null;
}

/** Segments kept per agent: older ones are folded into the totals (a busy agent's day stays bounded). */
const MAX_SEGMENTS = 400;

/** What a segment is, made once for each different one (a day holds up to 400 segments per agent: a reference each, not an object). */
type Kind = Omit<AgentSegment, "from">;
const kinds = new Map<string, Kind>();
const kindOf = (row: WallboardAgent): Kind => {
  const busy = busyOf(row);
  const key = `${row.kind}\n${row.status}\n${row.reason}\n${busy}`;
  let kind = kinds.get(key);
  if (!kind) kinds.set(key, (kind = Object.freeze({ kind: row.kind, status: row.status, reason: row.reason, busy })));
  return kind;
};

interface Day {
  knownSince: number;
  /** When the board first saw the agent: its first status began before (`knownSince`), unseen. */
  seenSince: number;
  /** The segments, oldest first: when each began (numbers kept unboxed) and what it is. */
  from: number[];
  what: Kind[];
  /** Closed segments folded out of `segments`, by status key. */
  folded: Map<string, number>;
  foldedBusy: number;
  foldedAvailable: number;
}

export const statusKey = (s: Pick<AgentSegment, "status" | "reason">) =>
  s.reason ? `${s.status} · ${s.reason}` : s.status;

const busyOf = (row: WallboardAgent) => !!row.call;

const newDay = (knownSince: number, what: Kind | undefined, seenSince = knownSince): Day => ({
  knownSince,
  seenSince,
  from: what ? [knownSince] : [],
  what: what ? [what] : [],
  folded: new Map(),
  foldedBusy: 0,
  foldedAvailable: 0,
});

export class AgentDays {
  private readonly days = new Map<string, Day>();

  constructor(private from: number) {}

  /** A new day: everything starts again from the agents' current status. */
  reset(from: number): void {
    this.from = from;
    for (const [number, day] of this.days) this.days.set(number, newDay(from, day.what.at(-1)));
  }

  /** A row as it is now (`since`: when its status began, as exactly as known). */
  note(row: WallboardAgent, at: number, since: number): void {
    const day = this.days.get(row.number);
    if (!day) {
      this.days.set(row.number, newDay(Math.max(this.from, Math.min(since, at)), kindOf(row), at));
      return;
    }
    const last = day.what.at(-1);
    if (last && last.status === row.status && last.reason === row.reason && last.busy === busyOf(row)) return;
    day.from.push(at);
    day.what.push(kindOf(row));
    if (day.from.length > MAX_SEGMENTS) {
      const old = day.what.shift()!;
      const ms = day.from[1]! - day.from.shift()!;
      day.folded.set(statusKey(old), (day.folded.get(statusKey(old)) ?? 0) + ms);
      if (old.busy) day.foldedBusy += ms;
      if (availableKinds.has(old.kind) || old.busy) day.foldedAvailable += ms;
    }
  }

  /** The start of the first status seen became known (the platform's clock was measured): the timeline starts there. */
  refineStart(row: WallboardAgent, since: number): void {
    const day = this.days.get(row.number);
    const first = day?.what[0];
    if (!day || !first || day.what.length !== 1 || first.status !== row.status || first.reason !== row.reason) return;
    const start = Math.max(this.from, since);
    if (start >= day.from[0]!) return;
    day.from[0] = start;
    day.knownSince = start;
  }

  forget(number: string): void {
    this.days.delete(number);
  }

  /**
   * The agent's day up to `now`. `calls`: its calls of the day as the queues' records tell them
   * (answered, ended; `agentCallSpans`): the first status began before the board saw the agent,
   * and the calls it took meanwhile, which no status shows (an agent stays Available in a call),
   * are in the timeline and the occupancy from them.
   */
  view(number: string, now: number, calls: readonly CallSpan[] = []): AgentDayView | null {
    const day = this.days.get(number);
    if (!day) return null;
    const segments = unseenCalls(
      day.what.map((what, i) => ({ ...what, from: day.from[i]! })),
      Math.min(day.seenSince, day.from[1] ?? now, now),
      calls,
    );
    const time = new Map(day.folded);
    let busy = day.foldedBusy;
    let available = day.foldedAvailable;
    segments.forEach((s, i) => {
      const ms = Math.max(0, (segments[i + 1]?.from ?? now) - s.from);
      time.set(statusKey(s), (time.get(statusKey(s)) ?? 0) + ms);
      if (s.busy) busy += ms;
      if (availableKinds.has(s.kind) || s.busy) available += ms;
    });
    return {
      knownSince: day.knownSince,
      segments,
      timePerStatus: time,
      occupancy: available > 0 ? busy / available : null,
    };
  }
}

const availableKinds = new Set<StatusKind>(["ready", "on-demand"]);

/** A call of an agent: from its answer to its end (Infinity: not ended). */
export interface CallSpan {
  from: number;
  to: number;
}

/** The first segment, up to `seen`, cut where the calls in `calls` were (the segment busy there). */
function unseenCalls(segments: AgentSegment[], seen: number, calls: readonly CallSpan[]): AgentSegment[] {
  const first = segments[0];
  if (!first || first.busy || first.from >= seen) return segments;
  const within = calls
    .map((c) => ({ from: Math.max(c.from, first.from), to: Math.min(c.to, seen) }))
    .filter((c) => c.to > c.from)
    .sort((a, b) => a.from - b.from);
  if (!within.length) return segments;
  const cut: AgentSegment[] = [];
  let at = first.from;
  for (const c of within) {
    if (c.to <= at) continue;
    if (c.from > at) cut.push({ ...first, from: at });
    cut.push({ ...first, from: Math.max(at, c.from), busy: true });
    at = c.to;
  }
  // The first status goes on, not in a call, until the next one began.
  if (at < (segments[1]?.from ?? Infinity)) cut.push({ ...first, from: at });
  return [...cut, ...segments.slice(1)];
}

/** An agent's calls of the day from its queues' days (`view`'s `calls`): answered by it, up to their end. */
export function agentCallSpans(days: Iterable<QueueDay>, number: string): CallSpan[] {
  const spans: CallSpan[] = [];
  for (const day of days)
    for (const c of day.callers.values())
      if (c.agent === number && c.answeredAt > 0) spans.push({ from: c.answeredAt, to: c.endedAt || Infinity });
  return spans;
}

/** An agent's calls of the day, from its queues' days: answered callers, and the mean handle time of those that ended. */
export function agentCalls(
  days: Iterable<QueueDay>,
  number: string,
): { handled: number; averageHandleTime: number | null } {
  let handled = 0;
  let ended = 0;
  let handleTime = 0;
  for (const day of days)
    for (const c of day.callers.values()) {
      if (c.agent !== number || !c.answeredAt) continue;
      handled++;
      if (c.endedAt && c.answeredAt > 0) {
        ended++;
        handleTime += Math.max(0, c.endedAt - c.answeredAt);
      }
    }
  return { handled, averageHandleTime: ended ? handleTime / ended : null };
}
