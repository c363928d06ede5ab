import type { CallStatsSample } from "./call-stats";

/** A figure that has gone bad enough to warn about. */
export type QualityIssue = "rtt" | "jitter" | "loss" | "mos";

/**
 * When a figure counts as bad (Twilio Voice SDK's published thresholds, which the call-quality
 * literature agrees with): a round trip over 400 ms makes people talk over each other, jitter
 * over 30 ms outruns jitter buffers, loss over 1 % is audible, MOS under 3.5 is "many users
 * dissatisfied" (G.107).
 */
export const QUALITY_THRESHOLDS = {
  rttMs: 400,
  jitterMs: 30,
  lossPercent: 1,
  /** Loss averaged over LOSS_AVERAGE_SAMPLES readings, %. */
  averageLossPercent: 3,
  mos: 3.5,
} as const;

/** A warning is raised when RAISE of the last WINDOW readings cross its threshold, and cleared once none of them do. */
export const WINDOW = 5;
export const RAISE = 3;
/** Readings over which loss is averaged (7 s). */
export const LOSS_AVERAGE_SAMPLES = 7;

/** MOS from which a call without warnings counts as good (G.107: R 80, "satisfied"). */
export const GOOD_MOS = 4.0;

export type QualityMark = "good" | "fair" | "poor";

function crosses(issue: QualityIssue, s: CallStatsSample): boolean {
  switch (issue) {
    case "rtt":
      return (s.rttMs ?? 0) > QUALITY_THRESHOLDS.rttMs;
    case "jitter":
      return (s.jitterMs ?? 0) > QUALITY_THRESHOLDS.jitterMs;
    case "loss":
      return (s.lossPercent ?? 0) > QUALITY_THRESHOLDS.lossPercent;
    case "mos":
      return s.mos !== undefined && s.mos < QUALITY_THRESHOLDS.mos;
  }
}

const ISSUES: readonly QualityIssue[] = ["loss", "jitter", "rtt", "mos"];

/**
 * The warning rules over a call's readings, with hysteresis so that a warning neither flickers
 * nor comes from a single bad second: raised when 3 of the last 5 readings cross a threshold (or,
 * for loss, when the last 7 average over 3 %), cleared when none of the last 5 cross (and the
 * loss average is back under 3 %).
 */
export class QualityRules {
  private readonly recent: CallStatsSample[] = [];
  private readonly active = new Set<QualityIssue>();

  /** Takes the newest reading; returns the issues warned about now, in a fixed order. */
  add(sample: CallStatsSample): QualityIssue[] {
    this.recent.push(sample);
    if (this.recent.length > LOSS_AVERAGE_SAMPLES) this.recent.shift();
    const window = this.recent.slice(-WINDOW);
    for (const issue of ISSUES) {
      const count = window.filter((s) => crosses(issue, s)).length;
      const sustained = issue === "loss" && this.averageLoss() > QUALITY_THRESHOLDS.averageLossPercent;
      if (count >= RAISE || sustained) this.active.add(issue);
      else if (count === 0) this.active.delete(issue);
    }
    return ISSUES.filter((issue) => this.active.has(issue));
  }

  /** Mean loss over the last readings that had a loss figure, %. */
  private averageLoss(): number {
    const figures = this.recent
      .slice(-LOSS_AVERAGE_SAMPLES)
      .flatMap((s) => (s.lossPercent === undefined ? [] : [s.lossPercent]));
    // A full window is needed: one bad second at the start of a call is not a sustained loss.
    if (figures.length < LOSS_AVERAGE_SAMPLES) return 0;
    return figures.reduce((a, b) => a + b, 0) / figures.length;
  }

  /** Whether the newest reading crosses any threshold (not yet a warning). */
  latestCrosses(): boolean {
    const latest = this.recent.at(-1);
    return !!latest && ISSUES.some((issue) => crosses(issue, latest));
  }
}

/**
 * The mark a call shows: poor while anything is warned about, fair when the figures are not good
 * (MOS under 4, or the latest reading crossing a threshold) without a warning yet, else good.
 */
export function qualityMark(warned: boolean, latest: CallStatsSample | undefined, latestCrosses: boolean): QualityMark {
  if (warned) return "poor";
  if (latestCrosses || (latest?.mos !== undefined && latest.mos < GOOD_MOS)) return "fair";
  return "good";
}
