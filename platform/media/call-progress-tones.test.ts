import { describe, expect, it } from "vitest";
import { CALL_PROGRESS_FREQUENCY, CUE_FREQUENCY, busyTone, cueTone, ringbackTone } from "./call-progress-tones";
import type { FrameSource } from "./frame";
import { ToneDetector } from "./tone-detector";

/** Per 10 ms frame: whether the source sounded. */
function cadence(source: FrameSource, ms: number): boolean[] {
  const out: boolean[] = [];
  for (let t = 0; t < ms; t += 10) {
    const frame = source.nextFrame();
    out.push(frame !== null && frame.some((s) => Math.abs(s) > 100));
  }
  return out;
}

/** Lengths of the on and off runs, in frames. */
function runs(pattern: boolean[]): number[] {
  const out: number[] = [];
  let length = 0;
  for (let i = 0; i < pattern.length; i++) {
    length++;
    if (i === pattern.length - 1 || pattern[i + 1] !== pattern[i]) {
      out.push(length);
      length = 0;
    }
  }
  return out;
}

describe("call-progress tones", () => {
  it("ringback is 450 Hz, 1 s on and 4 s off", () => {
    const detector = new ToneDetector();
    const tone = ringbackTone();
    for (let i = 0; i < 50; i++) detector.push(tone.nextFrame()!);
    expect(Math.round(detector.dominant()!.frequency)).toBe(CALL_PROGRESS_FREQUENCY);
    expect(runs(cadence(ringbackTone(), 10_000))).toEqual([100, 400, 100, 400]);
  });

  it("busy is 350 ms on, 350 ms off", () => {
    expect(runs(cadence(busyTone(), 1400))).toEqual([35, 35, 35, 35]);
  });

  it("the cue sounds once for 200 ms at its own frequency", () => {
    const detector = new ToneDetector({ windowSamples: 4096 });
    const cue = cueTone();
    for (let i = 0; i < 10; i++) detector.push(cue.nextFrame()!);
    expect(Math.round(detector.dominant()!.frequency)).toBe(CUE_FREQUENCY);
    const pattern = cadence(cueTone(), 3000);
    expect(runs(pattern)).toEqual([20, 280]);
    expect(cue.finished).toBe(false);
    for (let i = 0; i < 10; i++) cue.nextFrame();
    expect(cue.finished).toBe(true);
  });
});
