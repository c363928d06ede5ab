import { afterEach, describe, expect, it, vi } from "vitest";
import type { CallQuality } from "./call-quality";
import { CallQualityMonitor, QualityWatchdog, type CallStatsTimeline, type WatchedCall } from "./quality-watchdog";
import { FakeSipServer, isResponse } from "./testing/fake-sip-server";
import { newTally, oneSecond, statsReport, type MediaTally } from "./testing/fake-stats";
import { startPeer } from "./testing/peer";
import { startPhone, untilCall } from "./testing/phone-rig";

/** A call whose media the test writes second by second, and what the watchdog did with it. */
class FakeCall implements WatchedCall {
  readonly id = "call-1";
  readonly remote = "sip:5550100@pbx.test";
  tally: MediaTally = { ...newTally(), rtt: 0.02 };
  isHeld = false;
  readonly published: CallQuality[] = [];
  restarts = 0;
  /** What the far end answers to the ICE restart. */
  restartAccepted = true;
  onRestart: () => void = () => {};

  statsSource() {
    return { getStats: () => Promise.resolve(statsReport(this.tally)) };
  }
  held() {
    return this.isHeld;
  }
  restartIce() {
    this.restarts++;
    this.onRestart();
    return Promise.resolve(this.restartAccepted);
  }
  publish(quality: CallQuality) {
    this.published.push(quality);
  }
  get latest(): CallQuality | undefined {
    return this.published.at(-1);
  }
}

function rig() {
  let now = 0;
  const call = new FakeCall();
  const timeline: CallStatsTimeline = { callId: call.id, remote: call.remote, startedAt: 0, dropped: 0, samples: [] };
  const watchdog = new QualityWatchdog(call, timeline, () => now);
  /** One second of media as given, then the watchdog's reading. */
  const second = async (options: Parameters<typeof oneSecond>[1] = {}) => {
    call.tally = oneSecond(call.tally, options);
    now += 1000;
    await watchdog.tick();
  };
  return { call, timeline, second };
}

describe("QualityWatchdog", () => {
  it("marks a clean call good, with its figures and no warning", async () => {
    const { call, second } = await rig();
    for (let i = 0; i < 10; i++) await second();
    expect(call.latest).toMatchObject({ mark: "good", rttMs: 20, jitterMs: 2, lossPercent: 0, warnings: [] });
    expect(call.latest?.mos).toBeGreaterThan(4.3);
    expect(call.latest?.oneWayAudio).toBeUndefined();
    expect(call.restarts).toBe(0);
  });

  it("turns the mark poor and warns about loss once 3 of 5 readings lose over 1 %", async () => {
    const { call, second } = await rig();
    await second();
    await second({ lost: 3 });
    await second({ lost: 3 });
    expect(call.latest).toMatchObject({ mark: "fair", warnings: [] });
    await second({ lost: 3 });
    expect(call.latest).toMatchObject({ mark: "poor", lossPercent: 6, warnings: ["loss"] });
    for (let i = 0; i < 5; i++) await second();
    expect(call.latest).toMatchObject({ mark: "good", warnings: [] });
  });

  it("names jitter, not loss, when jitter makes packets arrive late and out of order", async () => {
    // 100 ms of jitter, nothing dropped: at each reading a few packets are still on their way,
    // so the browser's lost count goes up and down again (the case that read as 3.8 % loss).
    const { call, second } = await rig();
    call.tally = { ...call.tally, jitter: 0.1 };
    for (const late of [3, 1, 3, 1, 4, 2, 3, 1, 3, 0]) await second({ late });
    expect(call.latest).toMatchObject({ mark: "poor", jitterMs: 100, lossPercent: 0, warnings: ["jitter"] });
    expect(call.published.some((q) => q.warnings.includes("loss"))).toBe(false);
  });

  it("publishes only what changed", async () => {
    const { call, second } = await rig();
    for (let i = 0; i < 6; i++) await second();
    expect(call.published).toHaveLength(1);
    call.tally = { ...call.tally, rtt: 0.03 };
    await second();
    await second();
    expect(call.published.map((q) => q.rttMs)).toEqual([20, 30]);
  });

  it("tries one ICE restart when the other side's audio stops, then tells that it is lost", async () => {
    const { call, second } = await rig();
    await second();
    await second();
    for (let i = 0; i < 3; i++) await second({ arriving: false });
    expect(call.restarts).toBe(1);
    expect(call.latest).toMatchObject({
      mark: "poor",
      oneWayAudio: { reason: "no-packets", state: "restarting", since: 2000 },
    });
    // The restart went through, but still nothing arrives: 3 s more, then the user is told.
    await second({ arriving: false });
    await second({ arriving: false });
    expect(call.latest?.oneWayAudio?.state).toBe("restarting");
    await second({ arriving: false });
    expect(call.latest).toMatchObject({ mark: "poor", oneWayAudio: { reason: "no-packets", state: "unresolved" } });
    expect(call.restarts).toBe(1);
    // The audio comes back by itself later: the warning goes.
    await second();
    expect(call.latest?.oneWayAudio).toBeUndefined();
  });

  it("clears the problem when the restart brings the audio back, and does not restart a second time", async () => {
    const { call, second } = await rig();
    await second();
    for (let i = 0; i < 3; i++) await second({ arriving: false });
    expect(call.restarts).toBe(1);
    await second();
    expect(call.latest?.oneWayAudio).toBeUndefined();
    expect(call.latest?.mark).not.toBe("poor");
    // Lost again later: said at once, no second restart.
    for (let i = 0; i < 3; i++) await second({ arriving: false });
    expect(call.restarts).toBe(1);
    expect(call.latest?.oneWayAudio?.state).toBe("unresolved");
  });

  it("tells at once when the far end refuses the restart", async () => {
    const { call, second } = await rig();
    call.restartAccepted = false;
    await second();
    for (let i = 0; i < 3; i++) await second({ arriving: false });
    await Promise.resolve();
    await second({ arriving: false });
    expect(call.latest?.oneWayAudio?.state).toBe("unresolved");
  });

  it("expects no audio on hold", async () => {
    const { call, second } = await rig();
    await second();
    call.isHeld = true;
    for (let i = 0; i < 10; i++) await second({ arriving: false });
    expect(call.restarts).toBe(0);
    expect(call.latest?.oneWayAudio).toBeUndefined();
  });

  it("keeps every reading in the call's timeline", async () => {
    const { timeline, second } = await rig();
    for (let i = 0; i < 4; i++) await second();
    expect(timeline.samples.map((s) => s.at)).toEqual([1000, 2000, 3000, 4000]);
    expect(timeline.samples[3]).toMatchObject({ packetsReceived: 200, rttMs: 20 });
  });
});

