import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { parseWav } from "../../platform/media";
import { timestamp } from "../../platform/store/db";
import type { ChannelBase } from "../../platform/switch/channel";
import { sipFixture, tonesIn, type CdrJson } from "./sip-fixture";
import { until } from "./sip-phone";

/**
 * Call records and recordings through the REST API: the spec's fields, filters and paging of
 * /api/cdrs, related records, and recordings as RECORD media files that can be downloaded and
 * played (both sides of the call, each on its own channel).
 */
const f = sipFixture();

interface Paged<T> {
  rowCount: number;
  page: number;
  pageCount: number;
  data: T[];
}

interface MediaFileJson {
  id: string;
  channel_uuid: string;
  type: string;
  ext: string;
  mime: string;
  file_size: number;
  duration: number;
  rel_path: string;
  abs_path: string;
  sample_rate: number;
  channels: number;
}

/** Waits until the recording of the call with this SIP Call-ID holds `seconds` of audio on disk. */
async function recordedSeconds(sipCallId: string, seconds: number): Promise<void> {
  // The recorded leg is the call's own or the leg the platform placed for it (its b-leg).
  const path = () => {
    const channels = f.ctx.switch.channels() as ChannelBase[];
    const leg = channels.find((c) => c.sipCallId === sipCallId);
    return leg?.recording?.absPath ?? channels.find((c) => c.uuid === leg?.bLegUuid)?.recording?.absPath;
  };
  const bytes = 44 + seconds * 48000 * 4;
  await until(`${seconds} s of the call are recorded`, () => {
    const p = path();
    return !!p && existsSync(p) && statSync(p).size >= bytes;
  });
}

