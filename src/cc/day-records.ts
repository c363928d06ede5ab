import type { Paged, PlatformClient } from "../api";
import { listCdrs, parseStamp, type CallRecord, type CdrQuery } from "../api/cdrs";

/**
 * Reads the call records of one day (today since local midnight, or a chosen day) in the
 * background: `GET /api/cdrs`, several requests side by side, each page handed on as it comes, so
 * that a day of tens of thousands of records is read in about the time of a few pages. Any surface
 * that needs the day's records uses it: the supervisor's queue and agent figures, the agent's own
 * figures of the day.
 *
 * Pages by offset cannot be read side by side safely: records are written when a leg ends, so a
 * record written while the pages are read pushes every older one a place on, and a page read
 * before its newer neighbour would then miss the record pushed onto it. So the day is cut by
 * time instead (the spec's `startDate` and `endDate` take a time, to the second, both inclusive):
 * the first page of the day says how many records there are and when its oldest began; what is
 * older is cut into spans of about a page each, read side by side, and a span that still holds
 * more than a page is cut again the same way. A record's start never changes, so it is in exactly
 * one span; within a span (one second holding more than a page, say) pages follow one another,
 * newest first, where a record written meanwhile can only bring one back twice. Each record is
 * kept once, by its uuid.
 */
export interface DayRecordsQuery {
  /** The day's first moment, the platform's way of writing it ("YYYY-MM-DD HH:MM:SS"): see `platformDay`. */
  startDate: string;
  /** Its last moment, the same way. */
  endDate: string;
  /** One group's calls: a call-center queue, by its id (agent_state's `queue_id`). */
  groupValue?: string;
  /** Part of the caller's or the dialled number (the spec's filters), e.g. an agent's own legs. */
  callerNumber?: string;
  destinationNumber?: string;
}

export interface DayRecordsProgress {
  /** Records read so far (each once). */
  read: number;
  /** The day's records as the platform counted them at the first page. */
  total: number;
}

/** What the day's reading itself needs of a record: which it is, and when it began. */
export type DayRecordKey = Pick<CallRecord, "uuid" | "startedAt">;

/**
 * Reads one page of call records (`listCdrs`, or one that reads them off the page's thread).
 * `bodyIn`, when the reader calls it, says the page's body has come: the request is then no
 * longer under way (the next may go), while the body is still being read.
 */
export type CdrPageReader<R extends DayRecordKey> = (
  client: PlatformClient,
  query: CdrQuery,
  bodyIn?: () => void,
) => Promise<Paged<R>>;

export interface DayRecordsOptions<R extends DayRecordKey = CallRecord> {
  /** How a page is read (default `listCdrs`: whole records, on this thread). */
  readPage?: CdrPageReader<R>;
  /** Records per page (the platform allows up to 1000). */
  perPage?: number;
  /** Requests under way at once (default 4: the browser opens 6 connections to a host, and live reads need some). */
  parallel?: number;
  /** Shared by several reads (several queues' days read at once): requests under way at once among them all. */
  limit?: Limiter;
  /** Called with each page's new records as it arrives (the caller may count them at once). */
  onPage?: (records: readonly R[], progress: DayRecordsProgress) => void;
  signal?: AbortSignal;
}

const SECOND = 1000;
const pad = (n: number) => String(n).padStart(2, "0");
/** The platform's "YYYY-MM-DD HH:MM:SS", written as `parseStamp` reads it (as this browser's local time). */
const stampOf = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * Runs at most `atOnce` of the tasks given at once, in the order given; `atOnce` may change (a
 * function), and `next()` then starts those waiting when it grew.
 */
export function limiter(atOnce: number | (() => number)): Limiter & { next(): void } {
  const most = typeof atOnce === "number" ? () => atOnce : atOnce;
  let running = 0;
  const waiting: (() => void)[] = [];
  const next = () => {
    while (running < most() && waiting.length) {
      running++;
      waiting.shift()!();
    }
  };
  const limit = async <T>(task: () => Promise<T>): Promise<T> => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      next();
    });
    try {
      return await task();
    } finally {
      running--;
      next();
    }
  };
  return Object.assign(limit, { next });
}

