import { FRAME_MS, FRAME_SAMPLES, type Frame, type FrameSource } from "./frame";
import type { ClockTimer } from "./media-clock";
import { MediaPlane } from "./media-plane";

/** A timer that never fires: the test calls `plane.mixer.tick()` itself, so no test waits. */
export const manualTimer: ClockTimer = {
  nowMs: () => 0,
  schedule: () => () => undefined,
};

export function manualPlane(): MediaPlane {
  return new MediaPlane({ clock: { timer: manualTimer } });
}

export function runTicks(plane: MediaPlane, ms: number): void {
  for (let t = 0; t < ms; t += FRAME_MS) plane.mixer.tick();
}

/** Deterministic pseudo-random numbers, so a noisy test fails the same way every time. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** White noise of a given RMS level (dBFS re a full-scale sine's peak), added to a source. */
export function withNoise(source: FrameSource | null, rmsDb: number, seed = 1): FrameSource {
  const random = seededRandom(seed);
  const rms = 32767 * 10 ** (rmsDb / 20);
  // Sum of 12 uniforms minus 6 is close to a standard normal variable.
  const gaussian = () => {
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += random();
    return sum - 6;
  };
  return {
    label: `${source?.label ?? "silence"} + noise`,
    nextFrame() {
      const frame = source?.nextFrame();
      const out = new Int16Array(FRAME_SAMPLES);
      for (let i = 0; i < FRAME_SAMPLES; i++)
        out[i] = Math.max(-32768, Math.min(32767, Math.round((frame?.[i] ?? 0) + rms * gaussian())));
      return out;
    },
  };
}

/** Feeds `ms` of a source into a consumer, one frame at a time (silence when it says nothing). */
export function feed(source: FrameSource, ms: number, consume: (frame: Frame) => void): void {
  for (let t = 0; t < ms; t += FRAME_MS) consume(source.nextFrame() ?? new Int16Array(FRAME_SAMPLES));
}

/** The largest jump between neighbouring samples: a click shows up as a jump a tone never makes. */
export function largestStep(frames: readonly Frame[]): number {
  let largest = 0;
  let previous: number | undefined;
  for (const frame of frames) {
    for (const sample of frame) {
      if (previous !== undefined) largest = Math.max(largest, Math.abs(sample - previous));
      previous = sample;
    }
  }
  return largest;
}

/** Waits for a condition by polling; fails with `what` if it does not hold within the time. */
export async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
