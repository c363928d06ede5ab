import { describe, expect, it } from "vitest";
import { FrameNormalizer } from "./frame-normalizer";
import { LinearResampler, downmixToMono } from "./linear-resampler";
import { ToneDetector } from "./tone-detector";

function sine(frequency: number, rate: number, length: number, start = 0, amplitude = 8000): Int16Array {
  return Int16Array.from({ length }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * frequency * (start + i)) / rate)),
  );
}

/** Pushes `chunks` chunks of `size` samples at `rate` through a normaliser; returns the frames. */
function normalise(rate: number, size: number, chunks: number, frequency = 1000, channels = 1) {
  const normalizer = new FrameNormalizer();
  const frames: Int16Array[] = [];
  for (let c = 0; c < chunks; c++) {
    const mono = sine(frequency, rate, size, c * size);
    const samples =
      channels === 1 ? mono : Int16Array.from({ length: size * channels }, (_, i) => mono[Math.floor(i / channels)]!);
    frames.push(...normalizer.push({ samples, sampleRate: rate, channelCount: channels, numberOfFrames: size }));
  }
  return { frames, normalizer };
}

function dominant(frames: Int16Array[]): number {
  const detector = new ToneDetector();
  frames.forEach((f) => detector.push(f));
  return detector.dominant()!.frequency;
}

describe("FrameNormalizer", () => {
  it("passes 48 kHz 10 ms chunks (Opus) through unchanged", () => {
    const { frames } = normalise(48_000, 480, 3);
    expect(frames).toHaveLength(3);
    expect(frames[1]).toEqual(sine(1000, 48_000, 480, 480));
  });

  it("turns 8 kHz chunks (PCMU) into 48 kHz frames carrying the same tone", () => {
    const { frames, normalizer } = normalise(8000, 80, 50);
    expect(frames.length).toBeGreaterThanOrEqual(49);
    expect(frames.every((f) => f.length === 480)).toBe(true);
    expect(Math.abs(dominant(frames) - 1000)).toBeLessThan(1);
    expect(normalizer.shapes.get("8000/1/80")).toBe(50);
  });

  it("turns 16 kHz chunks (G.722, and wrtc's first chunks) into frames", () => {
    const { frames } = normalise(16_000, 160, 50, 697);
    expect(frames.length).toBeGreaterThanOrEqual(49);
    expect(Math.abs(dominant(frames) - 697)).toBeLessThan(1);
  });

  it("re-cuts odd chunk sizes and rates into whole 480-sample frames", () => {
    const { frames } = normalise(44_100, 441, 50, 440);
    expect(frames.length).toBeGreaterThanOrEqual(49);
    expect(frames.every((f) => f.length === 480)).toBe(true);
    expect(Math.abs(dominant(frames) - 440)).toBeLessThan(1);
  });

  it("passes a new decoder's first chunk on whole, not behind what the old one left short of a frame", () => {
    const normalizer = new FrameNormalizer();
    // wrtc's sink before the first packet: 16 kHz chunks of silence, resampled with a remainder.
    for (let c = 0; c < 4; c++) normalizer.push({ samples: new Int16Array(160), sampleRate: 16_000 });
    const first = sine(1000, 48_000, 480);
    expect(normalizer.push({ samples: first, sampleRate: 48_000 })).toEqual([first]);
    const second = sine(1000, 48_000, 480, 480);
    expect(normalizer.push({ samples: second, sampleRate: 48_000 })).toEqual([second]);
  });

  it("downmixes stereo", () => {
    const { frames } = normalise(48_000, 480, 1, 1000, 2);
    expect(frames[0]).toEqual(sine(1000, 48_000, 480));
    expect(downmixToMono(Int16Array.from([100, 300, -10, 10]), 2)).toEqual(Int16Array.from([200, 0]));
  });
});

describe("LinearResampler", () => {
  it("is continuous across chunk boundaries", () => {
    const whole = new LinearResampler(8000, 48_000).process(sine(500, 8000, 160));
    const resampler = new LinearResampler(8000, 48_000);
    const parts = [...resampler.process(sine(500, 8000, 80)), ...resampler.process(sine(500, 8000, 80, 80))];
    expect(Int16Array.from(parts)).toEqual(whole);
  });

  it("produces six output samples per input sample from 8 kHz, holding back only the last five", () => {
    const resampler = new LinearResampler(8000, 48_000);
    let total = 0;
    for (let i = 0; i < 100; i++) total += resampler.process(new Int16Array(80)).length;
    // Outputs between the last input sample and the next one wait for that next sample.
    expect(total).toBe(48_000 - 5);
  });
});
