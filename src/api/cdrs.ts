import * as v from "valibot";
import type { PlatformClient } from "./client";
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

/** Numbers and stamps come as numbers, numeric strings, "" or null depending on the version. */
const count = v.optional(
  v.pipe(
    v.nullable(v.union([v.number(), v.string()])),
    v.transform((x) => {
      const n = typeof x === "number" ? x : Number.parseFloat(x ?? "");
      return Number.isFinite(n) ? n : 0;
    }),
  ),
  0,
);

const CdrSchema = v.object({
  uuid: v.pipe(v.union([v.string(), v.number()]), v.transform(String)),
  bleg_uuid: text,
  other_uuid: text,
  caller_id_name: text,
  caller_id_number: text,
  destination_number: text,
  direction: text,
  start_stamp: text,
  answer_stamp: text,
  end_stamp: text,
  duration: count,
  billsec: count,
  hangup_cause: text,
  media_file_id: text,
  sip_call_id: text,
  variables: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
});

type RawCdr = v.InferOutput<typeof CdrSchema>;

/**
 * "YYYY-MM-DD HH:MM:SS" in the platform's local time (FreeSWITCH's *_stamp), read as the
 * browser's local time; ISO strings and epoch seconds/ms are accepted too. Empty, zero and
 * unreadable stamps are "no time".
 */
export function parseStamp(stamp: string): number | null {
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

const NO_VARIABLES: Readonly<Record<string, string>> = Object.freeze({});

function ccVariablesOf(variables: Record<string, unknown> | null | undefined): Readonly<Record<string, string>> {
  if (!variables) return NO_VARIABLES;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(variables))
    if (k.startsWith("cc_") && (typeof v === "string" || typeof v === "number")) (out ??= {})[k] = String(v);
  return out ?? NO_VARIABLES;
}

function toRecord(r: RawCdr): CallRecord {
  const recordingId = r.media_file_id && r.media_file_id !== "0" ? r.media_file_id : null;
  return {
    uuid: r.uuid,
    bLegUuid: r.bleg_uuid,
    callerName: r.caller_id_name,
    callerNumber: r.caller_id_number,
    destination: r.destination_number,
    direction: r.direction,
    startedAt: parseStamp(r.start_stamp),
    answeredAt: parseStamp(r.answer_stamp),
    endedAt: parseStamp(r.end_stamp),
    duration: r.duration,
    billsec: r.billsec,
    hangupCause: r.hangup_cause,
    recordingId,
    sipCallId: r.sip_call_id,
    otherUuid: r.other_uuid,
    cc: ccVariablesOf(r.variables),
    ...(typeof r.variables?.cc_side === "string" ? { ccSide: r.variables.cc_side } : {}),
    ...(typeof r.variables?.cc_target_agent === "string" ? { ccTargetAgent: r.variables.cc_target_agent } : {}),
  };
}

const PagedCdrs = v.object({
  rowCount: numberish,
  page: v.optional(numberish, 1),
  pageCount: v.optional(numberish, 1),
  data: v.array(CdrSchema),
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

/** GET /api/cdrs — paged, newest first as the platform sorts them. */
export async function listCdrs(client: PlatformClient, q: CdrQuery = {}): Promise<Paged<CallRecord>> {
  const out = await client.request("GET", "/api/cdrs", {
    query: {
      page: q.page,
      perPage: q.perPage,
      cidNumber: q.callerNumber || undefined,
      destNumber: q.destinationNumber || undefined,
      startDate: q.startDate || undefined,
      endDate: q.endDate || undefined,
      last: q.lastDays,
      dateType: q.dateType,
      groupValue: q.groupValue || undefined,
    },
    schema: CdrListing,
  });
  return {
    rowCount: out.rowCount,
    page: out.page,
    pageCount: Math.max(1, out.pageCount),
    data: out.data.map(toRecord),
  };
}

/** GET /api/cdrs/<uuid> — one record, bare or in an envelope. */
export async function getCdr(client: PlatformClient, uuid: string): Promise<CallRecord> {
  const raw = await client.request("GET", `/api/cdrs/${encodeURIComponent(uuid)}`, {
    schema: v.union([
      CdrSchema,
      v.pipe(
        v.object({ data: CdrSchema }),
        v.transform((e) => e.data),
      ),
    ]),
  });
  return toRecord(raw);
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
