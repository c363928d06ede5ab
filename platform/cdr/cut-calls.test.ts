import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseWav } from "../media/wav-reader";
import { wavHeader } from "../media/wav-format";
import { silentLog } from "../log";
import { openDatabase, timestamp, type Db } from "../store/db";
import { CdrStore, type NewCdr } from "./cdr-store";
import { CRASH_CAUSE, cutRecord, finishCutCalls } from "./cut-calls";
import { MediaFileStore } from "./media-files";

let dir: string;
let db: Db;
let cdrs: CdrStore;
let mediaFiles: MediaFileStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentbar-cut-"));
  db = openDatabase(dir).db;
  cdrs = new CdrStore(db);
  mediaFiles = new MediaFileStore(db, dir);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A leg's record as the journal keeps it while the leg is up. */
function liveRecord(uuid: string, o: Partial<NewCdr> = {}): NewCdr {
  return {
    uuid,
    bleg_uuid: "",
    other_uuid: "",
    caller_id_name: "Agent One",
    caller_id_number: "1001",
    destination_number: "1002",
    start_stamp: "2026-03-02 10:00:00",
    ring_stamp: "2026-03-02 10:00:01",
    answer_stamp: "2026-03-02 10:00:05",
    end_stamp: "2026-03-02 10:00:09",
    duration: 9,
    billsec: 4,
    account_code: "1001",
    hangup_cause: "NORMAL_CLEARING",
    sip_hangup_disposition: "",
    network_addr: "",
    network_port: "",
    context: "default",
    direction: "inbound",
    realm: "agentbar.local",
    external_tracking_id: "",
    caller_source: "sip",
    digits_dialed: "",
    sip_call_id: "abc",
    xui_route_ids: "",
    abs_path: "",
    rel_path: "",
    rtp_use_codec_name: "opus",
    xui_hangup_cause: "NORMAL_CLEARING",
    media_file_id: null,
    extn: "1001",
    user_id: null,
    variables: "{}",
    ...o,
  };
}

const journal = (record: NewCdr, seenAt: Date) =>
  db
    .prepare("INSERT INTO live_calls (uuid, record, seen_at) VALUES (?, ?, ?)")
    .run(record.uuid, JSON.stringify(record), seenAt.getTime());

describe("finishing what a crash cut off", () => {
  it("completes cut recordings and writes the records of the legs that were up, ended by the crash", async () => {
    const place = mediaFiles.placeRecording("leg-b", new Date(2026, 2, 2, 10, 0, 5));
    const fileId = mediaFiles.addRecording("leg-b", place, {
      userId: null,
      domain: "agentbar.local",
      name: "1001-1002.wav",
    });
    // Three seconds of audio and half a sample frame on disk, the header still saying nothing.
    writeFileSync(place.absPath, Buffer.concat([wavHeader(48000, 2, 0), Buffer.alloc(3 * 48000 * 4 + 2)]));
    const lastWrite = new Date(2026, 2, 2, 10, 0, 8, 600);
    utimesSync(place.absPath, lastWrite, lastWrite);
    const stamped = new Date(2026, 2, 2, 10, 0, 6);
    journal(liveRecord("leg-a", { media_file_id: fileId, direction: "inbound" }), stamped);
    journal(liveRecord("leg-b", { media_file_id: fileId, direction: "outbound", extn: "1002" }), stamped);
    // Ringing, never answered, no recording: ended when last stamped.
    journal(liveRecord("leg-c", { answer_stamp: "", destination_number: "1003" }), stamped);
    // Its own record was written just before the crash: it stands.
    cdrs.insert(liveRecord("leg-d"));
    journal(liveRecord("leg-d", { hangup_cause: "SHOULD_NOT_APPEAR" }), stamped);

    expect(await finishCutCalls(db, cdrs, mediaFiles, silentLog)).toEqual({ recordings: 1, records: 3 });

    const file = mediaFiles.byId(fileId)!;
    expect(file.processing_flag).toBe(0);
    expect(file.file_size).toBe(44 + 3 * 48000 * 4);
    expect(file.duration).toBe(3);
    const wav = parseWav(readFileSync(place.absPath));
    expect(wav.truncatedHeader).toBe(false);
    expect(wav.channels[0]).toHaveLength(3 * 48000);

    for (const uuid of ["leg-a", "leg-b"]) {
      expect(cdrs.byUuid(uuid)).toMatchObject({
        hangup_cause: CRASH_CAUSE,
        xui_hangup_cause: "platform stopped during the call",
        end_stamp: timestamp(lastWrite),
        duration: 9,
        billsec: 4,
        media_file_id: fileId,
      });
    }
    expect(cdrs.byUuid("leg-c")).toMatchObject({
      hangup_cause: CRASH_CAUSE,
      end_stamp: timestamp(stamped),
      duration: 6,
      billsec: 0,
    });
    expect(cdrs.byUuid("leg-d")!.hangup_cause).toBe("NORMAL_CLEARING");
    expect(db.prepare("SELECT COUNT(*) AS n FROM live_calls").get()).toEqual({ n: 0 });

    // A second start finds nothing left to do.
    expect(await finishCutCalls(db, cdrs, mediaFiles, silentLog)).toEqual({ recordings: 0, records: 0 });
  });

  it("never ends a record before it started or was answered", () => {
    const record = liveRecord("x", { start_stamp: "2026-03-02 10:00:00", answer_stamp: "2026-03-02 10:00:05" });
    const cut = cutRecord(record, new Date(2026, 2, 2, 9, 59, 0));
    expect(cut).toMatchObject({ end_stamp: "2026-03-02 10:00:05", duration: 5, billsec: 0, hangup_cause: CRASH_CAUSE });
  });
});
