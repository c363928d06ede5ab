/**
 * The one audio format inside the media plane: 48 kHz, mono, signed 16-bit PCM, cut into 10 ms
 * frames of 480 samples. Every leg, generator, detector and recorder speaks it, so mixing is a
 * per-sample sum and nothing downstream has to know where a frame came from. 48 kHz because it is
 * Opus's native rate and what wrtc's RTCAudioSource expects; 10 ms because that is the unit
 * libwebrtc pulls and delivers.
 */
export const SAMPLE_RATE = 48_000;
export const FRAME_MS = 10;
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000;

/** One 10 ms frame. Producers hand out a fresh array each tick; consumers may keep it. */
export type Frame = Int16Array;

/** Produces what something says, one frame per media tick; null when it has nothing to say. */
export interface FrameSource {
  readonly label: string;
  nextFrame(): Frame | null;
}

export function silentFrame(): Frame {
  return new Int16Array(FRAME_SAMPLES);
}

export function clampSample(value: number): number {
  if (value > 32767) return 32767;
  if (value < -32768) return -32768;
  return Math.round(value);
}

/** Peak amplitude, in sample units, of a level given in dB relative to full scale. */
export function amplitudeOfDbfs(levelDb: number): number {
  return 32767 * 10 ** (levelDb / 20);
}

/** Level of an amplitude in dB relative to full scale (peak of a full-scale sine = 0 dBFS). */
export function dbfsOfAmplitude(amplitude: number): number {
  return amplitude > 0 ? 20 * Math.log10(amplitude / 32767) : -Infinity;
}

/** Root-mean-square level of a frame in dBFS, where a full-scale sine reads about -3 dBFS. */
export function rmsDbfs(frame: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i++) {
    const s = frame[i]!;
    sum += s * s;
  }
  const rms = Math.sqrt(sum / Math.max(1, frame.length));
  return dbfsOfAmplitude(rms);
}
