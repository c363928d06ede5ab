import type { Call, CallQuality } from "../../softphone";
import type { Messages } from "../i18n";
import { whoOf } from "./call-words";

// A call's quality in words: its figures, its problem with what to try, and what is announced.

const percent = (n: number) => n.toFixed(1);
const mos = (n: number) => n.toFixed(1);

/** The figures of a call's quality in words (its tooltip, and what a screen reader says with the mark). */
export function qualityFigures(q: CallQuality, t: Messages): string {
  return t.quality.figures({
    ...(q.rttMs !== undefined ? { rtt: q.rttMs } : {}),
    ...(q.jitterMs !== undefined ? { jitter: q.jitterMs } : {}),
    ...(q.lossPercent !== undefined ? { loss: percent(q.lossPercent) } : {}),
    ...(q.mos !== undefined ? { mos: mos(q.mos) } : {}),
  });
}

/**
 * What is wrong with a call, in words, with what to try: the audio lost first (it is the worst),
 * then the first figure warned about (loss, jitter, round trip, MOS). Empty when nothing is.
 */
export function qualityProblem(q: CallQuality | undefined, t: Messages, now: number): string {
  if (!q) return "";
  const w = t.quality;
  const lost = q.oneWayAudio;
  if (lost)
    return lost.state === "restarting"
      ? w.oneWay.restarting
      : w.oneWay[lost.reason](Math.max(3, Math.round((now - lost.since) / 1000)));
  const issue = q.warnings[0];
  switch (issue) {
    case "loss":
      return w.warning.loss(percent(q.lossPercent ?? 0));
    case "jitter":
      return w.warning.jitter(q.jitterMs ?? 0);
    case "rtt":
      return w.warning.rtt(q.rttMs ?? 0);
    case "mos":
      return w.warning.mos(mos(q.mos ?? 0));
    default:
      return "";
  }
}

/**
 * What a call's quality mark says: its mark ("measuring" until the first figures), the word shown
 * beside the bars (outside the bar the mark's word; in the bar only a problem's name), what a screen
 * reader says, and its tooltip (in the bar with the problem, which the bar has no room for).
 */
export function qualityMarkWords(
  q: CallQuality | undefined,
  t: Messages,
  compact: boolean,
  now: number,
): { mark: CallQuality["mark"] | "measuring"; shown: string; label: string; title: string } {
  // Dim bars (and an ellipsis where the word goes): no wider than a mark, so the name beside it is not cut the more.
  if (!q)
    return { mark: "measuring", shown: compact ? "" : "…", label: t.quality.measuring, title: t.quality.measuring };
  const word = t.quality.mark[q.mark];
  const label = t.quality.label(word, qualityFigures(q, t));
  return {
    mark: q.mark,
    shown: compact ? problemName(q, t) : word,
    label,
    title: compact ? [label, qualityProblem(q, t, now)].filter(Boolean).join("\n") : label,
  };
}

/** The problem in a word or two, for the bar ("" when there is none). */
export function problemName(q: CallQuality, t: Messages): string {
  if (q.oneWayAudio) return t.quality.short.oneWay;
  const issue = q.warnings[0];
  return issue ? t.quality.short[issue] : "";
}

/** What the problem is, for telling a new one from the same one again. */
function problemKey(q: CallQuality | undefined): string {
  if (!q) return "";
  return q.oneWayAudio ? `${q.oneWayAudio.state}:${q.oneWayAudio.reason}` : (q.warnings[0] ?? "");
}

/** Says a call's new quality problem (not the same one again, nor its figures changing). */
export function announceQuality(call: Call, before: Call | undefined, t: Messages, say: (text: string) => void): void {
  if (call.state === "ended") return;
  const key = problemKey(call.quality);
  if (!key || key === problemKey(before?.quality)) return;
  say(t.quality.announce(whoOf(call, t), qualityProblem(call.quality, t, Date.now())));
}
