/**
 * A call's estimated Mean Opinion Score from network figures, by the E-model.
 *
 * The transmission rating R comes from the simplified E-model of Cole and Rosenbluth ("Voice over
 * IP performance monitoring", ACM SIGCOMM CCR 31(2), 2001), the form most WebRTC and VoIP
 * monitors use because it needs only delay and loss:
 *
 *   R = 94.2 − Id − Ie,eff
 *   Id = 0.024·d + 0.11·(d − 177.3)·H(d − 177.3)        d: one-way mouth-to-ear delay, ms
 *   Ie,eff = γ1 + γ2·ln(1 + γ3·e)                         e: packet loss, fraction
 *
 * with G.711 and packet-loss concealment's coefficients (γ1 0, γ2 30, γ3 15): Opus has no
 * published Ie in ITU-T G.113, and it conceals loss at least as well. R is then turned into a MOS
 * by ITU-T G.107's own mapping (Annex B, eq. B-4).
 */

/** The default R of G.107 (every parameter at its default value): 93.2. */
export const G107_DEFAULT_R = 93.2;

/**
 * ITU-T G.107 Annex B: the MOS (conversational quality, estimated) of a rating R. The cubic dips
 * a little under 1 for R below 6.5; the scale has no such values, so it is held at 1.
 */
export function rFactorToMos(r: number): number {
  if (r <= 0) return 1;
  if (r >= 100) return 4.5;
  return Math.max(1, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6);
}

/** Cole–Rosenbluth's delay impairment for a one-way delay in ms. */
export function delayImpairment(oneWayDelayMs: number): number {
  const d = Math.max(0, oneWayDelayMs);
  return 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0);
}

/** Cole–Rosenbluth's equipment impairment for random loss (percent), G.711 with concealment. */
export function lossImpairment(lossPercent: number): number {
  const e = Math.min(Math.max(lossPercent, 0), 100) / 100;
  return 30 * Math.log(1 + 15 * e);
}

export function rFactor(oneWayDelayMs: number, lossPercent: number): number {
  return 94.2 - delayImpairment(oneWayDelayMs) - lossImpairment(lossPercent);
}

/** Packetisation of the audio: 20 ms frames (Opus and G.711 in WebRTC). */
const FRAME_MS = 20;

/**
 * The MOS of a call whose path measures `rttMs` round trip, `jitterMs` of jitter and
 * `lossPercent` of loss. The one-way delay is half the round trip, plus a jitter buffer of twice
 * the jitter (what adaptive buffers settle near), plus one frame.
 */
export function estimateMos(figures: { rttMs: number; jitterMs: number; lossPercent: number }): number {
  const oneWay = figures.rttMs / 2 + 2 * figures.jitterMs + FRAME_MS;
  return rFactorToMos(rFactor(oneWay, figures.lossPercent));
}
