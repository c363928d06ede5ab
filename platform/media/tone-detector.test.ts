import { describe, expect, it } from "vitest";
import { ToneDetector } from "./tone-detector";
import { ToneGenerator, sineTone } from "./tone-generator";
import { feed, withNoise } from "./test-helpers";

function mix(...sources: ReturnType<typeof sineTone>[]) {
  return {
    label: "mix",
    nextFrame() {
      const frames = sources.map((s) => s.nextFrame()!);
      return Int16Array.from(frames[0]!, (_, i) => frames.reduce((sum, f) => sum + f[i]!, 0));
    },
  };
}

describe("ToneDetector", () => {
  it("reads a single tone's frequency and level, and nothing else", () => {
    const detector = new ToneDetector();
    feed(sineTone(440, -12), 500, (f) => detector.push(f));
    const tones = detector.latest!.tones;
    expect(tones).toHaveLength(1);
    expect(tones[0]!.frequency).toBeCloseTo(440, 0);
    expect(tones[0]!.levelDb).toBeCloseTo(-12, 0);
    expect(detector.hears(440)).toBe(true);
    expect(detector.hears(1000)).toBe(false);
  });

  it("reads off-bin frequencies to within a hertz", () => {
    for (const frequency of [333.3, 697, 1234.5, 2600]) {
      const detector = new ToneDetector();
      feed(sineTone(frequency), 300, (f) => detector.push(f));
      expect(Math.abs(detector.dominant()!.frequency - frequency)).toBeLessThan(1);
    }
  });

  it("reports both tones of a mix (a three-way call), strongest first", () => {
    const detector = new ToneDetector();
    feed(mix(sineTone(440, -12), sineTone(1000, -18)), 500, (f) => detector.push(f));
    const tones = detector.latest!.tones;
    expect(tones.map((t) => Math.round(t.frequency))).toEqual([440, 1000]);
    expect(tones[1]!.levelDb).toBeCloseTo(-18, 0);
  });

  it("keeps finding the tone in noise, without inventing others", () => {
    const detector = new ToneDetector();
    // Noise 6 dB below the tone's RMS level across the whole band.
    feed(withNoise(sineTone(1000, -12), -21), 1000, (f) => detector.push(f));
    expect(detector.presence(1000, 500)).toBe(1);
    for (const analysis of detector.recent(500)) expect(analysis.tones).toHaveLength(1);
  });

  it("hears no tone in silence or in plain noise", () => {
    const silence = new ToneDetector();
    feed({ label: "silence", nextFrame: () => null }, 500, (f) => silence.push(f));
    expect(silence.latest!.tones).toEqual([]);
    const noise = new ToneDetector();
    feed(withNoise(null, -20, 7), 2000, (f) => noise.push(f));
    expect(noise.history.every((a) => a.tones.length === 0)).toBe(true);
    expect(noise.latest!.levelDb).toBeGreaterThan(-25);
  });

  it("follows a tone that stops", () => {
    const detector = new ToneDetector();
    feed(new ToneGenerator({ frequencies: [600], cadenceMs: [400, 10_000] }), 800, (f) => detector.push(f));
    expect(detector.hears(600)).toBe(false);
    expect(detector.history.some((a) => a.tones.some((t) => Math.round(t.frequency) === 600))).toBe(true);
  });
});
