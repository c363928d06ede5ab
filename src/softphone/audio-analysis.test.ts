import { describe, expect, it } from "vitest";
import { rmsDbfs, SILENCE_DBFS, toneAmplitude, toneOnset } from "./audio-analysis";
import { echoVerdict, loudestTenth } from "./echo-test";

const RATE = 48000;
const sine = (hz: number, amplitude: number, seconds: number, startAt = 0) =>
  Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) =>
    i >= startAt ? amplitude * Math.sin((2 * Math.PI * hz * (i - startAt)) / RATE) : 0,
  );

describe("audio analysis", () => {
  it("reads a sine's RMS level in dBFS, and silence as the floor", () => {
    expect(rmsDbfs(sine(440, 1, 0.1))).toBeCloseTo(-3.01, 1);
    expect(rmsDbfs(sine(440, 0.1, 0.1))).toBeCloseTo(-23.01, 1);
    expect(rmsDbfs(new Float32Array(480))).toBe(SILENCE_DBFS);
  });

  it("measures a tone's amplitude and ignores others", () => {
    const mix = sine(1700, 0.3, 0.02).map((v, i) => v + 0.5 * Math.sin((2 * Math.PI * 1200 * i) / RATE));
    expect(toneAmplitude(mix, 0, mix.length, 1700, RATE)).toBeCloseTo(0.3, 1);
    expect(toneAmplitude(sine(1200, 0.5, 0.02), 0, 960, 1700, RATE)).toBeLessThan(0.01);
  });

  it("finds where a tone starts to within 5 ms, and nothing where it is absent", () => {
    const start = Math.round(0.137 * RATE);
    const onset = toneOnset(sine(1700, 0.3, 0.3, start), 1700, RATE, 0.1)!;
    expect(Math.abs(onset - start) / RATE).toBeLessThan(0.005);
    expect(toneOnset(sine(1200, 0.9, 0.3), 1700, RATE, 0.1)).toBeUndefined();
  });
});

describe("the echo test's reading", () => {
  it("takes the speech level from the loudest tenth of the readings", () => {
    const levels = [...Array(18).fill(-70), -22, -20];
    expect(loudestTenth(levels)).toBe(-22);
    expect(loudestTenth([])).toBe(-90);
  });

  it("judges the delay and the level", () => {
    const r = (roundTripMs: number | undefined, heardBackDbfs: number) => ({
      ...(roundTripMs !== undefined ? { roundTripMs } : {}),
      probesSent: 3,
      probesHeard: 3,
      microphoneDbfs: -20,
      heardBackDbfs,
    });
    expect(echoVerdict(r(180, -25))).toEqual({ delay: "good", level: "good" });
    expect(echoVerdict(r(420, -45))).toEqual({ delay: "fair", level: "quiet" });
    expect(echoVerdict(r(900, -75))).toEqual({ delay: "poor", level: "silent" });
    expect(echoVerdict(r(undefined, -3))).toEqual({ delay: "none", level: "loud" });
  });
});