describe("CallQualityMonitor", () => {
  afterEach(() => vi.useRealTimers());

  it("reads every second while the call is watched, and keeps the timelines of the last 5 calls", async () => {
    vi.useFakeTimers();
    const monitor = new CallQualityMonitor(() => Date.now());
    const calls = Array.from({ length: 6 }, (_, i) => Object.assign(new FakeCall(), { id: `call-${i + 1}` }));
    const first = calls[0]!;
    const stop = monitor.watch(first);
    await vi.advanceTimersByTimeAsync(3000);
    expect(monitor.history()[0]?.samples).toHaveLength(3);
    stop();
    await vi.advanceTimersByTimeAsync(3000);
    expect(monitor.history()[0]?.samples).toHaveLength(3);
    expect(monitor.history()[0]?.endedAt).toBeTypeOf("number");
    for (const c of calls.slice(1)) monitor.watch(c)();
    expect(monitor.history().map((t) => t.callId)).toEqual(["call-2", "call-3", "call-4", "call-5", "call-6"]);
  });
});

describe("the phone's watchdog on its calls", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    vi.useRealTimers();
  });

  it("puts an answered call's quality in the store every second, and when its audio stops sends one ICE-restart re-INVITE before saying it is lost", async () => {
    // The readings' clock and interval are the test's; SIP's own timers run as usual.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    const alice = await startPhone(sw);
    cleanups.push(() => alice.phone.stop());
    const bob = await startPeer(sw, "2000");
    cleanups.push(() => bob.stop());
    const id = await alice.phone.call("2000");
    await (await bob.nextInvitation()).accept();
    await untilCall(alice.phone, id, (c) => c.state === "active");
    const sdh = alice.sdh(id);
    sdh.media = { ...newTally(), rtt: 0.03 };
    const second = async (options: Parameters<typeof oneSecond>[1] = {}) => {
      sdh.media = oneSecond(sdh.media!, options);
      await vi.advanceTimersByTimeAsync(1000);
    };
    // The watchdog's code comes with the first answered call; then a reading a second.
    for (let i = 0; i < 20 && !alice.call(id).quality; i++) await second();
    for (let i = 0; i < 3; i++) await second();
    expect(alice.call(id).quality).toMatchObject({ mark: "good", rttMs: 30, lossPercent: 0, warnings: [] });

    const offersBefore = sdh.offers.length;
    const wire = sw.mark();
    for (let i = 0; i < 3; i++) await second({ arriving: false });
    await untilCall(alice.phone, id, (c) => c.quality?.oneWayAudio?.state === "restarting");
    // The re-INVITE went out with new ICE credentials, and the far end took it.
    await sw.waitFor(
      (r) =>
        r.direction === "to-ua" &&
        r.user === "1001" &&
        isResponse(r, 200) &&
        /INVITE/.test(r.message.getHeader("cseq") ?? ""),
      wire,
    );
    expect(sdh.offers.slice(offersBefore).map((o) => o.options?.offerOptions?.iceRestart)).toEqual([true]);
    for (let i = 0; i < 4; i++) await second({ arriving: false });
    await untilCall(alice.phone, id, (c) => c.quality?.oneWayAudio?.state === "unresolved");
    expect(alice.call(id).quality?.mark).toBe("poor");
    expect(sdh.offers.length).toBe(offersBefore + 1);

    await alice.phone.hangup(id);
    await untilCall(alice.phone, id, (c) => c.state === "ended");
    const timeline = alice.phone.diagnosticReport().callStats.at(-1)!;
    expect(timeline).toMatchObject({ callId: id, remote: "sip:2000@pbx.test" });
    expect(timeline.samples.length).toBeGreaterThanOrEqual(10);
    expect(timeline.endedAt).toBeTypeOf("number");
  });
});
