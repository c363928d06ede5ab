import { createStore, type StoreApi } from "zustand/vanilla";
import {
  getAgentState,
  getQueueMembers,
  PlatformError,
  type AgentStateRecord,
  type PlatformClient,
  type QueueMember,
} from "../../api";
import { browserStorage, readJson, type KeyValueStorage, type SessionStore, type SessionUser } from "../../session";
import { eventTime, type CallCenterEventData } from "../agent-status";
import type { EventFeed } from "../event-feed";
import { limiter, platformDay, readDayRecords, readRecordsEndedSince } from "../day-records";
import { parseStamp } from "../../api/cdrs";
import { listQueueRecords, listQueueRecordsHere, startQueueRecordsWorker } from "./queue-records";
import { createPlatformClock, type PlatformClock } from "../platform-clock";
import { userQueueNames } from "../user-queues";
import { AgentDays, agentCallSpans, type AgentDayView, type CallSpan } from "./agent-day";
import { pastDayCsv, todayCsv } from "./day-export";
import { indexedDbDayCache, type DayCache } from "./day-cache";
import { QueueDay, type QueueRecord } from "./queue-day";
import { showsWallboard } from "./supervisor-role";
import {
  agentNumberOf,
  applyEvent,
  applyMembers,
  applyRecords,
  DEFAULT_SERVICE_LEVEL_SECONDS,
  emptyWallboard,
  statusSinceOf,
  WallboardDraft,
  type WallboardData,
} from "./wallboard";

/**
 * - `events`: the event channel is open and talking; reads of agent_state only reconcile now and then;
 * - `polling`: the channel is closed or has gone quiet: agent_state is read every few seconds;
 * - `off`: nobody watches the board, or nobody who may is signed in.
 */
export type WallboardSource = "events" | "polling" | "off";

export interface WallboardState {
  board: WallboardData;
  source: WallboardSource;
  /** When the board last heard from the platform (an event or a read), ms since epoch; 0: never. */
  updatedAt: number;
  /** Nothing heard for longer than the board trusts: its figures may be out of date. */
  stale: boolean;
  /** The last read failed: why, in the platform's words. */
  readError: string | null;
  /** The first read is under way. */
  loading: boolean;
  /** The queues whose agents the board shows; empty: every queue (an administrator, or a supervisor of no queue in particular). */
  scope: readonly string[];
  serviceLevelSeconds: number;
  /** The platform's clock offset (see PlatformClock), ms; null until an event measured it. */
  clockOffset: number | null;
  /** Whether the platform lists a queue's waiting callers; null: not asked yet. */
  membersListed: boolean | null;
  /** Today's call records, read in the background: how far (see `Wallboard.queueDay`). */
  day: DayReading;
  /** Bumped whenever a queue's day changed (records read, events): figures are computed again. */
  dayVersion: number;
}

export interface DayReading {
  /** The day's first moment (local midnight), ms. */
  from: number;
  /** `reading` while pages come in; `read` once every queue's records are in; `failed` with the reason. */
  status: "waiting" | "reading" | "read" | "failed";
  /** Records read so far, of every queue. */
  records: number;
  /** The records the day holds, as far as the queues' first pages said (0: not known yet). */
  total: number;
  error: string | null;
}

export type WallboardStore = StoreApi<WallboardState>;

export interface WallboardDeps {
  session: SessionStore;
  feed: EventFeed;
  now?: () => number;
  /** Reads while events do not flow (default 5 s). */
  pollMs?: number;
  /** Reads while events flow, to correct what events may have missed (default 60 s). */
  reconcileMs?: number;
  /** An open channel silent this long is taken for a dead one (default 15 s). */
  silentAfterMs?: number;
  /** Figures older than this are marked stale (default 15 s). */
  staleAfterMs?: number;
  /** Events are applied in batches at most this often (default 100 ms): one store change per batch. */
  batchMs?: number;
  serviceLevelSeconds?: number;
  /** Queues where calls ended are read again at most this often, for the after-call work that began (default 2 s). */
  queueReadMs?: number;
  readAgents?: (client: PlatformClient, query: { queue?: string }) => Promise<AgentStateRecord[]>;
  readMembers?: (client: PlatformClient, queue: string) => Promise<QueueMember[]>;
  userQueues?: (client: PlatformClient, userId: string) => Promise<string[]>;
  /** Where each queue's id is remembered from one opening to the next (default: localStorage). */
  storage?: KeyValueStorage;
  /** Where today's records are kept from one opening to the next (default: IndexedDB; null: nowhere). */
  dayCache?: DayCache | null;
}

