import { describe, expect, it } from "vitest";
import { MediaClock, realTimer, type ClockTimer } from "./media-clock";

/** A timer whose time only moves when the test says so. */
class SteppedTimer implements ClockTimer {
  now = 1000;
  private pending: { at: number; callback: () => void } | undefined;
  nowMs = () => this.now;
  schedule = (callback: () => void, delayMs: number) => {
    const entry = { at: this.now + delayMs, callback };
    this.pending = entry;
    return () => {
      if (this.pending === entry) this.pending = undefined;
    };
  };
  /** Moves time forward to `at` and fires the timer if it is due by then. */
  advanceTo(at: number) {
    this.now = at;
    const pending = this.pending;
    if (pending && pending.at <= at) {
      this.pending = undefined;
      pending.callback();
    }
  }
  get nextWake() {
    return this.pending?.at;
  }
}

describe("MediaClock", () => {
  it("ticks once per period, scheduled from absolute time, on time", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer });
    const ticks: number[] = [];
    clock.onTick((t) => ticks.push(t));
    clock.start();
    // Each wake-up comes 0.7 ms late, as setTimeout does; the next is still aimed at the grid,
    // so the lateness does not add up.
    for (let i = 1; i <= 100; i++) {
      expect(timer.nextWake).toBeCloseTo(1000 + 10 * i, 6);
      timer.advanceTo(1000 + 10 * i + 0.7);
    }
    expect(ticks).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const stats = clock.stats();
    expect(stats.framesProduced).toBe(100);
    expect(stats.framesLate).toBe(0);
    expect(stats.framesSkipped).toBe(0);
    expect(stats.maxLatenessMs).toBeCloseTo(0.7, 6);
    expect(stats.missedRatio).toBe(0);
  });

  it("catches up a short stall back to back and counts the late ticks", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer, maxBurst: 3 });
    let ticks = 0;
    clock.onTick(() => ticks++);
    clock.start();
    timer.advanceTo(1010);
    // The event loop stalls: the next wake-up comes 25 ms late, when ticks 1, 2 and 3 are due
    // (at 1020, 1030, 1040). They run back to back, 25, 15 and 5 ms late.
    timer.advanceTo(1045);
    expect(ticks).toBe(4);
    const stats = clock.stats();
    expect(stats.framesProduced).toBe(4);
    expect(stats.framesLate).toBe(2);
    expect(stats.maxLatenessMs).toBe(25);
    expect(stats.framesSkipped).toBe(0);
    expect(timer.nextWake).toBe(1050);
  });

  it("never bursts more than maxBurst frames: a long stall skips the oldest ticks", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer, maxBurst: 3 });
    const ticks: number[] = [];
    clock.onTick((t) => ticks.push(t));
    clock.start();
    timer.advanceTo(1010);
    // Ticks 1..9 (due 1020..1100) are due at once: the oldest six are given up, the newest
    // three run back to back (25, 15 and 5 ms late).
    timer.advanceTo(1105);
    expect(ticks).toEqual([0, 7, 8, 9]);
    const stats = clock.stats();
    expect(stats.framesSkipped).toBe(6);
    expect(stats.framesProduced).toBe(4);
    expect(stats.framesLate).toBe(2);
    expect(stats.missedRatio).toBeCloseTo(8 / 10, 6);
    timer.advanceTo(1110);
    expect(ticks.at(-1)).toBe(10);
  });

  it("keeps ticking when a handler throws, and stops for good on stop()", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer });
    let good = 0;
    clock.onTick(() => {
      throw new Error("faulty consumer");
    });
    clock.onTick(() => good++);
    const error = console.error;
    console.error = () => undefined;
    try {
      clock.start();
      for (let i = 1; i <= 5; i++) timer.advanceTo(1000 + 10 * i);
    } finally {
      console.error = error;
    }
    expect(good).toBe(5);
    clock.stop();
    expect(clock.running).toBe(false);
    expect(timer.nextWake).toBeUndefined();
  });

  it("follows the input's arrivals: each tick comes just after it, and no tick is added or lost", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer, inputLeadMs: 1 });
    const ticks: number[] = [];
    clock.onTick(() => ticks.push(timer.now));
    clock.start(); // ticks due at 1010, 1020, ...
    // A decoder hands over its 10 ms at 1016, 1026, ...: its frames waited 4 ms for their tick.
    let arrival = 1016;
    const run = (until: number) => {
      while (arrival < until) {
        while (timer.nextWake !== undefined && timer.nextWake <= arrival) timer.advanceTo(timer.nextWake);
        timer.advanceTo(arrival);
        clock.inputArrived();
        arrival += 10;
      }
    };
    run(1100);
    // Within a few arrivals each tick comes a millisecond after the input it mixes.
    const settled = ticks.slice(-3).map((t) => Number(((t - 1016) % 10).toFixed(2)));
    expect(settled.every((lead) => Math.abs(lead - 1) <= 0.25)).toBe(true);
    // An arrival late once (a busy event loop) moves it by half the delay, and it comes back.
    arrival += 4;
    run(arrival + 1);
    arrival -= 4;
    run(2016);
    expect(Math.abs(((ticks.at(-1)! - 1016) % 10) - 1)).toBeLessThanOrEqual(0.25);
    // A second of ticks for a second of time: moving the phase added or lost none.
    expect(ticks.length).toBe(100);
    expect(clock.stats().framesSkipped).toBe(0);
  });

  it("keeps its schedule when input arrives just after a tick: the next tick is delayed, not a second one run", () => {
    const timer = new SteppedTimer();
    const clock = new MediaClock({ timer, inputLeadMs: 1 });
    let ticks = 0;
    clock.onTick(() => ticks++);
    clock.start();
    timer.advanceTo(1010); // tick 1
    timer.advanceTo(1010.3);
    clock.inputArrived(); // the tick just ran 0.3 ms before: the next comes later, at most half a period
    expect(timer.nextWake).toBeGreaterThan(1020);
    expect(timer.nextWake).toBeLessThan(1025);
    expect(ticks).toBe(1);
  });

  it("on the real timer, never runs a tick before it is due and accounts for every tick", async () => {
    const clock = new MediaClock();
    const handled: { tick: number; at: number }[] = [];
    clock.onTick((tick) => handled.push({ tick, at: realTimer.nowMs() }));
    const started = realTimer.nowMs();
    clock.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    clock.stop();
    const stats = clock.stats();
    expect(handled.length).toBeGreaterThan(5);
    for (const { tick, at } of handled) expect(at).toBeGreaterThanOrEqual(started + 10 * (tick + 1) - 0.001);
    const last = handled.at(-1)!.tick;
    expect(stats.framesProduced).toBe(handled.length);
    expect(stats.framesProduced + stats.framesSkipped).toBe(last + 1);
  });
});
