import { afterEach, describe, expect, it } from "vitest";
import { SessionState, type Web } from "sip.js";
import type { ExtensionNetwork } from "../../platform/sim/network-impairments";
import type { SimChannel } from "../../platform/sim/sim-channel";
import type { SipChannel } from "../../platform/sip/sip-channel";
import { sipFixture } from "./sip-fixture";
import { until, type TestCall } from "./sip-phone";

/**
 * The network between a phone and the platform made worse through /sim/network: each impairment
 * is proven where it lands, in what the receiving end's own WebRTC stack measured (packets lost,
 * jitter, round-trip time, packets received) and in what it hears.
 */
const f = sipFixture({ simNetwork: true });

afterEach(async () => {
  await f.sim("DELETE", "/sim/network/1001");
});

/** Reads until `ok` holds (every 100 ms), and gives the last reading. */
async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Inbound {
  packetsReceived: number;
  packetsLost: number;
  jitter: number;
}

function peerConnectionOf(session: TestCall["session"] | SipChannel["session"]): RTCPeerConnection {
  const pc = (session?.sessionDescriptionHandler as Web.SessionDescriptionHandler | undefined)?.peerConnection;
  if (!pc) throw new Error("the call has no peer connection");
  return pc;
}

async function inbound(pc: RTCPeerConnection): Promise<Inbound> {
  for (const s of (await pc.getStats()).values()) {
    if (s.type === "inbound-rtp" && s.kind === "audio")
      return { packetsReceived: s.packetsReceived ?? 0, packetsLost: s.packetsLost ?? 0, jitter: s.jitter ?? 0 };
  }
  return { packetsReceived: 0, packetsLost: 0, jitter: 0 };
}

/** The round-trip times of the media path, s, as the far end's RTCP receiver reports tell them:
 * the latest one and how many have been measured. */
async function roundTrip(pc: RTCPeerConnection): Promise<{ latest: number; count: number } | undefined> {
  for (const s of (await pc.getStats()).values()) {
    if (s.type === "remote-inbound-rtp" && s.kind === "audio" && s.roundTripTime !== undefined) {
      return { latest: s.roundTripTime, count: s.roundTripTimeMeasurements ?? 0 };
    }
  }
  return undefined;
}

/**
 * The shortest of the next `n` round trips measured. A moment in which the machine did not run
 * the platform's event loop (which carries the link) lengthens one measurement; it never shortens
 * one, so the shortest is the link's own delay.
 */
async function shortestRoundTrip(pc: RTCPeerConnection, n: number, atLeast = 0): Promise<number> {
  let seen = -1;
  let left = n;
  let shortest = Infinity;
  await eventually(
    `${n} round trips of at least ${atLeast} s are measured`,
    () => roundTrip(pc),
    (rtt) => {
      if (rtt === undefined || rtt.count === seen || rtt.latest < atLeast) return false;
      seen = rtt.count;
      shortest = Math.min(shortest, rtt.latest);
      return --left === 0;
    },
    30_000,
  );
  return shortest;
}

