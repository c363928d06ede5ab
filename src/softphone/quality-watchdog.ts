import type { CallId } from "./call";
import type { CallQuality } from "./call-quality";
import { sampleCallStats, type CallStatsSample, type StatsSource } from "./call-stats";
import { OneWayAudioDetector } from "./one-way-audio";
import { qualityMark, QualityRules } from "./quality-rules";

/** A call as the watchdog sees it (CallSession provides it). */
export interface WatchedCall {
  readonly id: CallId;
  /** Who the call is with, for the statistics timeline. */
  readonly remote: string;
  /** The call's peer connection, when it has one. */
  statsSource(): StatsSource | undefined;
  /** Either side holds the call, or a hold is being negotiated: no audio is due. */
  held(): boolean;
  /** Renegotiates the media path (ICE restart); resolves with whether the far end accepted it. */
  restartIce(): Promise<boolean>;
  publish(quality: CallQuality): void;
}

/** The statistics of one call, kept for the diagnostics bundle. */
export interface CallStatsTimeline {
  callId: CallId;
  remote: string;
  startedAt: number;
  endedAt?: number;
  /** Readings dropped from the front to keep the newest MAX_TIMELINE_SAMPLES. */
  dropped: number;
  samples: CallStatsSample[];
}

/** A quarter of an hour of readings per call; the last few calls. */
export const MAX_TIMELINE_SAMPLES = 900;
export const TIMELINES_KEPT = 5;

/**
 * Watches one call: a reading every second, the warning rules, the mark, and one-way audio, for
 * which it tries one ICE restart before saying the audio is lost.
 */
export class QualityWatchdog {
  private readonly rules = new QualityRules();
  private readonly oneWay = new OneWayAudioDetector();
  private previous: CallStatsSample | undefined;
  private restartTried = false;
  private restarting = false;
  private lostAudio: CallQuality["oneWayAudio"];
  private reading = false;
  private published = "";

  constructor(
    private readonly call: WatchedCall,
    private readonly timeline: CallStatsTimeline,
    private readonly now: () => number,
  ) {}

  /** Takes one reading and publishes what it makes of it. */
  async tick(): Promise<void> {
    const pc = this.call.statsSource();
    // A slow getStats must not pile readings up.
    if (!pc || this.reading) return;
    this.reading = true;
    let sample: CallStatsSample;
    try {
      sample = await sampleCallStats(pc, this.previous, this.now());
    } catch {
      return;
    } finally {
      this.reading = false;
    }
    this.previous = sample;
    this.record(sample);
    const warnings = this.rules.add(sample);
    if (!this.restarting) this.watchAudio(sample);
    const lost = this.lostAudio;
    const quality: CallQuality = {
      mark: qualityMark(warnings.length > 0 || !!lost, sample, this.rules.latestCrosses()),
      ...rounded(sample),
      warnings,
      ...(lost ? { oneWayAudio: lost } : {}),
    };
    const key = JSON.stringify(quality);
    if (key === this.published) return;
    this.published = key;
    this.call.publish(quality);
  }

  private watchAudio(sample: CallStatsSample): void {
    const { flowing, problem } = this.oneWay.update(sample, this.call.held());
    if (!problem) {
      // Back only once audio really comes again: the seconds after a restart prove nothing yet.
      if (this.lostAudio && flowing) this.lostAudio = undefined;
      return;
    }
    if (this.restartTried) {
      this.lostAudio = { ...problem, state: "unresolved" };
      return;
    }
    this.restartTried = true;
    this.restarting = true;
    this.lostAudio = { ...problem, state: "restarting" };
    void this.call
      .restartIce()
      .catch(() => false)
      .then((accepted) => {
        this.restarting = false;
        // Audio gets its full time again on the new path; a refused restart leaves nothing to wait for.
        if (accepted) this.oneWay.reset(this.now());
        else this.lostAudio = { ...problem, state: "unresolved" };
      });
  }

  private record(sample: CallStatsSample): void {
    const samples = this.timeline.samples;
    samples.push(sample);
    if (samples.length > MAX_TIMELINE_SAMPLES) {
      samples.shift();
      this.timeline.dropped++;
    }
  }
}

function rounded(s: CallStatsSample): Pick<CallQuality, "rttMs" | "jitterMs" | "lossPercent" | "mos"> {
  return {
    ...(s.rttMs !== undefined ? { rttMs: Math.round(s.rttMs) } : {}),
    ...(s.jitterMs !== undefined ? { jitterMs: Math.round(s.jitterMs) } : {}),
    ...(s.lossPercent !== undefined ? { lossPercent: Math.round(s.lossPercent * 10) / 10 } : {}),
    ...(s.mos !== undefined ? { mos: Math.round(s.mos * 10) / 10 } : {}),
  };
}

/**
 * The phone's watchdogs: one per answered call, a reading every second, and the statistics
 * timelines of the last calls.
 */
export class CallQualityMonitor {
  private readonly timelines: CallStatsTimeline[] = [];

  constructor(
    private readonly now: () => number,
    private readonly intervalMs = 1000,
  ) {}

  /** Starts watching a call; the returned function stops it (when the call ends). */
  watch(call: WatchedCall): () => void {
    const timeline: CallStatsTimeline = {
      callId: call.id,
      remote: call.remote,
      startedAt: this.now(),
      dropped: 0,
      samples: [],
    };
    this.timelines.push(timeline);
    if (this.timelines.length > TIMELINES_KEPT) this.timelines.shift();
    const watchdog = new QualityWatchdog(call, timeline, this.now);
    const timer = setInterval(() => void watchdog.tick(), this.intervalMs);
    return () => {
      clearInterval(timer);
      timeline.endedAt ??= this.now();
    };
  }

  /** The statistics timelines of the last calls, oldest first (copies). */
  history(): CallStatsTimeline[] {
    return this.timelines.map((t) => ({ ...t, samples: t.samples.map((s) => ({ ...s })) }));
  }
}
