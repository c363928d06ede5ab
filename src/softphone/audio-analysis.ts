/** Small signal helpers for the pre-call check (levels, a tone's onset), on Web Audio's float samples (-1..1). */

/** Below this a level reads as silence. */
export const SILENCE_DBFS = -90;

/** RMS level of the samples in dBFS (a full-scale sine is −3). */
export function rmsDbfs(samples: ArrayLike<number>, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  const n = Math.max(1, to - from);
  const rms = Math.sqrt(sum / n);
  return rms > 0 ? Math.max(SILENCE_DBFS, 20 * Math.log10(rms)) : SILENCE_DBFS;
}

/** Amplitude (0-1 for a full-scale sine) of `frequency` in a window of the samples (Goertzel, Hann window). */
export function toneAmplitude(
  samples: ArrayLike<number>,
  from: number,
  length: number,
  frequency: number,
  sampleRate: number,
): number {
  const w = (2 * Math.PI * frequency) / sampleRate;
  const coeff = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < length; i++) {
    const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1));
    const s0 = (samples[from + i] ?? 0) * hann + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  // A Hann window passes half the amplitude: scale back to the sine's own.
  return (2 * Math.sqrt(Math.max(0, power))) / (length * 0.5);
}

/**
 * Where a tone starts in the samples: the middle of the first 20 ms window (in 5 ms steps) that
 * holds `frequency` at `threshold` amplitude or more, or undefined.
 */
export function toneOnset(
  samples: ArrayLike<number>,
  frequency: number,
  sampleRate: number,
  threshold: number,
): number | undefined {
  const window = Math.round(sampleRate * 0.02);
  const step = Math.round(sampleRate * 0.005);
  for (let from = 0; from + window <= samples.length; from += step) {
    if (toneAmplitude(samples, from, window, frequency, sampleRate) >= threshold) return from + Math.round(window / 2);
  }
  return undefined;
}
