import { FRAME_MS } from "./frame";

export interface MediaClockStats {
  /** Ticks handled since the last reset. */
  framesProduced: number;
  /** Ticks handled more than one period after they were due. */
  framesLate: number;
  /** Ticks given up because the clock fell too far behind to catch up without a burst. */
  framesSkipped: number;
  maxLatenessMs: number;
  meanLatenessMs: number;
  /** Share of due ticks that were late or skipped: the figure the 1 % cadence budget is about. */
  missedRatio: number;
  /** Time spent inside tick handlers. */
  busyMs: number;
  elapsedMs: number;
}

/** Time and timers, injectable so that tests can drive the clock without waiting. */
export interface ClockTimer {
  nowMs(): number;
  schedule(callback: () => void, delayMs: number): () => void;
}

export const realTimer: ClockTimer = {
  nowMs: () => Number(process.hrtime.bigint()) / 1e6,
  schedule(callback, delayMs) {
    const handle = setTimeout(callback, delayMs);
    return () => clearTimeout(handle);
  },
};

export interface MediaClockOptions {
  periodMs?: number;
  /** Most ticks handled back to back after a stall; older due ticks are skipped. */
  maxBurst?: number;
  timer?: ClockTimer;
  /** How long after an input's arrival its tick should come (see `inputArrived`). */
  inputLeadMs?: number;
}

export type TickHandler = (tick: number) => void;

/**
 * The heartbeat of the media plane: one tick per 10 ms frame. Ticks are due at absolute times
 * counted from the start, never "10 ms after the previous one", so timer slack does not
 * accumulate into drift. A stalled event loop is caught up by handling the ticks that are due
 * back to back, but at most `maxBurst` of them: beyond that the far ends would receive a burst
 * of packets their jitter buffers must swallow, so older ticks are skipped and counted.
 */
export class MediaClock {
  readonly periodMs: number;
  private readonly maxBurst: number;
  private readonly timer: ClockTimer;
  private readonly inputLeadMs: number;
  private readonly handlers = new Set<TickHandler>();
  private cancel: (() => void) | undefined;
  private due = 0;
  private tickCount = 0;
  private counters: ReturnType<MediaClock["zeroCounters"]>;

  constructor(options: MediaClockOptions = {}) {
    this.periodMs = options.periodMs ?? FRAME_MS;
    this.maxBurst = options.maxBurst ?? 3;
    this.timer = options.timer ?? realTimer;
    this.inputLeadMs = options.inputLeadMs ?? 1;
    this.counters = this.zeroCounters();
  }

  get running(): boolean {
    return this.cancel !== undefined;
  }

  onTick(handler: TickHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  start(): void {
    if (this.running) return;
    this.due = this.timer.nowMs() + this.periodMs;
    this.resetStats();
    this.cancel = this.timer.schedule(this.wake, this.periodMs);
  }

  /**
   * Input for the ticks arrived now: a leg's decoder handed over its 10 ms (wrtc's legs all
   * decode on one audio thread's 10 ms pulls, so their arrivals share one phase). The ticks follow
   * those arrivals, `inputLeadMs` after them, so that what a phone said is mixed at once rather
   * than up to a period later: each arrival moves the schedule half of the way to that point,
   * earlier or later, by less than half a period, so that no tick is added or lost over time and
   * one late arrival moves it little. Within a quarter of a millisecond it stays as it is.
   */
  inputArrived(): void {
    if (!this.running) return;
    const now = this.timer.nowMs();
    const period = this.periodMs;
    // Where the next tick should be, relative to where it is, within half a period either way.
    const error = ((((now + this.inputLeadMs - this.due) % period) + period * 1.5) % period) - period / 2;
    if (Math.abs(error) < 0.25) return;
    this.due += error / 2;
    this.cancel?.();
    this.cancel = this.timer.schedule(this.wake, Math.max(0, this.due - now));
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  resetStats(): void {
    this.counters = this.zeroCounters();
  }

  stats(): MediaClockStats {
    const c = this.counters;
    const due = c.produced + c.skipped;
    return {
      framesProduced: c.produced,
      framesLate: c.late,
      framesSkipped: c.skipped,
      maxLatenessMs: c.maxLateness,
      meanLatenessMs: c.produced ? c.latenessSum / c.produced : 0,
      missedRatio: due ? (c.late + c.skipped) / due : 0,
      busyMs: c.busy,
      elapsedMs: this.timer.nowMs() - c.since,
    };
  }

  private readonly wake = () => {
    if (!this.running) return;
    const now = this.timer.nowMs();
    const dueCount = Math.floor((now - this.due) / this.periodMs) + 1;
    if (dueCount > this.maxBurst) {
      const skip = dueCount - this.maxBurst;
      this.counters.skipped += skip;
      this.tickCount += skip;
      this.due += skip * this.periodMs;
    }
    for (let i = 0; i < this.maxBurst && this.running && this.due <= this.timer.nowMs(); i++) this.runTick();
    if (!this.running) return;
    this.cancel = this.timer.schedule(this.wake, Math.max(0, this.due - this.timer.nowMs()));
  };

  private runTick(): void {
    const started = this.timer.nowMs();
    const lateness = started - this.due;
    const c = this.counters;
    c.produced++;
    c.latenessSum += lateness;
    if (lateness > c.maxLateness) c.maxLateness = lateness;
    if (lateness > this.periodMs) c.late++;
    const tick = this.tickCount++;
    this.due += this.periodMs;
    for (const handler of this.handlers) {
      try {
        handler(tick);
      } catch (error) {
        // One faulty consumer must not stop the heartbeat of every call.
        console.error("media tick handler failed", error);
      }
    }
    c.busy += this.timer.nowMs() - started;
  }

  private zeroCounters() {
    return { produced: 0, late: 0, skipped: 0, maxLateness: 0, latenessSum: 0, busy: 0, since: this.timer.nowMs() };
  }
}
