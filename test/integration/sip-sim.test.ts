import { describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import type { SimChannel } from "../../platform/sim/sim-channel";
import { TestPlatform } from "./harness";
import { sipFixture } from "./sip-fixture";
import { until } from "./sip-phone";

/**
 * The simulated outside world: numbers that answer with a tone, are busy, never answer, reject
 * or echo; what a simulated party hears (tones, DTMF by both methods), read through /sim; and
 * simulated customers placed on extensions through /sim.
 */
const f = sipFixture({ ringTimeoutSeconds: 2 });

type Report = ReturnType<SimChannel["report"]>;

async function simOf(number: string): Promise<Report> {
  let found: Report | undefined;
  await until(`a simulated channel for ${number} exists`, () => {
    found = f.ctx.sim
      .list(true)
      .find((c) => c.destinationNumber === number || c.callerIdNumber === number)
      ?.report();
    return found !== undefined;
  });
  const res = await f.sim<Report>("GET", `/sim/channels/${found!.uuid}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function report(uuid: string): Promise<Report> {
  return (await f.sim<Report>("GET", `/sim/channels/${uuid}`)).body;
}

describe("numbers of the simulated world", () => {
  it("5551FFFF answers with FFFF Hz, hears the caller's tone and receives DTMF by SIP INFO and in band", async () => {
    const alice = await f.phone("1001", 440);
    const call = alice.call("55511000");
    await call.waitState(SessionState.Established);
    await call.waitHears(1000, "alice hears the simulated party's 1000 Hz");
    const sim = await simOf("55511000");
    expect(sim).toMatchObject({ direction: "outbound", behaviour: "answer", frequency: 1000, state: "answered" });
    await until("the simulated party hears alice's 440 Hz", () =>
      f.ctx.sim.get(sim.uuid)!.hearing.some((hz) => Math.abs(hz - 440) < 5),
    );

    await call.sendInfo("12");
    await call.sendInband("34");
    await until("the simulated party has all four digits", () => {
      const r = f.ctx.sim.get(sim.uuid)!.report();
      return r.digits.info === "12" && r.digits.inband === "34";
    });
    await call.hangup();
    const after = await report(sim.uuid);
    expect(after.state).toBe("hungup");
    expect(after.hangupCause).toBe("NORMAL_CLEARING");
    expect(after.dtmf.map((d) => `${d.digit}:${d.method}`)).toEqual(["1:info", "2:info", "3:inband", "4:inband"]);
    expect(after.heard.some((t) => Math.abs(t.frequency - 440) < 5)).toBe(true);
    const { a } = await f.legsOfCall(call.callId);
    expect(a.digits_dialed).toBe("1234");
  });

  it("5552xxxx is busy, 5554xxxx rejects, 5553xxxx never answers", async () => {
    const alice = await f.phone("1001", 440);
    const expectations = [
      { number: "55520001", status: 486, cause: "USER_BUSY" },
      { number: "55540001", status: 603, cause: "CALL_REJECTED" },
      { number: "55530001", status: 480, cause: "NO_ANSWER" },
    ];
    for (const e of expectations) {
      const call = alice.call(e.number);
      await call.waitEnded();
      expect(call.finalStatus, e.number).toBe(e.status);
      const { a, b } = await f.legsOfCall(call.callId);
      expect(a.hangup_cause, e.number).toBe(e.cause);
      expect(b.hangup_cause, e.number).toBe(e.cause);
      expect(b.caller_source).toBe("simulator");
    }
  });

  it("5555xxxx echoes and any other long number answers with 600 Hz", async () => {
    const alice = await f.phone("1001", 523);
    const echo = alice.call("55550001");
    await echo.waitState(SessionState.Established);
    await echo.waitHears(523, "alice hears her own tone back");
    await echo.hangup();
    const other = alice.call("02087654321");
    await other.waitState(SessionState.Established);
    await other.waitHears(600, "alice hears the default party's 600 Hz");
    await other.hangup();
  });
});

describe("/sim", () => {
  it("places a simulated customer's call on an extension with its number, name and tone, and hangs it up", async () => {
    const bob = await f.phone("1002", 1000);
    const placed = await f.sim<Report>("POST", "/sim/calls", {
      destination: "1002",
      callerIdNumber: "+15551234567",
      callerIdName: "Jane Customer",
      frequency: 660,
    });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({
      direction: "inbound",
      callerIdNumber: "+15551234567",
      destinationNumber: "1002",
      frequency: 660,
    });
    const ringing = await bob.incoming();
    expect(ringing.header("from")).toMatch(/^"Jane Customer" <sip:\+15551234567@agentbar\.local>/);
    await ringing.answer();
    await ringing.waitHears(660, "bob hears the customer");
    await until("the customer hears bob", () =>
      f.ctx.sim.get(placed.body.uuid)!.hearing.some((hz) => Math.abs(hz - 1000) < 8),
    );
    const listed = await f.sim<{ data: Report[] }>("GET", "/sim/channels");
    expect(listed.body.data.map((c) => c.uuid)).toContain(placed.body.uuid);

    // The customer sends digits both ways; the phone gets INFO for one and hears the other.
    await f.sim("POST", `/sim/channels/${placed.body.uuid}/dtmf`, { digits: "5", method: "info" });
    await until("bob receives the INFO digit", () => ringing.infos.some((b) => /Signal=5/.test(b)));
    await f.sim("POST", `/sim/channels/${placed.body.uuid}/dtmf`, { digits: "9" });
    await until("bob hears the in-band digit", () => ringing.dtmfEars!.digits.includes("9"));

    const hung = await f.sim<Report>("POST", `/sim/channels/${placed.body.uuid}/hangup`);
    expect(hung.status).toBe(200);
    await ringing.waitEnded();
    expect(ringing.endedBy).toBe("bye");
    const cdr = await f.cdr(placed.body.uuid);
    expect(cdr).toMatchObject({
      direction: "inbound",
      context: "public",
      caller_id_number: "+15551234567",
      caller_id_name: "Jane Customer",
      destination_number: "1002",
      hangup_cause: "NORMAL_CLEARING",
      sip_hangup_disposition: "recv_bye",
    });
  });

  it("validates its requests and names unknown channels", async () => {
    const missing = await f.sim<{ code: number; text: string }>("POST", "/sim/calls", { callerIdNumber: "123" });
    expect(missing.status).toBe(400);
    expect(missing.body.text).toBe("missing required field 'destination'");
    const badTone = await f.sim<{ text: string }>("POST", "/sim/calls", { destination: "1002", frequency: "loud" });
    expect(badTone.status).toBe(400);
    expect(badTone.body.text).toBe("field 'frequency' must be integer");
    const unknown = await f.sim<{ code: number }>("GET", "/sim/channels/nope");
    expect(unknown.status).toBe(404);
  });

  it("is not served when the platform is started with simApi off", async () => {
    const closed = await TestPlatform.start({ simApi: "off" });
    try {
      const res = await closed.call("POST", "/sim/calls", { body: { destination: "1002" } });
      expect(res.status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});