export interface Wallboard {
  store: WallboardStore;
  /** The platform's clock as measured from its events: its times on this browser's clock. */
  clock: PlatformClock;
  /** A queue's day so far, caller by caller (records and events): its figures and intervals. */
  queueDay(queue: string): QueueDay | undefined;
  /** Every queue's day. */
  queueDays(): Iterable<QueueDay>;
  /** An agent's statuses of the day, as far as the board saw them. */
  agentDay(number: string, now: number): AgentDayView | null;
  /** The queue and agent figures of a day as CSV: today's as the board has them, another day's from the records. */
  exportDay(day: Date, thresholdOf: (queue: string) => number): Promise<string>;
  /** The board runs while someone watches it; returns the unwatcher. */
  watch(): () => void;
  /** Reads agent_state now. */
  refresh(): Promise<void>;
  /** Applies the events received so far now (tests; the board does it by itself every `batchMs`). */
  flush(): void;
  setServiceLevelSeconds(seconds: number): void;
  dispose(): void;
}

/**
 * Requests for the day's records under way at once, of every queue: one of the browser's 6
 * connections to a host stays free for live requests (a supervisor's action, the board's reads),
 * which also go before pages waiting for a connection (asked at low priority: `listQueueRecords`).
 * A request's place is free once its page's body has come (see `readDayRecords`).
 */
const DAY_READS = 5;
/**
 * The same until the board's first read of its agents has answered: the records asked at once
 * under remembered ids would otherwise come before it, on the platform and on the page, and no
 * queue shows its figures before that read is applied.
 */
const DAY_READS_OPENING = 1;
/** While the day's records are read, the board shows what they add at most this often (ms). */
const DAY_SHOWN_MS = 200;
/**
 * A day kept in the browser is completed with the records that ended since its newest one ended,
 * less this much: a record written a little after its call ended, or while the read that kept the
 * day went on (a few seconds), is read again rather than missed.
 */
const KEPT_OVERLAP_MS = 60_000;
/**
 * A platform's clock offset this far from the one its day's records were asked with asks them
 * again (a zone is a quarter of an hour at least; a measure refined by a few ms asks nothing).
 */
const CLOCK_MOVED_MS = 60_000;
const dayOf = (ms: number) => new Date(ms).toDateString();
const midnightOf = (ms: number) => new Date(new Date(ms).toDateString()).getTime();

/** A queue's day read whole: its id, the records read (by uuid), when the newest of them ended (ms). */
interface KeptDay {
  id: string;
  seen: Set<string>;
  lastEnd: number;
}

const keepRead = (kept: KeptDay, records: readonly QueueRecord[]) => {
  for (const r of records) {
    kept.seen.add(r.uuid);
    if (r.endedAt !== null && r.endedAt > kept.lastEnd) kept.lastEnd = r.endedAt;
  }
};

/** Whose board, on which platform: what is kept in this browser is kept per user and platform. */
const ownerOf = (login: string, platformUrl: string) => `${login}@${platformUrl}`;

