import type { Db } from "../store/db";

/** A call record row: one per leg, with the spec's fields (plus the leg's extension and owner). */
export interface CdrRow {
  id: number;
  uuid: string;
  bleg_uuid: string;
  other_uuid: string;
  caller_id_name: string;
  caller_id_number: string;
  destination_number: string;
  start_stamp: string;
  ring_stamp: string;
  answer_stamp: string;
  end_stamp: string;
  duration: number;
  billsec: number;
  account_code: string;
  hangup_cause: string;
  sip_hangup_disposition: string;
  network_addr: string;
  network_port: string;
  context: string;
  direction: string;
  realm: string;
  external_tracking_id: string;
  caller_source: string;
  digits_dialed: string;
  sip_call_id: string;
  xui_route_ids: string;
  abs_path: string;
  rel_path: string;
  rtp_use_codec_name: string;
  xui_hangup_cause: string;
  media_file_id: number | null;
  extn: string;
  user_id: number | null;
  variables: string;
}

export type NewCdr = Omit<CdrRow, "id">;

/**
 * Which records a reader who is not an administrator sees: those of the calls its extensions took
 * part in (extensionScope), and for a supervisor also every leg of a call-center queue's call when
 * it reads by queue (`queueId`: its board counts the queues' calls of the day from them). A
 * supervisor's other reads (its call history, a record by uuid) are of its own calls, as anyone's.
 */
export interface CdrScope {
  extensions: string[];
  queueCalls: boolean;
}

export interface CdrQuery {
  dateType?: "start_stamp" | "end_stamp";
  /** Inclusive, "YYYY-MM-DD" or "YYYY-MM-DD HH:MM[:SS]". */
  startDate?: string;
  /** Inclusive; a date without a time covers that whole day. */
  endDate?: string;
  cidNumber?: string;
  destNumber?: string;
  startBillsec?: number;
  endBillsec?: number;
  /** Records of the last N days (counted from the start of the day N-1 days ago). */
  lastDays?: number;
  /** Only legs of calls through this call-center queue (by its id): those whose cc_queue names it. */
  queueId?: number;
  /** Only legs of this dialplan context. */
  context?: string;
  /** Only the records this reader may see (see CdrScope); absent: every record (an administrator). */
  scope?: CdrScope;
  page: number;
  perPage: number;
}

/**
 * The CDR as the API shows it: the spec's fields; variables as an object. Built field by field
 * (not spread from the database's row): a page of a thousand is a few milliseconds, not tens.
 */
export function cdrJson(row: CdrRow) {
  const out: Record<string, unknown> = {};
  for (const c of COLUMNS) out[c] = row[c];
  let vars: Record<string, string> = {};
  try {
    vars = JSON.parse(row.variables) as Record<string, string>;
  } catch {
    vars = {};
  }
  out.media_file_id = row.media_file_id === null ? "" : String(row.media_file_id);
  out.variables = vars;
  return out as Omit<CdrRow, "id" | "media_file_id" | "variables"> & {
    media_file_id: string;
    variables: Record<string, string>;
  };
}

const COLUMNS = [
  "uuid",
  "bleg_uuid",
  "other_uuid",
  "caller_id_name",
  "caller_id_number",
  "destination_number",
  "start_stamp",
  "ring_stamp",
  "answer_stamp",
  "end_stamp",
  "duration",
  "billsec",
  "account_code",
  "hangup_cause",
  "sip_hangup_disposition",
  "network_addr",
  "network_port",
  "context",
  "direction",
  "realm",
  "external_tracking_id",
  "caller_source",
  "digits_dialed",
  "sip_call_id",
  "xui_route_ids",
  "abs_path",
  "rel_path",
  "rtp_use_codec_name",
  "xui_hangup_cause",
  "media_file_id",
  "extn",
  "user_id",
  "variables",
] as const;

/**
 * A record as `cdrJson` writes it, in SQL: the columns in the same order, media_file_id as text
 * ("" for none), variables as the object they hold ({} when they do not parse).
 */
/** The call-center queue a record's call went through (indexed: platform/store/schema.ts). */
const QUEUE_OF = "iif(json_valid(variables), json_extract(variables, '$.cc_queue'), NULL)";

