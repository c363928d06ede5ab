import { describe, expect, it } from "vitest";
import type { CallStatsSample } from "./call-stats";
import { qualityMark, QualityRules, type QualityIssue } from "./quality-rules";

let clock = 0;
function sample(figures: Partial<CallStatsSample> = {}): CallStatsSample {
  clock += 1000;
  return {
    at: clock,
    packetsReceived: 0,
    packetsLost: 0,
    bytesReceived: 0,
    packetsSent: 0,
    bytesSent: 0,
    rttMs: 20,
    jitterMs: 2,
    lossPercent: 0,
    mos: 4.4,
    ...figures,
  };
}

/** Feeds readings one by one; returns the warnings after each. */
function run(readings: Array<Partial<CallStatsSample>>): QualityIssue[][] {
  const rules = new QualityRules();
  return readings.map((r) => rules.add(sample(r)));
}

const bad = {
  rtt: { rttMs: 450 },
  jitter: { jitterMs: 35 },
  loss: { lossPercent: 2 },
  mos: { mos: 3.4 },
} satisfies Record<QualityIssue, Partial<CallStatsSample>>;

describe("the warning rules", () => {
  for (const issue of ["rtt", "jitter", "loss", "mos"] as const) {
    it(`warns about ${issue} when 3 of the last 5 readings cross its threshold, not 2`, () => {
      const ok = {};
      const two = run([bad[issue], ok, ok, bad[issue], ok]);
      expect(two.every((w) => w.length === 0)).toBe(true);
      const three = run([bad[issue], ok, bad[issue], ok, bad[issue]]);
      expect(three.at(-1)).toEqual([issue]);
      expect(three.slice(0, 4).every((w) => w.length === 0)).toBe(true);
    });
  }

  it("treats the thresholds as strict: 400 ms, 30 ms, 1 % and MOS 3.5 themselves are fine", () => {
    const edge = { rttMs: 400, jitterMs: 30, lossPercent: 1, mos: 3.5 };
    expect(run([edge, edge, edge, edge, edge]).at(-1)).toEqual([]);
  });

  it("keeps a warning while any of the last 5 readings crosses, and clears it once none does", () => {
    const ok = {};
    const w = run([bad.loss, bad.loss, bad.loss, ok, ok, ok, ok, bad.loss, ok, ok, ok, ok, ok]);
    expect(w[2]).toEqual(["loss"]);
    // One bad reading among the last five holds it...
    expect(w.slice(3, 12).every((x) => x.includes("loss"))).toBe(true);
    // ...and five good ones in a row clear it.
    expect(w[12]).toEqual([]);
  });

  it("warns about loss averaging over 3 % across 7 readings even when fewer than 3 of 5 cross 1 %", () => {
    const ok = { lossPercent: 0 };
    const burst = { lossPercent: 12 };
    // 24 % over 7 readings (3.4 % on average), with only two readings over 1 %.
    const w = run([ok, ok, ok, ok, burst, ok, burst]);
    expect(w.slice(0, 6).every((x) => x.length === 0)).toBe(true);
    expect(w[6]).toEqual(["loss"]);
    // Under 3 % on average, with two crossing readings: no warning.
    expect(run([ok, ok, ok, ok, { lossPercent: 10 }, ok, { lossPercent: 10 }]).at(-1)).toEqual([]);
  });

  it("names every issue at once, in a fixed order", () => {
    const all = { rttMs: 800, jitterMs: 60, lossPercent: 8, mos: 2.5 };
    expect(run([all, all, all]).at(-1)).toEqual(["loss", "jitter", "rtt", "mos"]);
  });

  it("does not count readings without a figure (nothing received, no report yet) as crossing", () => {
    const none = { rttMs: undefined, jitterMs: undefined, lossPercent: undefined, mos: undefined };
    expect(run([none, none, none, none, none, none, none]).at(-1)).toEqual([]);
  });
});

describe("the quality mark", () => {
  it("is poor with a warning, fair when figures are not good yet, good otherwise", () => {
    expect(qualityMark(true, sample(), false)).toBe("poor");
    expect(qualityMark(false, sample({ mos: 3.9 }), false)).toBe("fair");
    expect(qualityMark(false, sample(), true)).toBe("fair");
    expect(qualityMark(false, sample({ mos: 4.2 }), false)).toBe("good");
    expect(qualityMark(false, sample({ mos: undefined }), false)).toBe("good");
  });
});
