import type { CallRecord } from "../api/cdrs";

/**
 * One conversation of the user's, from the records of its legs: the platform records every leg
 * (FreeSWITCH's log-b-leg), so one conversation is several records: a queue call is the
 * customer's leg and the agent's (and one more agent leg for each take-back after a reload); a
 * click-to-dial is the leg that rang the agent's own phone and the leg to the number dialled.
 */
export interface Conversation {
  /** The record that stands for it: the user's first leg of it, else its calling leg. */
  record: CallRecord;
  /** Every leg of it on the page (the record's first), by which its notes are found. */
  uuids: readonly string[];
  /** From the user's side: `outgoing` when the user placed it (from the phone or by click-to-dial). */
  direction: "outgoing" | "incoming";
  /** The other party. */
  number: string;
  name: string;
  startedAt: number | null;
  /** From the first answer of the user's own legs to the end of the last: the time the card showed. */
  answeredAt: number | null;
  endedAt: number | null;
  talkSec: number;
  /** How its last leg of the user ended (Q.850 name). */
  hangupCause: string;
  recordingId: string | null;
}

/**
 * The conversations of a page of records, newest first. Legs are one conversation when linked by
 * `bleg_uuid` (the leg a leg called) or `other_uuid` (the leg it was bridged with); the user's own
 * legs are those that rang the user's phone (destination: the extension) or that the user placed
 * (caller: the extension). A conversation with a leg of the user's is told from it: a supervisor's
 * listening leg stays the supervisor's row, the agent's phone legs of a queue call (taken back or
 * not) are one incoming row from the customer, and a click-to-dial is one outgoing row to the
 * number dialled.
 */
export function conversationsOf(records: readonly CallRecord[], myExtension: string): Conversation[] {
  const byUuid = new Map(records.map((r) => [r.uuid, r]));
  const parent = new Map<string, string>();
  const root = (u: string): string => {
    let r = u;
    while (parent.get(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const join = (a: string, b: string) => {
    if (!byUuid.has(a) || !byUuid.has(b)) return;
    const [x, y] = [root(a), root(b)];
    if (x !== y) parent.set(y, x);
  };
  for (const r of records) {
    if (r.bLegUuid) join(r.uuid, r.bLegUuid);
    if (r.otherUuid) join(r.uuid, r.otherUuid);
  }
  const groups = new Map<string, CallRecord[]>();
  for (const r of records) {
    const key = root(r.uuid);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const own = (r: CallRecord) => !!myExtension && (r.destination === myExtension || r.callerNumber === myExtension);
  const called = new Set(records.map((r) => r.bLegUuid).filter(Boolean));
  const earliest = (legs: CallRecord[]) =>
    [...legs].sort((a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity))[0]!;
  const out: Conversation[] = [];
  for (const legs of groups.values()) {
    const mine = legs.filter(own);
    const calling = legs.filter((r) => !called.has(r.uuid));
    const record = earliest(mine.length ? mine : calling.length ? calling : legs);
    const timed = mine.length ? mine : [record];
    // Placed by the user: a leg of the user's to someone else.
    const placed = mine.find((r) => r.callerNumber === myExtension && r.destination !== myExtension);
    const times = (pick: (r: CallRecord) => number | null) => timed.map(pick).filter((t): t is number => t !== null);
    const starts = times((r) => r.startedAt);
    const answers = times((r) => r.answeredAt);
    const ends = times((r) => r.endedAt);
    const answeredAt = answers.length ? Math.min(...answers) : null;
    const endedAt = ends.length ? Math.max(...ends) : null;
    const last = [...timed].sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0))[0]!;
    // One leg: its billsec (rounded by the platform from its own clock); several: from the first answer to the last end.
    const talkSec =
      answeredAt === null
        ? 0
        : timed.length === 1
          ? record.billsec
          : Math.max(0, Math.round(((endedAt ?? answeredAt) - answeredAt) / 1000));
    out.push({
      record,
      uuids: [record.uuid, ...legs.filter((r) => r !== record).map((r) => r.uuid)],
      direction: placed ? "outgoing" : "incoming",
      number: placed ? placed.destination : record.callerNumber,
      name: placed ? "" : record.callerName,
      startedAt: starts.length ? Math.min(...starts) : null,
      answeredAt,
      endedAt,
      talkSec,
      hangupCause: last.hangupCause,
      recordingId: legs.find((r) => r.recordingId)?.recordingId ?? null,
    });
  }
  return out.sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0));
}
