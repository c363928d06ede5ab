import { describe, expect, it } from "vitest";
import { INTERVAL_MS, type QueueInterval } from "../../cc/supervisor";
import { scaleTop, serviceLevelSteps, shownIntervals } from "./chart-scale";

const interval = (i: number, offered = 0, serviceLevel: number | null = null): QueueInterval => ({
  from: i * INTERVAL_MS,
  offered,
  answered: offered,
  abandoned: 0,
  answeredWithin: 0,
  serviceLevel,
  averageSpeedOfAnswer: null,
  averageHandleTime: null,
});

describe("the intraday chart's scale", () => {
  it("draws from the whole hour before the first caller to now, at least four hours", () => {
    // 15:10 now (61 quarter hours), the first caller at 8:45: drawn from 8:00.
    const day = Array.from({ length: 61 }, (_, i) => interval(i, i === 35 ? 2 : 0));
    expect(shownIntervals(day)[0]!.from).toBe(32 * INTERVAL_MS);
    expect(shownIntervals(day).at(-1)!.from).toBe(60 * INTERVAL_MS);
    // The first caller at 9:15: still four hours (from 5:30).
    const late = Array.from({ length: 38 }, (_, i) => interval(i, i === 37 ? 1 : 0));
    expect(shownIntervals(late)).toHaveLength(16);
    // A quiet morning at 2:00: all of it.
    expect(shownIntervals(Array.from({ length: 8 }, (_, i) => interval(i)))).toHaveLength(8);
  });

  it("rounds the busiest quarter hour up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 2, 3, 7, 10, 11, 48, 50, 51, 180].map(scaleTop)).toEqual([1, 1, 2, 5, 10, 10, 20, 50, 50, 100, 200]);
  });

  it("draws the service level as steps, broken where a quarter hour has none", () => {
    expect(serviceLevelSteps([interval(0, 1, 1), interval(1, 1, 0.5), interval(2), interval(3, 1, 0)])).toEqual([
      "0,0 1,0 1,50 2,50",
      "3,100 4,100",
    ]);
    expect(serviceLevelSteps([interval(0), interval(1)])).toEqual([]);
  });
});
