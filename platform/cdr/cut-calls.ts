import { statSync } from "node:fs";
import { completeCutRecording } from "../media/call-recorder";
import type { Db } from "../store/db";
import { parseTimestamp, timestamp } from "../store/db";
import type { CdrStore, NewCdr } from "./cdr-store";
import type { MediaFileRow, MediaFileStore } from "./media-files";

/** The cause of a leg that was up when the platform stopped without hanging it up (FreeSWITCH's CRASH). */
export const CRASH_CAUSE = "CRASH";
export const CRASH_DETAIL = "platform stopped during the call";

/**
 * On start, finishes what a crash cut off (the platform killed, the machine lost power): every
 * recording still marked as being written gets its true length in its WAV header and its media
 * file row (from the bytes on disk), and every leg the call journal (platform/switch/
 * call-journal.ts) still holds gets its call record, ended with cause CRASH when it was last seen
 * up: its recording's last write, or the journal's last stamp.
 */
export async function finishCutCalls(
  db: Db,
  cdrs: CdrStore,
  mediaFiles: MediaFileStore,
  log: { warn(message: string): void },
): Promise<{ recordings: number; records: number }> {
  const lastAudio = new Map<number, number>();
  const cut = db
    .prepare("SELECT * FROM media_files WHERE type = 'RECORD' AND processing_flag = 1")
    .all() as MediaFileRow[];
  for (const row of cut) {
    // Only files of the platform's own folder are touched.
    if (!row.abs_path.startsWith(mediaFiles.root)) continue;
    try {
      lastAudio.set(row.id, statSync(row.abs_path).mtimeMs);
    } catch {
      // Nothing reached the disk: an empty recording is made below.
    }
    const { durationMs } = await completeCutRecording(row.abs_path);
    mediaFiles.completeRecording(row.id, durationMs);
  }

  const live = db.prepare("SELECT uuid, record, seen_at FROM live_calls").all() as {
    uuid: string;
    record: string;
    seen_at: number;
  }[];
  let records = 0;
  db.transaction(() => {
    for (const row of live) {
      // Killed between writing a leg's own record and forgetting it: that record stands.
      if (cdrs.byUuid(row.uuid)) continue;
      let record: NewCdr;
      try {
        record = JSON.parse(row.record) as NewCdr;
      } catch {
        log.warn(`the journal row of ${row.uuid} cannot be read; its call has no record`);
        continue;
      }
      const heard = record.media_file_id === null ? undefined : lastAudio.get(record.media_file_id);
      cdrs.insert(cutRecord(record, new Date(Math.max(row.seen_at, heard ?? 0))));
      records++;
    }
    db.prepare("DELETE FROM live_calls").run();
  })();
  if (cut.length || records)
    log.warn(`finished what a crash cut off: ${cut.length} recording(s), ${records} call record(s)`);
  return { recordings: cut.length, records };
}

/** The record of a leg as it was when last seen, ended then by a crash. */
export function cutRecord(record: NewCdr, lastSeen: Date): NewCdr {
  const start = parseTimestamp(record.start_stamp) ?? lastSeen;
  const answer = parseTimestamp(record.answer_stamp);
  const end = new Date(Math.max(lastSeen.getTime(), start.getTime(), answer?.getTime() ?? 0));
  const seconds = (from: Date) => Math.max(0, Math.round((end.getTime() - from.getTime()) / 1000));
  return {
    ...record,
    end_stamp: timestamp(end),
    duration: seconds(start),
    billsec: answer ? seconds(answer) : 0,
    hangup_cause: CRASH_CAUSE,
    xui_hangup_cause: CRASH_DETAIL,
  };
}
