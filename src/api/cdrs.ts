import * as v from "valibot";
import { parseBody, readAnswer, type BodyReading, type PlatformClient } from "./client";
import { PlatformError } from "./errors";
import { idString, numberish, text, type Paged } from "./schemas";

/**
 * One call record (one leg), as the toolbar shows it. The platform's record has many more fields
 * (see the spec's "Call record"); these are the ones a call history needs.
 */
export interface CallRecord {
  uuid: string;
  /** The leg this one called (set on the calling leg): the two records are one call. */
  bLegUuid: string;
  callerName: string;
  callerNumber: string;
  destination: string;
  /** The platform's view: `inbound` came into the switch, `outbound` left it. */
  direction: string;
  /** ms since epoch; null when the platform left the stamp empty (never answered, say). */
  startedAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  /** Whole call, seconds. */
  duration: number;
  /** Talk time, seconds. */
  billsec: number;
  /** Q.850 name as FreeSWITCH reports it (NORMAL_CLEARING, CALL_REJECTED, ...). */
  hangupCause: string;
  /** The recording's media file, when the call was recorded. */
  recordingId: string | null;
  sipCallId: string;
  /**
   * The call-center side of the leg (the channel variable `cc_side`: `agent`, `monitor`,
   * `three-way`, `intercept`, ...) and the agent whose call a supervisor's leg joined
   * (`cc_target_agent`), where the record carries its variables (the local platform's addition:
   * the spec's record has none); absent otherwise.
   */
  ccSide?: string;
  ccTargetAgent?: string;
  /** The leg it was last bridged with ("" when it never was): a queue's caller bridged to an agent was answered. */
  otherUuid: string;
  /**
   * The call center's channel variables (`cc_*`: `cc_queue`, `cc_agent`, `cc_member_uuid`,
   * `cc_queue_joined_epoch`, `cc_queue_answered_epoch`, `cc_queue_canceled_epoch`, ...) where the
   * record carries its variables (the local platform's addition); empty otherwise.
   */
  cc: Readonly<Record<string, string>>;
}

/**
 * "YYYY-MM-DD HH:MM:SS" in the platform's local time (FreeSWITCH's *_stamp), read as the
 * browser's local time; ISO strings and epoch seconds/ms are accepted too. Empty, zero and
 * unreadable stamps are "no time".
 */
export function parseStamp(stamp: string): number | null {
  const fast = localStamp(stamp);
  if (fast !== undefined) return fast;
  const s = stamp.trim();
  if (!s || /^0+$/.test(s) || s.startsWith("0000")) return null;
  const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(s);
  if (local) {
    const [, y, mo, d, h, mi, sec] = local.map(Number) as number[];
    return new Date(y!, mo! - 1, d!, h!, mi!, sec || 0).getTime();
  }
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    // FreeSWITCH epochs are seconds (or microseconds for *_uepoch); anything past 1e12 is ms or finer.
    return n > 1e14 ? Math.round(n / 1000) : n > 1e11 ? n : n * 1000;
  }
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
}

/** The number written by `n` digits of `s` from `at`; -1: not all digits. */
const digits = (s: string, at: number, n: number) => {
  let out = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    out = out * 10 + c;
  }
  return out;
};

/**
 * The common case of `parseStamp`, "YYYY-MM-DD HH:MM:SS", read without a regular expression (a
 * day of records holds tens of thousands of stamps; the expression and its array of matches were
 * most of their cost): the same moment as the general reading. undefined: another form.
 */