export function createWallboard(deps: WallboardDeps): Wallboard {
  const now = deps.now ?? Date.now;
  const pollMs = deps.pollMs ?? 5_000;
  const reconcileMs = deps.reconcileMs ?? 60_000;
  const silentAfterMs = deps.silentAfterMs ?? 15_000;
  const staleAfterMs = deps.staleAfterMs ?? 15_000;
  const batchMs = deps.batchMs ?? 100;
  const queueReadMs = deps.queueReadMs ?? 2_000;
  const readAgents = deps.readAgents ?? ((c, q) => getAgentState(c, q));
  const userQueues = deps.userQueues ?? userQueueNames;
  const readMembers = deps.readMembers ?? getQueueMembers;
  const dayCache = deps.dayCache === undefined ? indexedDbDayCache() : deps.dayCache;
  const clock = createPlatformClock();

  const store = createStore<WallboardState>()(() => ({
    board: emptyWallboard(now()),
    source: "off",
    updatedAt: 0,
    stale: false,
    readError: null,
    loading: false,
    scope: [],
    serviceLevelSeconds: deps.serviceLevelSeconds ?? DEFAULT_SERVICE_LEVEL_SECONDS,
    clockOffset: null,
    membersListed: null,
    day: { from: midnightOf(now()), status: "waiting", records: 0, total: 0, error: null },
    dayVersion: 0,
  }));

  let days = new Map<string, QueueDay>();
  const queueDayOf = (queue: string) => {
    let day = days.get(queue);
    if (!day) days.set(queue, (day = new QueueDay(store.getState().day.from)));
    return day;
  };
  /** Queues whose records of the day were read (or are being read): under which id. */
  let recordsAsked = new Map<string, string>();
  /** Queues whose day was read whole, by name: the records read (by uuid), and when the newest ended. */
  let dayKept = new Map<string, KeptDay>();
  /** The day's reads under way (one per queue or more), and the requests they may have under way at once among them. */
  const newDayReads = () => ({
    under: 0,
    gate: limiter(() => (agentsOpening ? DAY_READS_OPENING : DAY_READS)),
    /** Stops these reads' requests when the board closes or the day is read afresh. */
    abort: new AbortController(),
    /** Queues whose day is being read, of every read under way. */
    queuesReading: 0,
    /**
     * Whole days read, to be kept once no queue's day is being read any more: keeping one (its
     * records made into JSON and stored, tens of ms on the page's thread) would hold up the
     * others' pages.
     */
    keep: [] as (() => void)[],
    /** The platform's clock offset its records were asked with (null: not measured, read as this browser's zone). */
    askedWith: undefined as number | null | undefined,
    /** Records added to the queues' days since the board last showed it (see `publishDay`). */
    unshown: { records: 0, total: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined },
  });
  /** The board's first read of its agents has not answered yet (see DAY_READS_OPENING). */
  let agentsOpening = false;
  const agentsAnswered = () => {
    agentsOpening = false;
    dayReads.gate.next();
  };
  let dayReads = newDayReads();
  /** The day's records read afresh from `from`: its queues' days, what was asked, what waits to be shown. */
  const freshDay = (from: number): DayReading => {
    if (dayReads.unshown.timer) clearTimeout(dayReads.unshown.timer);
    dayReads.abort.abort();
    days = new Map();
    recordsAsked = new Map();
    dayKept = new Map();
    dayReads = newDayReads();
    return { from, status: "waiting", records: 0, total: 0, error: null };
  };
  const restartDay = () => store.setState((s) => ({ day: freshDay(s.day.from), dayVersion: s.dayVersion + 1 }));
  /**
   * The day's records asked before the platform's clock was known (the first opening in this
   * browser, before any event) were asked as if the platform were in this browser's zone: once an
   * event tells its zone (or a clock far off), the day is read again in the platform's time, and
   * what was kept of the wrong one is not used but replaced.
   */
  const readDayInPlatformTime = () => {
    const asked = dayReads.askedWith;
    if (asked === undefined || Math.abs((clock.offset() ?? 0) - (asked ?? 0)) < CLOCK_MOVED_MS) return;
    const ids = [...recordsAsked].map(([name, id]) => ({ name, id }));
    restartDay();
    void readDay(ids, true);
  };
  let agentDays = new AgentDays(store.getState().day.from);
  /** An agent's calls from the queues' days, for its day's view (asked every second while it shows): read again when the days change. */
  let spans = { number: "", days: new Map<string, QueueDay>(), version: -1, calls: [] as CallSpan[] };
  const callSpansOf = (number: string): CallSpan[] => {
    const version = [...days.values()].reduce((v, d) => v + d.version, 0);
    if (spans.number !== number || spans.days !== days || spans.version !== version)
      spans = { number, days, version, calls: agentCallSpans(days.values(), number) };
    return spans.calls;
  };

  let watchers = 0;
  let run = 0;
  let client: PlatformClient | null = null;
  let unsubscribeFeed: (() => void) | undefined;
  let tick: ReturnType<typeof setInterval> | undefined;
  let batch: ReturnType<typeof setTimeout> | undefined;
  let pending: CallCenterEventData[] = [];
  let lastReadAt = 0;
  let reading = false;

  const draft = () => new WallboardDraft(store.getState().board);

  /** Set when a queue's day changed since the last commit. */
  let dayChanged = false;
  const commit = (d: WallboardDraft, patch: Partial<WallboardState> = {}) => {
    const t = now();
    if (dayOf(d.finish().countingSince) !== dayOf(t)) {
      // A new day: today's figures start again (its few records so far are read anew).
      d.resetCounts(midnightOf(t));
      agentDays.reset(midnightOf(t));
      dayChanged = true;
      patch = { ...patch, day: freshDay(midnightOf(t)) };
      queueMicrotask(() => void readDay());
    }
    if (dayChanged) patch = { ...patch, dayVersion: store.getState().dayVersion + 1 };
    dayChanged = false;
    if (d.changed.size) {
      const rows = d.finish().agents;
      for (const number of d.changed) {
        const row = rows.get(number);
        if (row) agentDays.note(row, t, statusSinceOf(row, clock).at);
        else agentDays.forget(number);
      }
    }
    store.setState({ ...(d.touched ? { board: d.finish() } : {}), updatedAt: t, stale: false, ...patch });
  };

  const flush = () => {
    if (batch) clearTimeout(batch);
    batch = undefined;
    if (!pending.length) return;
    const events = pending;
    pending = [];
    const d = draft();
    const t = now();
    let unknownAgent = false;
    for (const e of events) {
      applyEvent(d, e, t);
      const queue = e["CC-Queue"];
      if (queue && queueDayOf(queue).addEvent(e, Math.min(eventTime(e, t), t))) dayChanged = true;
      // An agent the board does not know (signed in since the last read): read it now, not at the
      // next reconcile. During a read, once that read is applied, and only if it did not list it
      // (see `applyRead`): a board that opens knows nobody until its first read is applied.
      if (unknownAgentOf(d, e)) unknownAgent ||= !sinceRead;
      // A queue call ended: after-call work may begin, which only a read says (wrap_up_until).
      else if (e["CC-Action"] === "bridge-agent-end" && e["CC-Queue"]) queuesToRead.add(e["CC-Queue"]);
    }
    commit(d);
    if (unknownAgent) wholeReadWanted = true;
    if (unknownAgent || queuesToRead.size) readSoon();
  };

  const unknownAgentOf = (d: WallboardDraft, e: CallCenterEventData): boolean => {
    const number = agentNumberOf(e["CC-Agent"] ?? "");
    return !!number && !d.agent(number) && e["CC-Action"] !== "agent-supervision";
  };

  /**
   * The events received since the read under way sent its first request (null: no read under
   * way). Its answer may be older than any of them: they are applied again over it (see `applyRead`).
   */
  let sinceRead: CallCenterEventData[] | null = null;

  const onEvent = (e: CallCenterEventData) => {
    sinceRead?.push(e);
    if (clock.note(e, now())) {
      store.setState({ clockOffset: clock.offset() });
      keepClock();
      for (const row of store.getState().board.agents.values())
        agentDays.refineStart(row, statusSinceOf(row, clock).at);
      readDayInPlatformTime();
    }
    pending.push(e);
    batch ??= setTimeout(flush, batchMs);
  };

  /** Queues whose agents to read again soon (a call ended in them), and whether a whole read is wanted. */
  const queuesToRead = new Set<string>();
  let wholeReadWanted = false;
  let soon: ReturnType<typeof setTimeout> | undefined;
  let lastQueueReadAt = 0;
  /**
   * Reads what events asked for: an unknown agent at once, the queues where calls ended at most
   * every `queueReadMs` (a busy centre ends calls all the time); one read at a time.
   */
  const readSoon = () => {
    if (soon || !client) return;
    const wait = wholeReadWanted ? 0 : Math.max(0, lastQueueReadAt + queueReadMs - now());
    soon = setTimeout(() => {
      soon = undefined;
      // A read under way asks again when it ends (see `settled`).
      if (reading) return;
      if (wholeReadWanted) {
        wholeReadWanted = false;
        queuesToRead.clear();
        void read();
        return;
      }
      const queues = [...queuesToRead];
      queuesToRead.clear();
      lastQueueReadAt = now();
      void readQueues(queues);
    }, wait);
  };

  /** The waiting callers of each queue, where the platform lists them (not the spec: null when it has no such list). */
  const membersOf = async (c: PlatformClient, queues: readonly string[]) => {
    if (store.getState().membersListed === false) return null;
    const listed = await Promise.all(
      queues.map((queue) =>
        readMembers(c, queue).then(
          (callers) => [queue, callers] as const,
          (e: unknown) => {
            // A queue gone since: nobody waits there. Any other 404: the platform has no such list.
            if (e instanceof PlatformError && e.status === 404)
              return /^queue '/.test(e.message) ? ([queue, []] as const) : null;
            throw e;
          },
        ),
      ),
    );
    if (listed.some((l) => l === null)) {
      store.setState({ membersListed: false });
      return null;
    }
    return listed as (readonly [string, QueueMember[]])[];
  };

  const applyRead = (
    perQueue: readonly (readonly [string, AgentStateRecord[]])[],
    everyone: AgentStateRecord[],
    members: readonly (readonly [string, QueueMember[]])[] | null,
    previous: ReadonlySet<string>,
    partial: boolean,
  ) => {
    const queuesOf = new Map<string, string[]>();
    for (const [queue, rows] of perQueue)
      for (const r of rows) queuesOf.set(r.agent_id, [...(queuesOf.get(r.agent_id) ?? []), queue]);
    // The events received so far are applied as usual first (the day's figures count them once).
    flush();
    const d = draft();
    applyRecords(d, [...perQueue.flatMap(([, rows]) => rows), ...everyone], queuesOf, now(), previous, partial);
    for (const [queue, rows] of perQueue) {
      d.addQueue(queue);
      const id = rows.find((r) => r.queue_id)?.queue_id;
      if (id) d.patchQueue(queue, (q) => (q.id === id ? {} : { id }));
    }
    rememberIds(d.finish());
    if (members) {
      for (const [queue, callers] of members) {
        applyMembers(
          d,
          queue,
          callers.map((c) => ({ uuid: c.uuid, joinedAt: c.joinedAt })),
        );
        queueDayOf(queue).addWaiting(callers.map((c) => ({ key: c.sessionUuid, joinedAt: c.joinedAt })));
      }
    }
    // Callers an agent talks to now were answered today (their record is written when they end).
    for (const [, rows] of perQueue)
      for (const r of rows)
        if (
          r.call?.answered &&
          r.call.queue &&
          r.call.customer_uuid &&
          (r.call.kind === "queue" || r.call.kind === "handover")
        )
          queueDayOf(r.call.queue).addInCall(r.call.customer_uuid, r.agent_id);
    dayChanged = true;
    // Events received since the read's first request may be newer than its answer (an agent
    // signed in and out again meanwhile): the read first, then them again, in their order. An
    // agent they name that the read did not list (signed in since) is read next.
    const t = now();
    const since = sinceRead ?? [];
    sinceRead = null;
    const order = since.map((e, i) => ({ e, i, at: eventTime(e, t) }));
    order.sort((a, b) => a.at - b.at || a.i - b.i);
    for (const { e } of order) {
      applyEvent(d, e, t);
      if (unknownAgentOf(d, e)) wholeReadWanted = true;
    }
    commit(d, {
      readError: null,
      loading: false,
      ...(members ? { membersListed: true } : {}),
    });
  };

  const read = async (): Promise<void> => {
    const c = client;
    if (!c || reading) return;
    const myRun = run;
    reading = true;
    sinceRead = [];
    lastReadAt = now();
    try {
      const { scope, board } = store.getState();
      // Every agent first (an administrator, or a supervisor of no queue in particular): it names
      // the queues agents signed into, so that each agent is counted in every queue it has a tier
      // in from the first read on.
      const everyone = scope.length ? [] : await readAgents(c, {});
      if (myRun !== run) return;
      const queues = scope.length
        ? scope
        : [...new Set([...board.queues.keys(), ...everyone.map((r) => r.group_id).filter(Boolean)])].sort();
      const [perQueue, members] = await Promise.all([
        Promise.all(
          queues.map(async (queue) => {
            const rows = await readAgents(c, { queue });
            // Its id known, the queue's records of the day are read at once, beside the rest of this read.
            const id = rows.find((r) => r.queue_id)?.queue_id;
            if (id && myRun === run) void readDay([{ name: queue, id }]);
            return [queue, rows] as const;
          }),
        ).then((rows) => {
          if (myRun === run) agentsAnswered();
          return rows;
        }),
        membersOf(c, queues),
      ]);
      if (myRun !== run) return;
      applyRead(perQueue, everyone, members, new Set(store.getState().board.agents.keys()), false);
    } catch (e) {
      if (myRun === run) store.setState({ readError: e instanceof Error ? e.message : String(e), loading: false });
    } finally {
      if (myRun === run) settled();
    }
  };

  /**
   * Today's call records of every queue whose id the board knows (`groupValue`; or of the queues
   * given, whose id a read has just told), every queue at once, in the background (see
   * `readDayRecords`): the live board goes on meanwhile, and each page adds to the figures as it
   * comes. A queue whose id is learnt later is read when it is.
   */
  const readDay = async (known?: readonly { name: string; id: string }[], fresh = false): Promise<void> => {
    const c = client;
    if (!c) return;
    const myRun = run;
    const { board } = store.getState();
    const asked = known ?? [...board.queues.values()];
    // A queue read under another id (one remembered from a queue since made anew): what was read
    // is dropped, and the day read again under the ids known now.
    if (asked.some((q) => q.id && recordsAsked.has(q.name) && recordsAsked.get(q.name) !== q.id)) {
      const ids = new Map(recordsAsked);
      for (const q of asked) if (q.id) ids.set(q.name, q.id);
      restartDay();
      return readDay(
        [...ids].map(([name, id]) => ({ name, id })),
        fresh,
      );
    }
    const queues = asked.filter((q) => q.id && !recordsAsked.has(q.name));
    if (!queues.length) return;
    for (const q of queues) recordsAsked.set(q.name, q.id);
    const { day } = store.getState();
    const range = platformDay(day.from, clock.offset());
    const mine = dayReads;
    if (mine.askedWith === undefined) mine.askedWith = clock.offset();
    mine.under++;
    store.setState((s) => ({ day: { ...s.day, status: "reading", error: null } }));
    // Each queue's count of the day, once its first page said it.
    const totals = new Map<string, number>();
    const who = owner;
    try {
      await Promise.all(
        queues.map(async (q) => {
          mine.queuesReading++;
          try {
            const queueDay = queueDayOf(q.name);
            const current = () => myRun === run && queueDay === days.get(q.name);
            /** Records added to the queue's day as they come; `total`: how many the day holds, as far as known. */
            const add = (records: readonly QueueRecord[], total: number) => {
              if (!current()) return;
              queueDay.addRecords(records, clock.offset() ?? 0);
              mine.unshown.records += records.length;
              mine.unshown.total += total - (totals.get(q.name) ?? 0);
              totals.set(q.name, total);
              mine.unshown.timer ??= setTimeout(() => publishDay(mine), DAY_SHOWN_MS);
            };
            const read: KeptDay = { id: q.id, seen: new Set(), lastEnd: 0 };
            // The day as this browser kept it (a reload), and what ended since (asked at once, while
            // what was kept is read); else the whole day.
            const kept = who && dayCache && !fresh ? await dayCache.read(who, q.id, day.from).catch(() => null) : null;
            const since = kept && recordsEndedSince(c, q.id, kept.lastEnd, range, mine.abort.signal);
            const records = kept?.records();
            if (since && records) {
              add(records, records.length);
              keepRead(read, records);
              const more = (await since).filter((r) => !read.seen.has(r.uuid));
              add(more, records.length + more.length);
              keepRead(read, more);
              if (more.length && current()) void dayCache!.add(who, q.id, day.from, more, false).catch(() => {});
            } else {
              since?.catch(() => {});
              // Its pages are read in a worker: started now, it is running by the time they come.
              startQueueRecordsWorker();
              const began = now();
              const all = await readDayRecords(
                c,
                { startDate: range.startDate, endDate: range.endDate, groupValue: q.id },
                {
                  limit: mine.gate,
                  signal: mine.abort.signal,
                  readPage: listQueueRecords,
                  onPage: (records, progress) => add(records, progress.total),
                },
              );
              keepRead(read, all);
              // A record written while the day was read may be missed (see `readDayRecords`): what
              // ended since the read began is read again at the next turn.
              read.lastEnd -= now() - began;
              mine.keep.push(() => {
                if (who && current()) void dayCache?.add(who, q.id, day.from, all, true).catch(() => {});
              });
            }
            queueDay.recordsRead();
            if (current()) dayKept.set(q.name, read);
          } finally {
            if (--mine.queuesReading === 0) for (const k of mine.keep.splice(0)) k();
          }
        }),
      );
      if (myRun !== run || mine !== dayReads) return;
      publishDay(mine);
      // Read once no other queue's day is still being read (nor one failed).
      if (--mine.under === 0)
        store.setState((s) => (s.day.status === "reading" ? { day: { ...s.day, status: "read" } } : {}));
    } catch (e) {
      if (myRun !== run || mine !== dayReads) return;
      publishDay(mine);
      mine.under--;
      for (const q of queues) if (recordsAsked.get(q.name) === q.id) recordsAsked.delete(q.name);
      store.setState((s) => ({
        day: { ...s.day, status: "failed", error: e instanceof Error ? e.message : String(e) },
      }));
    }
  };

  /**
   * A queue's records of the day (`range`) that ended since `lastEnd` less KEPT_OVERLAP_MS: what
   * a day read (or kept) then lacks. They are few: read on the page's thread, beside any other read.
   */
  const recordsEndedSince = async (
    c: PlatformClient,
    queueId: string,
    lastEnd: number,
    range: { startDate: string; endDate: string },
    signal: AbortSignal,
  ): Promise<QueueRecord[]> => {
    const from = parseStamp(range.startDate) ?? 0;
    const to = (parseStamp(range.endDate) ?? Infinity) + 999;
    const records = await readRecordsEndedSince<QueueRecord>(
      c,
      { since: Math.max(from, lastEnd - KEPT_OVERLAP_MS), groupValue: queueId },
      { readPage: listQueueRecordsHere, signal },
    );
    return records.filter((r) => r.startedAt !== null && r.startedAt >= from && r.startedAt <= to);
  };

  /**
   * While the day is kept in the browser, what ended since is read now and then (every
   * `reconcileMs`) and kept too, so that a reload reads little; the figures take it as well (what
   * events may have missed).
   */
  let dayRefreshedAt = 0;
  let refreshing = false;
  const refreshDay = async (): Promise<void> => {
    const c = client;
    const who = owner;
    if (!c || !dayCache || !who || refreshing) return;
    const myRun = run;
    const mine = dayReads;
    refreshing = true;
    dayRefreshedAt = now();
    try {
      const { day } = store.getState();
      // What was kept of other days is forgotten (not as the board opens: it would hold up the day's read).
      void dayCache.forget(who, day.from).catch(() => {});
      const range = platformDay(day.from, clock.offset());
      for (const [name, read] of [...dayKept]) {
        const more = (await recordsEndedSince(c, read.id, read.lastEnd, range, mine.abort.signal)).filter(
          (r) => !read.seen.has(r.uuid),
        );
        if (myRun !== run || mine !== dayReads || dayKept.get(name) !== read) return;
        if (!more.length) continue;
        keepRead(read, more);
        queueDayOf(name).addRecords(more, clock.offset() ?? 0);
        store.setState((s) => ({
          day: { ...s.day, records: s.day.records + more.length, total: s.day.total + more.length },
          dayVersion: s.dayVersion + 1,
        }));
        void dayCache.add(who, read.id, day.from, more, false).catch(() => {});
      }
    } catch {
      // Read again at the next turn.
    } finally {
      refreshing = false;
    }
  };

  /**
   * The pages read since the board last showed the day, shown at once: at most every
   * DAY_SHOWN_MS while the day is read (the day's pages come many a second; each showing redraws
   * every queue's figures and chart), and at its end.
   */
  const publishDay = (mine: ReturnType<typeof newDayReads>) => {
    const { unshown } = mine;
    if (unshown.timer) clearTimeout(unshown.timer);
    unshown.timer = undefined;
    if (mine !== dayReads || (!unshown.records && !unshown.total)) return;
    const { records, total } = unshown;
    unshown.records = unshown.total = 0;
    store.setState((s) => ({
      day: { ...s.day, records: s.day.records + records, total: s.day.total + total },
      dayVersion: s.dayVersion + 1,
    }));
  };

  /** A read ended: what events asked for meanwhile is read next. */
  const settled = () => {
    reading = false;
    agentsAnswered();
    // A read that failed: agents that events named meanwhile and the board does not know are read again.
    if (sinceRead) {
      const d = draft();
      if (sinceRead.some((e) => unknownAgentOf(d, e))) wholeReadWanted = true;
      sinceRead = null;
    }
    // Queues the read made known (or whose id it learnt) get their records of the day.
    void readDay();
    if (wholeReadWanted || queuesToRead.size) readSoon();
  };

  /** The agents of some queues only (after-call work that began there): nobody leaves the board. */
  const readQueues = async (queues: readonly string[]): Promise<void> => {
    const c = client;
    if (!c || reading || !queues.length) return;
    const myRun = run;
    reading = true;
    sinceRead = [];
    try {
      const perQueue = await Promise.all(queues.map(async (queue) => [queue, await readAgents(c, { queue })] as const));
      if (myRun !== run) return;
      applyRead(perQueue, [], null, new Set(), true);
    } catch (e) {
      if (myRun === run) store.setState({ readError: e instanceof Error ? e.message : String(e) });
    } finally {
      if (myRun === run) settled();
    }
  };

  /** Every second: which source the board runs on, whether to read, whether the figures went stale. */
  const check = () => {
    const t = now();
    const feed = deps.feed.store.getState();
    const { updatedAt, stale, source } = store.getState();
    const flowing = feed.status === "open" && t - Math.max(feed.lastEventAt, lastOpenedAt) < silentAfterMs;
    const nextSource: WallboardSource = flowing ? "events" : "polling";
    if (nextSource !== source) store.setState({ source: nextSource });
    if (t - lastReadAt >= (flowing ? reconcileMs : pollMs)) void read();
    if (store.getState().day.status === "read" && t - dayRefreshedAt >= reconcileMs) void refreshDay();
    const isStale = updatedAt > 0 && t - updatedAt > staleAfterMs;
    if (isStale !== stale) store.setState({ stale: isStale });
  };
  // A board opened after the channel: count its silence from now, not from before the board was there.
  let lastOpenedAt = deps.feed.store.getState().status === "open" ? now() : 0;
  const unsubscribeFeedStatus = deps.feed.store.subscribe((s, before) => {
    if (s.status === "open" && before.status !== "open") lastOpenedAt = now();
  });

  /** Who watches the board, on which platform (see `ownerOf`), and where the queues' ids are kept for them. */
  let owner = "";
  let idsKey = "";
  const storage = deps.storage ?? browserStorage("localStorage");
  /** The queues' ids the board learnt when it was last open (not call data: names and ids only). */
  const rememberedIds = (): { name: string; id: string }[] => {
    const kept = readJson(storage, idsKey);
    if (!kept || typeof kept !== "object" || Array.isArray(kept)) return [];
    return Object.entries(kept)
      .filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== "")
      .map(([name, id]) => ({ name, id }));
  };
  /**
   * Where the platform's clock offset is kept for the next opening, per platform: a reload (or
   * the next morning's opening) reads the day in the platform's time, shows time in status
   * exactly and a wrap-up over as over, before the first event measures the offset again. Two
   * zones' difference changes only with summer time, which that event then corrects.
   */
  let clockKey = "";
  const keepClock = () => {
    const offset = clock.offset();
    if (clockKey && offset !== null) storage.setItem(clockKey, String(offset));
  };
  const keptClock = (): number | null => {
    const kept = storage.getItem(clockKey);
    return kept && Number.isFinite(Number(kept)) ? Number(kept) : null;
  };
  const rememberIds = (board: WallboardData) => {
    const ids = Object.fromEntries([...board.queues.values()].filter((q) => q.id).map((q) => [q.name, q.id]));
    const value = JSON.stringify(ids);
    if (idsKey && Object.keys(ids).length && storage.getItem(idsKey) !== value) storage.setItem(idsKey, value);
  };

  const userOf = (): { client: PlatformClient; user: SessionUser } | null => {
    const s = deps.session.getState();
    return s.status === "signed-in" && s.client && s.user && showsWallboard(s.user)
      ? { client: s.client, user: s.user }
      : null;
  };

  const stop = () => {
    run++;
    client = null;
    // The day's reads ask nothing more (what was asked comes back and is dropped).
    dayReads.abort.abort();
    unsubscribeFeed?.();
    unsubscribeFeed = undefined;
    if (tick) clearInterval(tick);
    tick = undefined;
    if (batch) clearTimeout(batch);
    batch = undefined;
    if (soon) clearTimeout(soon);
    soon = undefined;
    queuesToRead.clear();
    wholeReadWanted = false;
    pending = [];
    reading = false;
    sinceRead = null;
    store.setState({ source: "off" });
  };

  const start = async (who: { client: PlatformClient; user: SessionUser }) => {
    stop();
    const myRun = run;
    client = who.client;
    lastReadAt = 0;
    agentDays = new AgentDays(midnightOf(now()));
    clockKey = `agentbar.platform-clock.${deps.session.getState().platformUrl}`;
    clock.assume(keptClock());
    store.setState({
      clockOffset: clock.offset(),
      board: emptyWallboard(now()),
      day: freshDay(midnightOf(now())),
      dayVersion: 0,
      loading: true,
      readError: null,
      updatedAt: 0,
      stale: false,
      source: "polling",
    });
    unsubscribeFeed = deps.feed.subscribe({}, onEvent);
    // The day's records of the queues this board showed last time are asked at once, under the
    // ids it learnt then (a read that names another id reads that queue's day again).
    agentsOpening = true;
    owner = ownerOf(who.user.login, deps.session.getState().platformUrl);
    idsKey = `agentbar.queue-ids.${owner}`;
    dayRefreshedAt = now();
    void readDay(rememberedIds());
    // An administrator watches every queue; a supervisor its own, or every one when it has none.
    const scope = who.user.isAdmin ? [] : await userQueues(who.client, who.user.id).catch(() => [] as string[]);
    if (myRun !== run) return;
    store.setState({ scope });
    await read();
    if (myRun !== run) return;
    tick = setInterval(check, 1_000);
  };

  let following: PlatformClient | null = null;
  const follow = () => {
    const who = watchers > 0 ? userOf() : null;
    if ((who?.client ?? null) === following) return;
    following = who?.client ?? null;
    if (who) void start(who);
    else stop();
  };
  const unsubscribeSession = deps.session.subscribe(follow);
  // Signed out (or the session ended): what this browser kept of the user's day is forgotten.
  const unsubscribeSignOut = deps.session.subscribe((s, before) => {
    if (before.user && !s.user && (s.status === "signed-out" || s.status === "session-expired"))
      void dayCache?.forget(ownerOf(before.user.login, before.platformUrl)).catch(() => {});
  });

  return {
    store,
    clock,
    queueDay: (queue) => days.get(queue),
    queueDays: () => days.values(),
    agentDay: (number, at) => agentDays.view(number, at, callSpansOf(number)),
    async exportDay(day, thresholdOf) {
      const { board, day: today } = store.getState();
      const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
      if (midnightOf(day.getTime()) === today.from) return todayCsv(date, board, (q) => days.get(q), thresholdOf);
      const c = client;
      if (!c) throw new Error("not signed in");
      const queues = [...board.queues.values()]
        .filter((q) => q.id)
        .map((q) => ({ name: q.name, id: q.id, thresholdSeconds: thresholdOf(q.name) }));
      const names = new Map([...board.agents.values()].map((a) => [a.number, a.name]));
      return pastDayCsv(c, day, queues, names, clock.offset());
    },
    watch() {
      watchers++;
      follow();
      return () => {
        watchers--;
        follow();
      };
    },
    refresh: read,
    flush,
    setServiceLevelSeconds(seconds) {
      if (Number.isFinite(seconds) && seconds > 0) store.setState({ serviceLevelSeconds: seconds });
    },
    dispose() {
      unsubscribeSession();
      unsubscribeSignOut();
      unsubscribeFeedStatus();
      watchers = 0;
      following = null;
      stop();
    },
  };
}
