import type { PlatformClient } from "../api";
import { listCdrs, type CallRecord } from "../api/cdrs";

/**
 * Reads the call records of one day (today since local midnight, or a chosen day) in the
 * background: `GET /api/cdrs` page by page, newest first, yielding to the page between pages so
 * that whatever runs live (a board applying events, a toolbar) is never held up by it. Any
 * surface that needs the day's records uses it: the supervisor's queue and agent figures, the
 * agent's own figures of the day.
 *
 * Records are written when a leg ends, so a record can appear on page 1 while later pages are read
 * and push every older record one place on: a record may then come twice (it is kept once, by its
 * uuid), and none is skipped.
 */
export interface DayRecordsQuery {
  /** The day's first moment, the platform's way of writing it ("YYYY-MM-DD" or with a time): see `platformDay`. */
  startDate: string;
  /** Its last moment; "YYYY-MM-DD" alone covers that whole day. */
  endDate: string;
  /** One group's calls: a call-center queue, by its id (agent_state's `queue_id`). */
  groupValue?: string;
  /** Part of the caller's or the dialled number (the spec's filters), e.g. an agent's own legs. */
  callerNumber?: string;
  destinationNumber?: string;
}

export interface DayRecordsOptions {
  /** Records per page (the platform allows up to 1000). */
  perPage?: number;
  /** Called with each page's new records as it arrives (the caller may count them at once). */
  onPage?: (records: readonly CallRecord[], progress: { page: number; pageCount: number }) => void;
  /** Stops paging at the first page whose records are all known already (a catch-up after a first full read). */
  known?: (uuid: string) => boolean;
  /** Waits between pages (default: a macrotask, so events and clicks go first). */
  pause?: () => Promise<void>;
  signal?: AbortSignal;
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Every record of the day the query names, each once, newest first. */
export async function readDayRecords(
  client: PlatformClient,
  query: DayRecordsQuery,
  options: DayRecordsOptions = {},
): Promise<CallRecord[]> {
  const perPage = options.perPage ?? 1000;
  const pause = options.pause ?? macrotask;
  const seen = new Set<string>();
  const all: CallRecord[] = [];
  for (let page = 1, pageCount = 1; page <= pageCount; page++) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    const out = await listCdrs(client, {
      page,
      perPage,
      startDate: query.startDate,
      endDate: query.endDate,
      ...(query.groupValue ? { groupValue: query.groupValue } : {}),
      ...(query.callerNumber ? { callerNumber: query.callerNumber } : {}),
      ...(query.destinationNumber ? { destinationNumber: query.destinationNumber } : {}),
    });
    pageCount = out.pageCount;
    const fresh = out.data.filter((r) => !seen.has(r.uuid) && !options.known?.(r.uuid));
    for (const r of fresh) seen.add(r.uuid);
    all.push(...fresh);
    options.onPage?.(fresh, { page, pageCount });
    if (options.known && out.data.length && !fresh.length) break;
    if (page < pageCount) await pause();
  }
  return all;
}

const pad = (n: number) => String(n).padStart(2, "0");

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
