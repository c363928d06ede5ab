import { mkdirSync, rmSync, rmdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import type { Db } from "../store/db";
import { timestamp } from "../store/db";
import { extensionScope } from "./cdr-store";

export interface MediaFileRow {
  id: number;
  channel_uuid: string;
  type: string;
  name: string;
  description: string;
  ext: string;
  mime: string;
  file_size: number;
  abs_path: string;
  dir_path: string;
  rel_path: string;
  original_file_name: string;
  file_name: string;
  thumb_path: string;
  geo_position: string;
  meta: string;
  processing_flag: number;
  user_id: number | null;
  domain: string;
  duration: number;
  bit_rate: number;
  sample_rate: number;
  channels: number;
  created_at: string;
  updated_at: string;
  deleted_at: string;
}

/** A user who is not an administrator, with the extension numbers they own. */
export interface MediaFileReader {
  userId: number;
  extensions: string[];
}

export interface MediaFileQuery {
  uuid?: string;
  types?: string[];
  /** Only files this user may read. */
  reader?: MediaFileReader;
  page: number;
  perPage: number;
}

export function mediaFileJson(row: MediaFileRow) {
  return { ...row, id: String(row.id), user_id: row.user_id === null ? "" : String(row.user_id) };
}

/** Where a new recording goes: the paths of its file and its media-file row. */
export interface RecordingPlace {
  absPath: string;
  relPath: string;
  dirPath: string;
  fileName: string;
}

/**
 * Media files of the platform (the spec's media_files); the switch's call recordings are files
 * of type RECORD, stored as WAV under `<data folder>/recordings/<day>/<channel uuid>.wav`.
 */
export class MediaFileStore {
  readonly root: string;

  constructor(
    private readonly db: Db,
    dataDir: string,
  ) {
    // A database kept in memory has no folder of its own; its recordings live until the OS
    // clears the temporary folder.
    this.root = dataDir === ":memory:" ? join(tmpdir(), `agentbar-media-${process.pid}`) : dataDir;
  }

  placeRecording(channelUuid: string, at = new Date()): RecordingPlace {
    const day = timestamp(at).slice(0, 10);
    const dirPath = join(this.root, "recordings", day);
    mkdirSync(dirPath, { recursive: true });
    const fileName = `${channelUuid}.wav`;
    const absPath = join(dirPath, fileName);
    return { absPath, relPath: relative(this.root, absPath), dirPath, fileName };
  }

  /** Adds the row of a recording that has just started (size and duration follow when it ends). */
  addRecording(
    channelUuid: string,
    place: RecordingPlace,
    owner: { userId: number | null; domain: string; name: string },
  ): number {
    const now = timestamp();
    const info = this.db
      .prepare(
        `INSERT INTO media_files (channel_uuid, type, name, description, ext, mime, abs_path, dir_path, rel_path,
           original_file_name, file_name, processing_flag, user_id, domain, sample_rate, channels, created_at, updated_at)
         VALUES (?, 'RECORD', ?, 'RECORD', 'wav', 'audio/wav', ?, ?, ?, ?, ?, 1, ?, ?, 48000, 2, ?, ?)`,
      )
      .run(
        channelUuid,
        owner.name,
        place.absPath,
        place.dirPath,
        place.relPath,
        place.fileName,
        place.fileName,
        owner.userId,
        owner.domain,
        now,
        now,
      );
    return Number(info.lastInsertRowid);
  }

  /** The recording is complete on disk. */
  completeRecording(id: number, durationMs: number): void {
    const row = this.byId(id);
    if (!row) return;
    let size = 0;
    try {
      size = statSync(row.abs_path).size;
    } catch {
      size = 0;
    }
    const seconds = Math.round(durationMs / 1000);
    this.db
      .prepare(
        "UPDATE media_files SET file_size = ?, duration = ?, bit_rate = ?, processing_flag = 0, updated_at = ? WHERE id = ?",
      )
      .run(size, seconds, 48000 * 2 * 16, timestamp(), id);
  }

  byId(id: number): MediaFileRow | undefined {
    return this.db.prepare("SELECT * FROM media_files WHERE id = ?").get(id) as MediaFileRow | undefined;
  }

  byChannel(uuid: string): MediaFileRow | undefined {
    return this.db.prepare("SELECT * FROM media_files WHERE channel_uuid = ? ORDER BY id LIMIT 1").get(uuid) as
      MediaFileRow | undefined;
  }

  /** Whether the user may read this file (see readable()). */
  isReadable(id: number, reader: MediaFileReader): boolean {
    const readable = this.readable(reader);
    return (
      this.db.prepare(`SELECT 1 FROM media_files WHERE id = ? AND ${readable.sql}`).get(id, ...readable.args) !==
      undefined
    );
  }

  list(q: MediaFileQuery): { rowCount: number; rows: MediaFileRow[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.uuid) {
      where.push("channel_uuid = ?");
      args.push(q.uuid);
    }
    if (q.types && q.types.length) {
      where.push(`type IN (${q.types.map(() => "?").join(", ")})`);
      args.push(...q.types);
    }
    if (q.reader) {
      const readable = this.readable(q.reader);
      where.push(readable.sql);
      args.push(...readable.args);
    }
    const whereSql = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const rowCount = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM media_files ${whereSql}`).get(...args) as { n: number }
    ).n;
    const rows = this.db
      .prepare(`SELECT * FROM media_files ${whereSql} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...args, q.perPage, (q.page - 1) * q.perPage) as MediaFileRow[];
    return { rowCount, rows };
  }

  /**
   * Files a user may read: those they own, and the recordings named by a call record they may
   * read (one of their extensions took part in the call), so that every party can play it.
   */
  private readable(reader: MediaFileReader): { sql: string; args: unknown[] } {
    const calls = extensionScope(reader.extensions);
    return {
      sql: `(user_id = ? OR id IN (SELECT media_file_id FROM cdrs WHERE media_file_id IS NOT NULL AND ${calls.sql}))`,
      args: [reader.userId, ...calls.args],
    };
  }

  /** Deletes the row and its file; the call records that named it keep their paths as history. */
  delete(id: number): boolean {
    const row = this.byId(id);
    if (!row) return false;
    this.db.prepare("DELETE FROM media_files WHERE id = ?").run(id);
    if (row.abs_path && row.abs_path.startsWith(this.root)) {
      rmSync(row.abs_path, { force: true });
      try {
        rmdirSync(dirname(row.abs_path));
      } catch {
        // The folder still holds other recordings.
      }
    }
    return true;
  }
}