async function network(extension: string): Promise<ExtensionNetwork> {
  const res = await f.sim<ExtensionNetwork>("GET", `/sim/network/${extension}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Whether the simulated party hears alice's 440 Hz now (its detector reads within a few Hz). */
const hearsAlice = (sim: SimChannel) => sim.hearing.some((hz) => Math.abs(hz - 440) < 5);

/** Alice (1001, saying 440 Hz) in a call with a simulated party saying 700 Hz, audio both ways. */
async function callWithSimulatedParty() {
  const alice = await f.phone("1001", 440);
  const call = alice.call("55510700");
  await call.waitState(SessionState.Established);
  await call.waitHears(700, "alice hears the simulated party");
  // This call's legs (an earlier test's may still wait for their phone to come back).
  const platformLeg = f.ctx.switch.channels().find((c) => c.sipCallId === call.callId) as SipChannel;
  const sim = f.ctx.sim.get(f.ctx.switch.partnerOf(platformLeg)!.uuid)!;
  await until("the simulated party hears alice", () => hearsAlice(sim));
  return {
    alice,
    call,
    sim,
    phonePc: peerConnectionOf(call.session),
    platformPc: peerConnectionOf(platformLeg.session),
  };
}

describe("/sim/network: an extension's network", () => {
  it("carries a call's media through the link untouched while it is clean", async () => {
    const { call } = await callWithSimulatedParty();
    const net = await network("1001");
    expect(net).toMatchObject({
      extension: "1001",
      toPhone: { lossPercent: 0, delayMs: 0, jitterMs: 0, silence: false },
    });
    expect(net.legs).toHaveLength(1);
    const leg = net.legs[0]!;
    // Audio went both ways through the link, and nothing was dropped.
    expect(leg.toPhone.rtp).toBeGreaterThan(10);
    expect(leg.fromPhone.rtp).toBeGreaterThan(10);
    expect(leg.toPhone.lost + leg.toPhone.silenced + leg.fromPhone.lost + leg.fromPhone.silenced).toBe(0);
    await call.hangup();
    await until("the leg's link is gone with the call", () => f.ctx.switch.channels().length === 0);
    expect((await network("1001")).legs).toHaveLength(0);
  });

  it("loses the share of packets asked for, as the receiving phone counts them", async () => {
    const { phonePc } = await callWithSimulatedParty();
    const res = await f.sim<ExtensionNetwork>("PUT", "/sim/network/1001", { toPhone: { lossPercent: 20 } });
    expect(res.status).toBe(200);
    expect(res.body.toPhone.lossPercent).toBe(20);
    const before = await inbound(phonePc);
    const due = (s: Inbound) => s.packetsReceived + s.packetsLost - before.packetsReceived - before.packetsLost;
    // 400 packets (8 s of Opus): 20 % lost at random lands within 10-30 % all but once in millions.
    const now = await eventually(
      "400 more packets were due at the phone",
      () => inbound(phonePc),
      (s) => due(s) >= 400,
      20_000,
    );
    const lost = (now.packetsLost - before.packetsLost) / due(now);
    expect(lost).toBeGreaterThan(0.1);
    expect(lost).toBeLessThan(0.3);
  });

  it("delays packets both ways: the round trip grows by both delays", async () => {
    const { phonePc, platformPc } = await callWithSimulatedParty();
    // Each end measures the whole round trip through the link from its own RTCP reports, one
    // report every few seconds: the shortest of one measurement at each end is the shortest of
    // two, taken in the time of one.
    const shortestOfBothEnds = async (atLeast?: number) =>
      Math.min(
        ...(await Promise.all([shortestRoundTrip(phonePc, 1, atLeast), shortestRoundTrip(platformPc, 1, atLeast)])),
      );
    const clean = await shortestOfBothEnds();
    expect(clean).toBeLessThan(0.1);
    await f.sim("PUT", "/sim/network/1001", { toPhone: { delayMs: 150 }, fromPhone: { delayMs: 150 } });
    // Both delays: 300 ms more; one of them alone would stay below 0.3 s, both twice above 0.45.
    const delayed = await shortestOfBothEnds(0.3);
    expect(delayed).toBeLessThan(0.45);
  });

  it("jitters packets toward the phone: its jitter figure comes to about what was asked, and nothing is lost", async () => {
    const { phonePc, call } = await callWithSimulatedParty();
    const before = await inbound(phonePc);
    await f.sim("PUT", "/sim/network/1001", { toPhone: { jitterMs: 60 } });
    // libwebrtc's figure moves by a sixteenth of each change: it takes a second or two to get there.
    await eventually(
      "the phone's jitter reaches 80 % of 60 ms",
      () => inbound(phonePc),
      (s) => s.jitter >= 0.048,
      20_000,
    );
    // Then it stays about there, reading after reading (a machine busy elsewhere only adds to it).
    const readings: number[] = [];
    for (let i = 0; i < 10; i++) {
      readings.push((await inbound(phonePc)).jitter);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const mean = readings.reduce((a, b) => a + b, 0) / readings.length;
    expect(mean, JSON.stringify(readings)).toBeGreaterThan(0.048);
    expect(mean, JSON.stringify(readings)).toBeLessThan(0.09);
    // Jitter alone loses nothing: every packet comes (the lost count, up a moment while a burst's
    // late ones are on their way, is back where it was) and the phone still hears the party.
    await eventually(
      "the phone's lost count is back where it was",
      () => inbound(phonePc),
      (s) => s.packetsLost <= before.packetsLost && s.packetsReceived > before.packetsReceived + 100,
    );
    await call.waitHears(700, "alice still hears the party through the jitter");
  });

  it("silences one way only: the phone receives no audio packets and hears nothing, the party still hears it, and clearing brings the audio back", async () => {
    const { call, sim, phonePc } = await callWithSimulatedParty();
    await f.sim("PUT", "/sim/network/1001", { toPhone: { silence: true } });
    await call.waitSilentOn(700, "alice no longer hears the party");
    const stalled = (await inbound(phonePc)).packetsReceived;
    const silencedBefore = (await network("1001")).legs[0]!.toPhone.silenced;
    // A second of the platform's audio (50 packets) is dropped on the way: none reaches the phone.
    await eventually(
      "50 more packets were silenced",
      () => network("1001"),
      (n) => n.legs[0]!.toPhone.silenced >= silencedBefore + 50,
    );
    expect((await inbound(phonePc)).packetsReceived).toBe(stalled);
    expect(call.state).toBe(SessionState.Established);
    // What the party hears is read over its last moments, which a stall of the loop can cut.
    await until("the party still hears alice", () => hearsAlice(sim));

    await f.sim("DELETE", "/sim/network/1001");
    await call.waitHears(700, "alice hears the party again");
    expect((await inbound(phonePc)).packetsReceived).toBeGreaterThan(stalled);
  });

  it("silences the other way: the party hears nothing of the phone, whose own audio still arrives", async () => {
    const { call, sim, platformPc } = await callWithSimulatedParty();
    await f.sim("PUT", "/sim/network/1001", { fromPhone: { silence: true } });
    await until("the party no longer hears alice", () => !hearsAlice(sim));
    const stalled = (await inbound(platformPc)).packetsReceived;
    const silencedBefore = (await network("1001")).legs[0]!.fromPhone.silenced;
    await eventually(
      "50 more of alice's packets were silenced",
      () => network("1001"),
      (n) => n.legs[0]!.fromPhone.silenced >= silencedBefore + 50,
    );
    expect((await inbound(platformPc)).packetsReceived).toBe(stalled);
    await call.waitHears(700, "alice still hears the party");
  });

  it("refuses settings it cannot apply and extensions that do not exist, changing nothing", async () => {
    const bad = [
      { toPhone: { lossPercent: 101 } },
      { toPhone: { delayMs: -1 } },
      { toPhone: { jitterMs: 1.5 } },
      { toPhone: { volume: 3 } },
      { sideways: {} },
      { toPhone: { silence: "yes" } },
    ];
    for (const body of bad) {
      const res = await f.sim<{ text?: string }>("PUT", "/sim/network/1001", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await f.sim("PUT", "/sim/network/9999", { toPhone: { lossPercent: 5 } })).status).toBe(404);
    expect((await f.sim("GET", "/sim/network/9999")).status).toBe(404);
    const all = await f.sim<{ data: ExtensionNetwork[] }>("GET", "/sim/network");
    expect(all.body.data).toEqual([]);
  });
});
