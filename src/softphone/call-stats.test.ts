import { describe, expect, it } from "vitest";
import { sampleCallStats, sampleFromReport } from "./call-stats";
import { estimateMos } from "./mos";
import { newTally, oneSecond, statsReport } from "./testing/fake-stats";

describe("sampleFromReport", () => {
  it("reads the counters, round trip, jitter and codec of the first reading, with no interval figures yet", () => {
    const t = { ...oneSecond(newTally()), rtt: 0.12, jitter: 0.015 };
    const s = sampleFromReport(statsReport(t), undefined, 1000);
    expect(s).toEqual({
      at: 1000,
      packetsReceived: 50,
      packetsLost: 0,
      bytesReceived: 4000,
      packetsSent: 50,
      bytesSent: 4000,
      rttMs: 120,
      jitterMs: 15,
      sentLossPercent: 0,
      lossPercent: 0,
      mos: estimateMos({ rttMs: 120, jitterMs: 15, lossPercent: 0 }),
      codec: "opus",
    });
  });

  it("counts the loss of the interval only, and takes the worse of the two directions", () => {
    const a = oneSecond(newTally(), { lost: 10 });
    const first = sampleFromReport(statsReport(a), undefined, 1000);
    const b = oneSecond(a, { lost: 2 });
    const second = sampleFromReport(statsReport({ ...b, rtt: 0.02, fractionLost: 0.01 }), first, 2000);
    expect(second.receivedLossPercent).toBeCloseTo(4, 6);
    expect(second.sentLossPercent).toBeCloseTo(1, 6);
    expect(second.lossPercent).toBeCloseTo(4, 6);
    const c = oneSecond(b);
    const third = sampleFromReport(statsReport({ ...c, rtt: 0.02, fractionLost: 0.06 }), second, 3000);
    expect(third.receivedLossPercent).toBe(0);
    expect(third.lossPercent).toBeCloseTo(6, 6);
  });

  it("counts no loss for packets that arrive late: the lost count falls again, and only a rise above its highest is loss", () => {
    // Jitter reorders packets: at each reading a few due ones are still on their way, counted
    // lost until they come (the count goes 0, 3, 1, 4, 2...). None is lost.
    let t = oneSecond(newTally());
    let s = sampleFromReport(statsReport(t), undefined, 1000);
    const readings: Array<number | undefined> = [];
    for (const late of [3, 1, 3, 2, 0, 3, 1]) {
      t = oneSecond(t, { late });
      s = sampleFromReport(statsReport(t), s, s.at + 1000);
      readings.push(s.receivedLossPercent);
    }
    expect(t.packetsLost).toBe(1);
    // The first rise is taken for loss before it is taken back (nothing can tell yet); then none.
    expect(readings).toEqual([6, 0, 0, 0, 0, 0, 0]);
    // Real loss on top: 4 lost, counted from the highest count read (3), not from the last one
    // (1); so 2 of the 48 packets the interval accounts for (46 received), a little under.
    t = oneSecond(t, { lost: 4, late: 1 });
    s = sampleFromReport(statsReport(t), s, s.at + 1000);
    expect(t.packetsLost).toBe(5);
    expect(s.receivedLossPercent).toBeCloseTo((2 / 48) * 100, 6);
  });

  it("has no loss figure for an interval in which nothing was due (a held call)", () => {
    const a = oneSecond(newTally());
    const first = sampleFromReport(statsReport(a), undefined, 1000);
    const held = sampleFromReport(statsReport(oneSecond(a, { arriving: false })), first, 2000);
    expect(held.receivedLossPercent).toBeUndefined();
    expect(held.lossPercent).toBeUndefined();
    expect(held.mos).toBeUndefined();
  });

  it("takes the round trip from the ICE checks of the selected pair when RTCP has not told it", () => {
    const s = sampleFromReport(statsReport({ ...oneSecond(newTally()), pairRtt: 0.045 }), undefined, 1000);
    expect(s.rttMs).toBeCloseTo(45, 6);
  });

  it("gives the mean levels of the interval from the energy totals", () => {
    const a = oneSecond(newTally(), { receivedLevel: 0.5, sentLevel: 0.5 });
    const first = sampleFromReport(statsReport(a), undefined, 1000);
    const b = oneSecond(a, { receivedLevel: 0.2, sentLevel: 0.0001 });
    const second = sampleFromReport(statsReport(b), first, 2000, 0.3);
    expect(second.receivedLevel).toBeCloseTo(0.2, 6);
    expect(second.sentLevel).toBeCloseTo(0.0001, 6);
    expect(second.remoteSentLevel).toBe(0.3);
  });

  it("reads a peer connection, with the far end's own level from its receiver when the browser gives it", async () => {
    const report = statsReport(oneSecond(newTally()));
    const pc = {
      getStats: () => Promise.resolve(report),
      getReceivers: () => [{ track: { kind: "audio" }, getSynchronizationSources: () => [{ audioLevel: 0.25 }] }],
    };
    const s = await sampleCallStats(pc, undefined, 5);
    expect(s.remoteSentLevel).toBe(0.25);
    expect(s.packetsReceived).toBe(50);
  });
});