const JSON_RECORD = `json_object(${COLUMNS.map((c) =>
  c === "media_file_id"
    ? `'${c}', CASE WHEN ${c} IS NULL THEN '' ELSE CAST(${c} AS TEXT) END`
    : c === "variables"
      ? `'${c}', CASE WHEN json_valid(${c}) THEN json(${c}) ELSE json_object() END`
      : `'${c}', ${c}`,
).join(", ")})`;

export class CdrStore {
  constructor(private readonly db: Db) {}

  insert(row: NewCdr): void {
    this.db
      .prepare(`INSERT OR REPLACE INTO cdrs (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`)
      .run(row);
  }

  /** The record of a leg; with `extensions`, only if it is of a call one of them took part in. */
  byUuid(uuid: string, scope?: CdrScope): CdrRow | undefined {
    const { sql, args } = this.scope(scope);
    return this.db.prepare(`SELECT * FROM cdrs WHERE uuid = ? ${sql ? `AND ${sql}` : ""}`).get(uuid, ...args) as
      CdrRow | undefined;
  }

  total(scope?: CdrScope): number {
    const { sql, args } = this.scope(scope);
    return (
      this.db.prepare(`SELECT COUNT(*) AS n FROM cdrs ${sql ? `WHERE ${sql}` : ""}`).get(...args) as { n: number }
    ).n;
  }

  list(q: CdrQuery): { rowCount: number; rows: CdrRow[] } {
    const { whereSql, args, rowCount } = this.filter(q);
    // Read as arrays and made into rows here: SQLite's rows as objects of 35 columns cost about
    // twice as much.
    const read = this.db
      .prepare(
        `SELECT id, ${COLUMNS.join(", ")} FROM cdrs ${whereSql} ORDER BY start_stamp DESC, id DESC LIMIT ? OFFSET ?`,
      )
      .raw(true)
      .all(...args, q.perPage, (q.page - 1) * q.perPage) as unknown as unknown[][];
    const rows = read.map((values) => {
      const row: Record<string, unknown> = { id: values[0] };
      for (let i = 0; i < COLUMNS.length; i++) row[COLUMNS[i]!] = values[i + 1];
      return row as unknown as CdrRow;
    });
    return { rowCount, rows };
  }

  /**
   * The same page as `list`, each record already as the API's JSON (what `cdrJson` makes of it),
   * written by SQLite itself: a page of a thousand records (what a supervisor's board reads, a
   * day's worth of them at once) is then a few milliseconds of the platform's one thread instead
   * of tens (35 values a record made into JavaScript strings, its variables parsed, all of it
   * written out again).
   */
  listJson(q: CdrQuery): { rowCount: number; json: string[] } {
    const { whereSql, args, rowCount } = this.filter(q);
    const read = this.db
      .prepare(`SELECT ${JSON_RECORD} FROM cdrs ${whereSql} ORDER BY start_stamp DESC, id DESC LIMIT ? OFFSET ?`)
      .raw(true)
      .all(...args, q.perPage, (q.page - 1) * q.perPage) as unknown as [string][];
    return { rowCount, json: read.map((r) => r[0]) };
  }

