import { describe, expect, it } from "vitest";
import { delayImpairment, estimateMos, G107_DEFAULT_R, lossImpairment, rFactor, rFactorToMos } from "./mos";

describe("ITU-T G.107: R to MOS", () => {
  it("gives the MOS of Table B.1's user-satisfaction bounds", () => {
    // G.107 (06/2015) Table B.1: R 90 / 80 / 70 / 60 / 50 ↔ MOS 4.34 / 4.03 / 3.60 / 3.10 / 2.58.
    const table: Array<[number, number]> = [
      [90, 4.34],
      [80, 4.03],
      [70, 3.6],
      [60, 3.1],
      [50, 2.58],
    ];
    // The table rounds to two places (R 80 computes to 4.024 and is printed 4.03).
    for (const [r, mos] of table) expect(Math.abs(rFactorToMos(r) - mos), `R ${r}`).toBeLessThanOrEqual(0.0075);
  });

  it("gives 4.41 for the default rating of 93.2, and stays within 1 and 4.5", () => {
    expect(rFactorToMos(G107_DEFAULT_R)).toBeCloseTo(4.41, 2);
    expect(rFactorToMos(0)).toBe(1);
    expect(rFactorToMos(-20)).toBe(1);
    expect(rFactorToMos(100)).toBe(4.5);
    expect(rFactorToMos(120)).toBe(4.5);
    for (let r = 0; r < 100; r += 0.5) expect(rFactorToMos(r + 0.5)).toBeGreaterThanOrEqual(rFactorToMos(r));
  });
});

describe("Cole–Rosenbluth's simplified E-model", () => {
  it("rates a call with no delay and no loss 94.2", () => {
    expect(rFactor(0, 0)).toBeCloseTo(94.2, 6);
  });

  it("charges 0.024 per ms of one-way delay, and 0.11 more per ms beyond 177.3 ms", () => {
    expect(delayImpairment(100)).toBeCloseTo(2.4, 6);
    expect(delayImpairment(177.3)).toBeCloseTo(4.2552, 6);
    expect(delayImpairment(300)).toBeCloseTo(7.2 + 0.11 * 122.7, 6);
    expect(delayImpairment(-5)).toBe(0);
  });

  it("charges 30·ln(1 + 15e) for random loss, within 1.1 of G.107's Ie,eff for G.711 with concealment up to 10 %", () => {
    expect(lossImpairment(0)).toBe(0);
    expect(lossImpairment(5)).toBeCloseTo(30 * Math.log(1.75), 6);
    // G.107 eq. 7-29 with Ie = 0, Bpl = 25.1 (G.113 Appendix I, G.711 with PLC), random loss (BurstR 1).
    const g107 = (ppl: number) => (95 * ppl) / (ppl + 25.1);
    for (let loss = 0; loss <= 10; loss += 0.5)
      expect(Math.abs(lossImpairment(loss) - g107(loss)), `${loss} %`).toBeLessThanOrEqual(1.1);
  });
});

describe("estimateMos from a call's figures", () => {
  it("rates a clean local call near the top of the scale", () => {
    expect(estimateMos({ rttMs: 2, jitterMs: 1, lossPercent: 0 })).toBeGreaterThan(4.3);
  });

  it("rates 5 % loss only 'fair' on its own (the loss warning says the rest), 15 % poor", () => {
    const five = estimateMos({ rttMs: 20, jitterMs: 5, lossPercent: 5 });
    expect(five).toBeGreaterThan(3.5);
    expect(five).toBeLessThan(4.0);
    expect(estimateMos({ rttMs: 20, jitterMs: 5, lossPercent: 15 })).toBeLessThan(3.5);
  });

  it("rates a satellite-like delay (600 ms round trip) below 4", () => {
    expect(estimateMos({ rttMs: 600, jitterMs: 10, lossPercent: 0 })).toBeLessThan(4);
  });
});