/** Every record of the day the query names, each once, newest first. */
export async function readDayRecords<R extends DayRecordKey = CallRecord>(
  client: PlatformClient,
  query: DayRecordsQuery,
  options: DayRecordsOptions<R> = {},
): Promise<R[]> {
  const perPage = options.perPage ?? 1000;
  // Without a reader of its own, R is the default: whole records.
  const list = options.readPage ?? (listCdrs as unknown as CdrPageReader<R>);
  const limit = options.limit ?? limiter(options.parallel ?? 4);
  const seen = new Set<string>();
  const all: R[] = [];
  const progress: DayRecordsProgress = { read: 0, total: 0 };
  const filters = {
    ...(query.groupValue ? { groupValue: query.groupValue } : {}),
    ...(query.callerNumber ? { callerNumber: query.callerNumber } : {}),
    ...(query.destinationNumber ? { destinationNumber: query.destinationNumber } : {}),
  };

  const readPage = async (from: number, to: number, page: number) => {
    // The request holds its place among those under way until its body has come (or it ended).
    let reading!: Promise<Paged<R>>;
    await limit(() => {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      return new Promise<void>((bodyIn) => {
        reading = list(client, { ...filters, startDate: stampOf(from), endDate: stampOf(to), page, perPage }, bodyIn);
        reading.then(
          () => bodyIn(),
          () => bodyIn(),
        );
      });
    });
    const out = await reading;
    if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    // The day's first page (nothing else is asked before it answers) counts the whole day.
    progress.total ||= out.rowCount;
    const fresh = out.data.filter((r) => !seen.has(r.uuid));
    for (const r of fresh) seen.add(r.uuid);
    all.push(...fresh);
    progress.read = seen.size;
    options.onPage?.(fresh, progress);
    return out;
  };

  /** The records that began from `from` to `to` (ms, whole seconds, both inclusive). */
  const readSpan = async (from: number, to: number): Promise<void> => {
    const first = await readPage(from, to, 1);
    if (first.pageCount <= 1) return;
    const starts = first.data.map((r) => r.startedAt ?? from);
    const oldest = Math.max(from, starts.at(-1) ?? from);
    if (oldest <= from || starts.some((t, i) => i > 0 && t > starts[i - 1]!)) {
      // One second holds more than a page, or the platform does not give the newest first by
      // start (what follows the page might then have begun after its oldest): page after page.
      for (let page = 2, pageCount = first.pageCount; page <= pageCount; page++)
        pageCount = (await readPage(from, to, page)).pageCount;
      return;
    }
    // The rest began at or before the page's oldest record (records of that same second may
    // come twice): cut into spans of about a page each, read side by side.
    const seconds = (oldest - from) / SECOND + 1;
    const parts = Math.min(seconds, Math.max(1, Math.ceil((first.rowCount - first.data.length) / perPage)));
    const edges = Array.from({ length: parts + 1 }, (_, i) => from + Math.floor((seconds * i) / parts) * SECOND);
    await Promise.all(
      edges.slice(0, -1).map((start, i) => readSpan(start, i === parts - 1 ? oldest : edges[i + 1]! - SECOND)),
    );
  };

  const from = parseStamp(query.startDate);
  const to = parseStamp(query.endDate);
  if (from === null || to === null) throw new Error(`not a day: ${query.startDate} to ${query.endDate}`);
  await readSpan(from, to);
  return all.sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0));
}

/**
 * The records of a query that ended from `since` on (ms, as `parseStamp` reads the platform's
 * stamps), each once: what a day kept in the browser lacks (records of calls that ended since it
 * was kept). Pages are read one after another: a record written meanwhile can only push a record
 * already read onto the next page (it comes twice, and is kept once), never one not read yet off
 * it; one written before the page being read is not read now, but by the next read since (whose
 * moment is the newest end read, less a margin: see the wallboard's KEPT_OVERLAP_MS).
 */
export async function readRecordsEndedSince<R extends DayRecordKey = CallRecord>(
  client: PlatformClient,
  query: { since: number; groupValue?: string },
  options: Pick<DayRecordsOptions<R>, "readPage" | "perPage" | "limit" | "signal"> = {},
): Promise<R[]> {
  const list = options.readPage ?? (listCdrs as unknown as CdrPageReader<R>);
  const limit = options.limit ?? limiter(1);
  const seen = new Map<string, R>();
  for (let page = 1, pageCount = 1; page <= pageCount; page++) {
    const out = await limit(() => {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      return list(client, {
        ...(query.groupValue ? { groupValue: query.groupValue } : {}),
        dateType: "end_stamp",
        startDate: stampOf(query.since),
        page,
        perPage: options.perPage ?? 1000,
      });
    });
    pageCount = out.pageCount;
    for (const r of out.data) seen.set(r.uuid, r);
  }
  return [...seen.values()];
}

/**
 * The day that holds `at` (ms, this browser's clock), as the platform writes times: its local time
 * without a zone. `clockOffset` is PlatformClock's offset (null: not measured yet, taken as the same
 * zone). The day is this browser's local day: a supervisor's "today" begins at their midnight.
 */
export function platformDay(
  at: number,
  clockOffset: number | null,
): { startDate: string; endDate: string; from: number; to: number } {
  const d = new Date(at);
  const from = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const to = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() - 1000;
  const stamp = (ms: number) => {
    const p = new Date(ms + (clockOffset ?? 0));
    return `${p.getFullYear()}-${pad(p.getMonth() + 1)}-${pad(p.getDate())} ${pad(p.getHours())}:${pad(p.getMinutes())}:${pad(p.getSeconds())}`;
  };
  return { startDate: stamp(from), endDate: stamp(to), from, to };
}