describe("recordings", () => {
  it("records calls of an extension with auto_record into a playable stereo WAV media file", async () => {
    f.platform.db.prepare("UPDATE extensions SET auto_record = 1 WHERE extn = '1002'").run();
    try {
      const alice = await f.phone("1001", 440);
      const bob = await f.phone("1002", 1000);
      const call = alice.call("1002");
      const ringing = await bob.incoming();
      await ringing.answer();
      await call.waitState(SessionState.Established);
      await call.waitHears(1000);
      await ringing.waitHears(440);
      await recordedSeconds(call.callId, 1.5);
      await call.hangup();
      const { a, b } = await f.legsOfCall(call.callId);

      expect(b.media_file_id).not.toBe("");
      expect(b.rel_path).toBe(`recordings/${b.start_stamp.slice(0, 10)}/${b.uuid}.wav`);
      expect(b.abs_path.endsWith(b.rel_path)).toBe(true);
      expect(a.media_file_id).toBe(b.media_file_id);

      await until("the recording is complete", () => {
        const row = f.ctx.mediaFiles.byId(Number(b.media_file_id));
        return row !== undefined && row.processing_flag === 0;
      });
      const listed = await f.get<Paged<MediaFileJson>>(`/api/media_files?uuid=${b.uuid}&type=RECORD`);
      expect(listed.status).toBe(200);
      expect(listed.body.rowCount).toBe(1);
      const file = listed.body.data[0];
      expect(file).toMatchObject({
        id: b.media_file_id,
        channel_uuid: b.uuid,
        type: "RECORD",
        ext: "wav",
        mime: "audio/wav",
        sample_rate: 48000,
        channels: 2,
      });
      expect(file!.duration).toBeGreaterThanOrEqual(1);
      expect((await f.get<MediaFileJson>(`/api/media_files/${file!.id}`)).body.id).toBe(file!.id);

      const download = (token: string) =>
        fetch(`${f.platform.url}/api/media_files/${file!.id}.wav`, { headers: { "X-XTRA-AUTH-ID": token } });
      const res = await download(await f.platform.token("admin"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("audio/wav");
      const bytes = Buffer.from(await res.arrayBuffer());
      const wav = parseWav(bytes);
      expect(wav.sampleRate).toBe(48000);
      expect(wav.channels).toHaveLength(2);
      expect(wav.truncatedHeader).toBe(false);
      expect(wav.channels[0]!.length / 48000).toBeGreaterThanOrEqual(1.5);
      // Left: what bob said; right: what bob heard. Read a second well inside the call.
      const end = wav.channels[0]!.length / 48000;
      expect(tonesIn(wav.channels[0]!, end - 1.2)).toContainEqual(expect.closeTo(1000, 0));
      expect(tonesIn(wav.channels[1]!, end - 1.2)).toContainEqual(expect.closeTo(440, 0));
      expect(file!.file_size).toBe(44 + wav.channels[0]!.length * 4);

      // The owner (bob, whose extension records) and the other party (alice) read the recording;
      // someone who was not in the call does not.
      const agent2 = await f.platform.token("agent2");
      const own = await f.platform.call<Paged<MediaFileJson>>("GET", "/api/media_files?type=RECORD", { token: agent2 });
      expect(own.body.data.map((m) => m.id)).toContain(file!.id);
      const agent1 = await f.platform.token("agent1");
      const theirs = await f.platform.call<Paged<MediaFileJson>>("GET", "/api/media_files?type=RECORD", {
        token: agent1,
      });
      expect(theirs.body.data.map((m) => m.id)).toContain(file!.id);
      expect(
        (await f.platform.call<MediaFileJson>("GET", `/api/media_files/${a.media_file_id}`, { token: agent1 })).body.id,
      ).toBe(file!.id);
      const played = await download(agent1);
      expect(played.status).toBe(200);
      expect(played.headers.get("content-type")).toBe("audio/wav");
      expect(Buffer.from(await played.arrayBuffer()).equals(bytes)).toBe(true);
      const agent4 = await f.platform.token("agent4");
      expect((await f.platform.call("GET", `/api/media_files/${file!.id}`, { token: agent4 })).status).toBe(404);
      expect((await download(agent4)).status).toBe(404);
      expect(
        (
          await f.platform.call<Paged<MediaFileJson>>("GET", "/api/media_files?type=RECORD", { token: agent4 })
        ).body.data.map((m) => m.id),
      ).not.toContain(file!.id);
      // Only the owner or an administrator deletes it: the other party is refused and it stays.
      const refused = await f.platform.call<{ text: string }>("DELETE", `/api/media_files/${file!.id}`, {
        token: agent1,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.text).toMatch(/^no permission/);
      expect((await f.get(`/api/media_files/${file!.id}`)).status).toBe(200);

      const deleted = await f.platform.call<{ code: number; data: string }>("DELETE", `/api/media_files/${file!.id}`, {
        token: await f.platform.token("admin"),
      });
      expect(deleted.body).toEqual({ code: 200, message: "success", data: file!.id });
      expect((await f.get(`/api/media_files/${file!.id}`)).status).toBe(404);
    } finally {
      f.platform.db.prepare("UPDATE extensions SET auto_record = 0 WHERE extn = '1002'").run();
    }
  });

  it("records a call when asked through the switch", async () => {
    const alice = await f.phone("1001", 440);
    const call = alice.call("55510700");
    await call.waitState(SessionState.Established);
    await call.waitHears(700);
    const leg = f.ctx.switch.channels().find((c) => c.sipCallId === call.callId)!;
    f.ctx.switch.record(leg);
    await recordedSeconds(call.callId, 1.2);
    await call.hangup();
    const cdr = await f.cdr(leg.uuid);
    expect(cdr.media_file_id).not.toBe("");
    await until(
      "the recording is complete",
      () => f.ctx.mediaFiles.byId(Number(cdr.media_file_id))?.processing_flag === 0,
    );
    const file = f.ctx.mediaFiles.byId(Number(cdr.media_file_id))!;
    expect(file.type).toBe("RECORD");
    expect(file.file_size).toBeGreaterThan(44 + 48000 * 4);
  });
});

describe("/api/cdrs", () => {
  it("filters by caller, destination, billed seconds and dates, pages, counts and links related records", async () => {
    const alice = await f.phone("1001", 440);
    // Two short failed calls and one answered call of alice's, one answered call of bob's.
    for (const number of ["55520011", "55540011"]) {
      const failed = alice.call(number);
      await failed.waitEnded();
    }
    const answered = alice.call("55510800");
    await answered.waitState(SessionState.Established);
    // Billed for at least a second by the switch's own reckoning.
    const answeredLeg = f.ctx.switch.channels().find((c) => c.sipCallId === answered.callId)!;
    await until(
      "the call has lasted over a second",
      () => !!answeredLeg.answeredAt && Date.now() - answeredLeg.answeredAt.getTime() > 1100,
    );
    await answered.hangup();
    const bob = await f.phone("1002", 1000);
    const bobs = bob.call("55510900");
    await bobs.waitState(SessionState.Established);
    await bobs.hangup();
    const { a, b } = await f.legsOfCall(answered.callId);
    await f.legsOfCall(bobs.callId);

    const list = async (query: string) => (await f.get<Paged<CdrJson>>(`/api/cdrs?${query}`)).body;
    const byDest = await list("destNumber=55510800");
    expect(byDest.data.map((r) => r.uuid).sort()).toEqual([a.uuid, b.uuid].sort());
    expect(byDest.rowCount).toBe(2);
    expect((await list("cidNumber=1002")).data.every((r) => r.caller_id_number === "1002")).toBe(true);
    const billed = await list("cidNumber=1001&startBillsec=1&perPage=1000");
    expect(billed.data.map((r) => r.uuid)).toEqual(expect.arrayContaining([a.uuid, b.uuid]));
    expect(billed.data.every((r) => r.billsec >= 1)).toBe(true);
    expect((await list("destNumber=55510800&endBillsec=0")).rowCount).toBe(0);
    expect((await list("cidNumber=1001&endBillsec=0")).data.every((r) => r.billsec === 0)).toBe(true);
    const inContext = await list(`contextValue=${a.context}&perPage=1000`);
    expect(inContext.data.map((r) => r.uuid)).toContain(a.uuid);
    expect(inContext.data.every((r) => r.context === a.context)).toBe(true);
    expect((await list("contextValue=no-such-context")).rowCount).toBe(0);

    const today = timestamp().slice(0, 10);
    const all = await list(`startDate=${today}&endDate=${today}&perPage=1000`);
    expect(all.rowCount).toBeGreaterThanOrEqual(8);
    expect((await list(`dateType=end_stamp&startDate=${today}&endDate=${today}&perPage=1000`)).rowCount).toBe(
      all.rowCount,
    );
    expect((await list("startDate=2001-01-01&endDate=2001-01-31")).rowCount).toBe(0);
    expect((await list("last=1&perPage=1000")).rowCount).toBe(all.rowCount);

    const page = await list("perPage=3&page=2");
    expect(page).toMatchObject({ page: 2, pageCount: Math.ceil(all.rowCount / 3) });
    expect(page.data).toHaveLength(3);
    // Newest first.
    const first = await list("perPage=1");
    expect(first.data[0]!.start_stamp >= page.data[0]!.start_stamp).toBe(true);

    expect((await f.get<{ count: number }>("/api/cdrs/total")).body.count).toBe(all.rowCount);
    const records = (await f.get<{ total: number; data: CdrJson[] }>("/api/cdrs/records?perPage=2")).body;
    expect(records.total).toBe(all.rowCount);
    expect(records.data).toHaveLength(2);

    expect((await f.get(`/api/cdrs/${a.uuid}/related_cdrs`)).body).toEqual([{ type: "channel", uuid: b.uuid }]);
    expect((await f.get(`/api/cdrs/${b.uuid}/related_cdrs`)).body).toEqual([{ type: "channel", uuid: a.uuid }]);
    expect((await f.get("/api/cdrs/no-such-call")).status).toBe(404);

    const bad = await f.get<{ text: string }>("/api/cdrs?startDate=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.text).toBe("field 'startDate' in query has an invalid format");

    // An agent reads only the records of their own extension.
    const agent2 = await f.platform.token("agent2");
    const mine = await f.platform.call<Paged<CdrJson>>("GET", "/api/cdrs?perPage=1000", { token: agent2 });
    expect(mine.body.rowCount).toBeGreaterThanOrEqual(2);
    expect(mine.body.rowCount).toBeLessThan(all.rowCount);
    expect(mine.body.data.every((r) => [r.caller_id_number, r.destination_number, r.extn].includes("1002"))).toBe(true);
    expect((await f.platform.call("GET", `/api/cdrs/${a.uuid}`, { token: agent2 })).status).toBe(404);
  });
});
