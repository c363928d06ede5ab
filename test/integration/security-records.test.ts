import { describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import type { SimChannel } from "../../platform/sim/sim-channel";
import { sipFixture, type CdrJson } from "./sip-fixture";
import { until } from "./sip-phone";

/**
 * Call records and recordings are visible by the legs a user really had, not by the numbers a
 * call presented: a caller who presents agent2's number when calling agent1 does not make agent1's
 * call and its recording readable by agent2.
 */
const f = sipFixture();

interface Paged<T> {
  rowCount: number;
  data: T[];
}

type Report = ReturnType<SimChannel["report"]>;

describe("a caller presenting another extension's number", () => {
  it("leaves the call record and the recording to the extensions that took part", async () => {
    f.platform.db.prepare("UPDATE extensions SET auto_record = 1 WHERE extn = '1001'").run();
    try {
      const alice = await f.phone("1001", 440);
      // From outside, presenting 1002 (agent2's extension) as the caller's number.
      const spoofed = await f.sim<Report>("POST", "/sim/calls", {
        destination: "1001",
        callerIdNumber: "1002",
        callerIdName: "Bob Agent",
        frequency: 660,
      });
      expect(spoofed.status).toBe(200);
      const ringing = await alice.incoming();
      await ringing.answer();
      await ringing.waitState(SessionState.Established);
      await ringing.waitHears(660);
      const leg = f.ctx.switch.channels().find((c) => c.extension === "1001")!;
      await until("a second is on record", () => {
        const answeredAt = f.ctx.switch.channel(leg.uuid)?.answeredAt;
        return answeredAt !== undefined && Date.now() - answeredAt.getTime() > 1000;
      });
      await ringing.hangup();
      const agentLeg = await f.cdr(leg.uuid);
      const callerLeg = await f.cdr(spoofed.body.uuid);
      expect(agentLeg.caller_id_number).toBe("1002");
      expect(callerLeg.caller_id_number).toBe("1002");
      expect(agentLeg.media_file_id).not.toBe("");
      await until(
        "the recording is complete",
        () => f.ctx.mediaFiles.byId(Number(agentLeg.media_file_id))?.processing_flag === 0,
      );

      const as = async (login: string) => {
        const token = await f.platform.token(login);
        const get = <T>(path: string) => f.platform.call<T>("GET", path, { token });
        const cdrs = (await get<Paged<CdrJson>>("/api/cdrs?perPage=1000")).body.data.map((r) => r.uuid);
        const records = (await get<{ data: CdrJson[] }>("/api/cdrs/records?perPage=1000")).body.data.map((r) => r.uuid);
        const files = (await get<Paged<{ id: string }>>("/api/media_files?type=RECORD")).body.data.map((m) => m.id);
        return {
          cdrs,
          records,
          files,
          total: (await get<{ count: number }>("/api/cdrs/total")).body.count,
          one: (await get(`/api/cdrs/${agentLeg.uuid}`)).status,
          related: (await get(`/api/cdrs/${callerLeg.uuid}/related_cdrs`)).status,
          file: (await get(`/api/media_files/${agentLeg.media_file_id}`)).status,
          byChannel: (await get(`/api/media_files/uuid/${agentLeg.uuid}`)).status,
          ...(await download(`${f.platform.url}/api/media_files/${agentLeg.media_file_id}.wav`, token)),
        };
      };

      const bob = await as("agent2");
      expect(bob.cdrs).not.toContain(agentLeg.uuid);
      expect(bob.cdrs).not.toContain(callerLeg.uuid);
      expect(bob.records).not.toContain(agentLeg.uuid);
      expect(bob.total).toBe(0);
      expect(bob.files).not.toContain(agentLeg.media_file_id);
      expect([bob.one, bob.related, bob.file, bob.byChannel, bob.download]).toEqual([404, 404, 404, 404, 404]);

      // Alice took the call: both legs and the recording are hers to read.
      const alices = await as("agent1");
      expect(alices.cdrs).toEqual(expect.arrayContaining([agentLeg.uuid, callerLeg.uuid]));
      expect(alices.files).toContain(agentLeg.media_file_id);
      expect([alices.one, alices.related, alices.file, alices.byChannel, alices.download]).toEqual([
        200, 200, 200, 200, 200,
      ]);
      expect(alices.downloaded).toBe("RIFF");
    } finally {
      f.platform.db.prepare("UPDATE extensions SET auto_record = 0 WHERE extn = '1001'").run();
    }
  });
});

/** Downloads a file whole (a body left unread holds its connection open) and names its first four bytes. */
async function download(url: string, token: string): Promise<{ download: number; downloaded: string }> {
  const res = await fetch(url, { headers: { "X-XTRA-AUTH-ID": token } });
  const body = Buffer.from(await res.arrayBuffer());
  return { download: res.status, downloaded: body.subarray(0, 4).toString("latin1") };
}