function localStamp(s: string): number | undefined {
  if (s.length !== 19 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined;
  const sep = s.charCodeAt(10);
  if ((sep !== 32 && sep !== 84) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  if (y < 1 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0) return undefined;
  return new Date(y, mo - 1, d, h, mi, sec).getTime();
}

const NO_VARIABLES: Readonly<Record<string, string>> = Object.freeze({});

function ccVariablesOf(variables: Record<string, unknown> | null | undefined): Readonly<Record<string, string>> {
  if (!variables) return NO_VARIABLES;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(variables))
    if (k.startsWith("cc_") && (typeof v === "string" || typeof v === "number")) (out ??= {})[k] = String(v);
  return out ?? NO_VARIABLES;
}

/** Text that may come as a number, null or not at all ("" then); undefined: neither. */
const textOf = (x: unknown): string | undefined =>
  typeof x === "string" ? x : x === undefined || x === null ? "" : typeof x === "number" ? String(x) : undefined;
/** Numbers come as numbers, numeric strings, "" or null depending on the version (0 when unreadable). */
const countOf = (x: unknown): number | undefined => {
  if (x === undefined || x === null) return 0;
  const n = typeof x === "number" ? x : typeof x === "string" ? Number.parseFloat(x) : undefined;
  return n === undefined ? undefined : Number.isFinite(n) ? n : 0;
};

const TEXT = "(string | number | null)";

/**
 * One record as the toolbar keeps it, or the field that cannot be read and what it should be.
 * Written out rather than as a valibot schema: a day of records is tens of thousands of them,
 * and a schema's generic walk over each was a tenth of the board's opening.
 */
function readCdr(x: unknown): CallRecord | { key?: string; expected: string; value: unknown } {
  if (!x || typeof x !== "object" || Array.isArray(x)) return { expected: "Object", value: x };
  const r = x as Record<string, unknown>;
  const uuid = typeof r.uuid === "string" ? r.uuid : typeof r.uuid === "number" ? String(r.uuid) : undefined;
  if (uuid === undefined) return { key: "uuid", expected: "(string | number)", value: r.uuid };
  const texts: Record<string, string> = {};
  for (const k of TEXT_FIELDS) {
    const t = textOf(r[k]);
    if (t === undefined) return { key: k, expected: TEXT, value: r[k] };
    texts[k] = t;
  }
  const duration = countOf(r.duration);
  if (duration === undefined) return { key: "duration", expected: TEXT, value: r.duration };
  const billsec = countOf(r.billsec);
  if (billsec === undefined) return { key: "billsec", expected: TEXT, value: r.billsec };
  const variables = r.variables;
  if (variables !== undefined && variables !== null && typeof variables !== "object")
    return { key: "variables", expected: "(Object | null)", value: variables };
  const vars = (variables ?? null) as Record<string, unknown> | null;
  const media = texts.media_file_id!;
  return {
    uuid,
    bLegUuid: texts.bleg_uuid!,
    callerName: texts.caller_id_name!,
    callerNumber: texts.caller_id_number!,
    destination: texts.destination_number!,
    direction: texts.direction!,
    startedAt: parseStamp(texts.start_stamp!),
    answeredAt: parseStamp(texts.answer_stamp!),
    endedAt: parseStamp(texts.end_stamp!),
    duration,
    billsec,
    hangupCause: texts.hangup_cause!,
    recordingId: media && media !== "0" ? media : null,
    sipCallId: texts.sip_call_id!,
    otherUuid: texts.other_uuid!,
    cc: ccVariablesOf(vars),
    ...(typeof vars?.cc_side === "string" ? { ccSide: vars.cc_side } : {}),
    ...(typeof vars?.cc_target_agent === "string" ? { ccTargetAgent: vars.cc_target_agent } : {}),
  };
}

const TEXT_FIELDS = [
  "bleg_uuid",
  "other_uuid",
  "caller_id_name",
  "caller_id_number",
  "destination_number",
  "direction",
  "start_stamp",
  "answer_stamp",
  "end_stamp",
  "hangup_cause",
  "media_file_id",
  "sip_call_id",
] as const;

type PathItem = NonNullable<v.BaseIssue<unknown>["path"]>[number];
const at = (input: unknown, key: string | number): PathItem =>
  ({ type: typeof key === "number" ? "array" : "object", origin: "value", input, key, value: undefined }) as PathItem;

/** Records read with `readCdr` (`many`: an array of them), an issue naming the field that cannot be read. */
const cdrSchema = <Many extends boolean>(many: Many) =>
  v.pipe(
    v.unknown(),
    v.rawTransform(({ dataset, addIssue, NEVER }): Many extends true ? CallRecord[] : CallRecord => {
      const items = many ? dataset.value : [dataset.value];
      if (!Array.isArray(items)) {
        addIssue({ expected: "Array", received: typeof items });
        return NEVER as never;
      }
      const out: CallRecord[] = [];
      for (let i = 0; i < items.length; i++) {
        const r = readCdr(items[i]);
        if ("uuid" in r) {
          out.push(r);
          continue;
        }
        const path = [...(many ? [at(items, i)] : []), ...(r.key ? [at(items[i], r.key)] : [])];
        addIssue({
          expected: r.expected,
          received: r.value === undefined ? "undefined" : JSON.stringify(r.value),
          ...(path.length ? { path: path as [PathItem, ...PathItem[]] } : {}),
        });
        return NEVER as never;
      }
      return (many ? out : out[0]) as Many extends true ? CallRecord[] : CallRecord;
    }),
  );

const PagedCdrs = v.object({
  rowCount: numberish,
  page: v.optional(numberish, 1),
  pageCount: v.optional(numberish, 1),
  data: cdrSchema(true),
});

/**
 * The listing comes as the spec's paged object, inside an envelope on some versions, or (older
 * ones) as a bare array: all three are brought to the paged form first, so that a record that
 * cannot be read is named by its place ('data.3.uuid').
 */
const CdrListing = v.pipe(
  v.unknown(),
  v.transform((x) => {
    if (Array.isArray(x)) return { rowCount: x.length, page: 1, pageCount: 1, data: x };
    const o = x as { rowCount?: unknown; data?: unknown } | null;
    if (
      o &&
      typeof o === "object" &&
      o.rowCount === undefined &&
      o.data &&
      typeof o.data === "object" &&
      !Array.isArray(o.data)
    )
      return o.data;
    return x;
  }),
  PagedCdrs,
);

export interface CdrQuery {
  page?: number;
  perPage?: number;
  /** Part of the caller's number (cidNumber). */
  callerNumber?: string;
  /** Part of the dialled number (destNumber). */
  destinationNumber?: string;
  /** "YYYY-MM-DD", optionally with a time; inclusive. */
  startDate?: string;
  /** "YYYY-MM-DD" covers that whole day; optionally with a time. */
  endDate?: string;
  /** Only the last N days. */
  lastDays?: number;
  /** Which stamp the dates filter on (default start). */
  dateType?: "start_stamp" | "end_stamp";
  /** The legs of one group's calls: a call-center queue, by its id (agent_state's `queue_id`). */
  groupValue?: string;
}

/** The query of GET /api/cdrs, in the platform's words. */
const cdrQueryOf = (q: CdrQuery) => ({
  page: q.page,
  perPage: q.perPage,
  cidNumber: q.callerNumber || undefined,
  destNumber: q.destinationNumber || undefined,
  startDate: q.startDate || undefined,
  endDate: q.endDate || undefined,
  last: q.lastDays,
  dateType: q.dateType,
  groupValue: q.groupValue || undefined,
});

const pagedOf = <R>(out: { rowCount: number; page: number; pageCount: number }, data: R[]): Paged<R> => ({
  rowCount: out.rowCount,
  page: out.page,
  pageCount: Math.max(1, out.pageCount),
  data,
});

/** GET /api/cdrs — paged, newest first as the platform sorts them. */
export async function listCdrs(client: PlatformClient, q: CdrQuery = {}): Promise<Paged<CallRecord>> {
  const out = await client.request("GET", "/api/cdrs", { query: cdrQueryOf(q), schema: CdrListing });
  return pagedOf(out, out.data);
}

/**
 * GET /api/cdrs with the answer's body read by `decode` (`readCdrPage` in a worker, say): a day's
 * pages are most of a megabyte of JSON each, which the page's own thread then never parses.
 * `priority`: fetch's (a day's many pages, asked at once in the background, go at low priority,
 * so that a live request waiting for a connection to the platform goes first).
 */
export function listCdrsDecoded<R>(
  client: PlatformClient,
  q: CdrQuery,
  decode: (body: ArrayBuffer) => Promise<BodyReading<Paged<R>>>,
  priority?: RequestPriority,
): Promise<Paged<R>> {
  return client.request("GET", "/api/cdrs", { query: cdrQueryOf(q), decode, ...(priority ? { priority } : {}) });
}

/**
 * A page of GET /api/cdrs from its body's bytes, read as `listCdrs` reads it (every record checked:
 * one that cannot be read refuses the page, naming its field), each record then reduced by
 * `project` to what its reader needs. Runs where the bytes are (a worker).
 */
export function readCdrPage<R>(body: ArrayBuffer, project: (r: CallRecord) => R): BodyReading<Paged<R>> {
  const parsed = parseBody(new TextDecoder().decode(body));
  if (!("data" in parsed)) return parsed;
  const reading = readAnswer(parsed.data, CdrListing);
  if (!("value" in reading)) return reading;
  const out = reading.value;
  return { value: pagedOf(out, out.data.map(project)) };
}

/** GET /api/cdrs/<uuid> — one record, bare or in an envelope. */
export async function getCdr(client: PlatformClient, uuid: string): Promise<CallRecord> {
  return client.request("GET", `/api/cdrs/${encodeURIComponent(uuid)}`, {
    schema: v.union([
      cdrSchema(false),
      v.pipe(
        v.object({ data: cdrSchema(false) }),
        v.transform((e) => e.data),
      ),
    ]),
  });
}

/** The media file record (spec, document 2): `ext` is the file's real extension (wav, mp3, ...). */
const MediaFileSchema = v.object({
  id: idString,
  ext: v.pipe(
    text,
    v.transform((x) => x.replace(/^\./, "").trim()),
  ),
});

/**
 * The recording's audio, fetched with the token in the header (never in the URL): its media file
 * record first (`GET /api/media_files/<id>`, bare or in an envelope), then the file under its own
 * extension (`GET /api/media_files/<id>.<ext>`), since a platform may keep recordings as mp3.
 */
export async function fetchRecording(client: PlatformClient, mediaFileId: string): Promise<Blob> {
  const id = encodeURIComponent(mediaFileId);
  const file = await client.request("GET", `/api/media_files/${id}`, {
    schema: v.union([
      MediaFileSchema,
      v.pipe(
        v.object({ data: MediaFileSchema }),
        v.transform((e) => e.data),
      ),
    ]),
  });
  if (!/^[a-z0-9]{1,8}$/i.test(file.ext)) {
    throw new PlatformError(
      "decode",
      200,
      200,
      `the media file ${mediaFileId} has no usable extension ('${file.ext}')`,
      `GET /api/media_files/${id}`,
    );
  }
  return client.download(`/api/media_files/${id}.${file.ext}`);
}