  /** The query's condition, its arguments, and how many records it holds. */
  private filter(q: CdrQuery): { whereSql: string; args: unknown[]; rowCount: number } {
    const where: string[] = [];
    const args: unknown[] = [];
    const column = q.dateType === "end_stamp" ? "end_stamp" : "start_stamp";
    if (q.startDate) {
      where.push(`${column} >= ?`);
      args.push(normaliseStart(q.startDate));
    }
    if (q.endDate) {
      where.push(`${column} <= ?`);
      args.push(normaliseEnd(q.endDate));
    }
    if (q.lastDays !== undefined) {
      const since = new Date();
      since.setHours(0, 0, 0, 0);
      since.setDate(since.getDate() - (q.lastDays - 1));
      where.push(`${column} >= ?`);
      args.push(dayStamp(since) + " 00:00:00");
    }
    if (q.cidNumber) {
      where.push("caller_id_number LIKE ? ESCAPE '\\'");
      args.push(`%${likeEscape(q.cidNumber)}%`);
    }
    if (q.destNumber) {
      where.push("destination_number LIKE ? ESCAPE '\\'");
      args.push(`%${likeEscape(q.destNumber)}%`);
    }
    if (q.startBillsec !== undefined) {
      where.push("billsec >= ?");
      args.push(q.startBillsec);
    }
    if (q.endBillsec !== undefined) {
      where.push("billsec <= ?");
      args.push(q.endBillsec);
    }
    if (q.queueId !== undefined) {
      // By the queue's name, so that the index of the queues' records serves (see the schema).
      const queue = this.db.prepare("SELECT name FROM queues WHERE id = ?").get(q.queueId) as
        { name: string } | undefined;
      where.push(queue ? `${QUEUE_OF} = ?` : "0");
      if (queue) args.push(queue.name);
    }
    if (q.context !== undefined) {
      where.push("context = ?");
      args.push(q.context);
    }
    // A supervisor reads every leg of a queue's call: one queue's legs need no other condition.
    const scope = q.queueId !== undefined && q.scope?.queueCalls ? { sql: "", args: [] } : this.scope(q.scope);
    if (scope.sql) {
      where.push(scope.sql);
      args.push(...scope.args);
    }
    const whereSql = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const rowCount = (this.db.prepare(`SELECT COUNT(*) AS n FROM cdrs ${whereSql}`).get(...args) as { n: number }).n;
    return { whereSql, args, rowCount };
  }

  /**
   * Records related to one: the legs it is linked to by uuid (bleg_uuid/other_uuid, both ways) as
   * 'channel', and other legs of the same SIP call (same Call-ID) as 'call_id'.
   */
  related(uuid: string): { type: "channel" | "call_id"; uuid: string }[] {
    const row = this.byUuid(uuid);
    if (!row) return [];
    const out: { type: "channel" | "call_id"; uuid: string }[] = [];
    const seen = new Set([uuid]);
    const linked = this.db
      .prepare("SELECT uuid FROM cdrs WHERE uuid IN (?, ?) OR bleg_uuid = ? OR other_uuid = ? ORDER BY start_stamp, id")
      .all(row.bleg_uuid, row.other_uuid, uuid, uuid) as { uuid: string }[];
    for (const r of linked) {
      if (seen.has(r.uuid)) continue;
      seen.add(r.uuid);
      out.push({ type: "channel", uuid: r.uuid });
    }
    if (row.sip_call_id) {
      const same = this.db
        .prepare("SELECT uuid FROM cdrs WHERE sip_call_id = ? ORDER BY start_stamp, id")
        .all(row.sip_call_id) as { uuid: string }[];
      for (const r of same) {
        if (seen.has(r.uuid)) continue;
        seen.add(r.uuid);
        out.push({ type: "call_id", uuid: r.uuid });
      }
    }
    return out;
  }

  private scope(scope: CdrScope | undefined): { sql: string; args: unknown[] } {
    return scope ? extensionScope(scope.extensions) : { sql: "", args: [] };
  }
}

/**
 * The condition (over `cdrs`) that a record is of a call one of these extensions took part in:
 * the leg is the extension's own, or linked to one of its legs (the leg it called or that called
 * it, the leg it was bridged with). Numbers a call presents (caller id, dialled number) decide
 * nothing: a caller can present any. Who may read a record, and its recording, is decided by it.
 */
export function extensionScope(extensions: string[]): { sql: string; args: unknown[] } {
  if (extensions.length === 0) return { sql: "0", args: [] };
  const marks = extensions.map(() => "?").join(", ");
  const legs = `SELECT uuid FROM cdrs WHERE extn IN (${marks})`;
  return {
    sql:
      `(extn IN (${marks}) OR bleg_uuid IN (${legs}) OR other_uuid IN (${legs})` +
      ` OR uuid IN (SELECT bleg_uuid FROM cdrs WHERE extn IN (${marks})) OR uuid IN (SELECT other_uuid FROM cdrs WHERE extn IN (${marks})))`,
    args: [...extensions, ...extensions, ...extensions, ...extensions, ...extensions],
  };
}

function dayStamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function normaliseStart(text: string): string {
  const t = text.trim().replace("T", " ");
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t} 00:00:00`;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(t)) return `${t}:00`;
  return t;
}

function normaliseEnd(text: string): string {
  const t = text.trim().replace("T", " ");
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t} 23:59:59`;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(t)) return `${t}:59`;
  return t;
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
