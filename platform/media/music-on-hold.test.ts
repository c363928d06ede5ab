import { describe, expect, it } from "vitest";
import { busyTone, ringbackTone } from "./call-progress-tones";
import { HOLD_MUSIC_NOTES, HoldMusic, recognizesHoldMusic } from "./music-on-hold";
import { ToneDetector } from "./tone-detector";
import { sineTone } from "./tone-generator";
import { feed, withNoise } from "./test-helpers";
import type { FrameSource } from "./frame";

function analysesOf(source: FrameSource, ms: number) {
  const detector = new ToneDetector();
  feed(source, ms, (f) => detector.push(f));
  return detector.recent(2500);
}

describe("hold music", () => {
  it("is recognised as hold music", () => {
    expect(recognizesHoldMusic(analysesOf(new HoldMusic(), 3000))).toBe(true);
  });

  it("moves through the melody's notes rather than holding one frequency", () => {
    const dominant = new Set(analysesOf(new HoldMusic(), 3000).map((a) => Math.round(a.tones[0]?.frequency ?? 0)));
    const notes = HOLD_MUSIC_NOTES.filter((n) => [...dominant].some((d) => Math.abs(d - n) < n * 0.015));
    expect(notes).toHaveLength(HOLD_MUSIC_NOTES.length);
  });

  it("is still recognised in noise", () => {
    expect(recognizesHoldMusic(analysesOf(withNoise(new HoldMusic(), -35), 3000))).toBe(true);
  });

  it("is not confused with a test tone, ringback, busy tone, silence or noise", () => {
    expect(recognizesHoldMusic(analysesOf(sineTone(440), 3000))).toBe(false);
    expect(recognizesHoldMusic(analysesOf(sineTone(523.25), 3000))).toBe(false);
    expect(recognizesHoldMusic(analysesOf(ringbackTone(), 3000))).toBe(false);
    expect(recognizesHoldMusic(analysesOf(busyTone(), 3000))).toBe(false);
    expect(recognizesHoldMusic(analysesOf({ label: "silence", nextFrame: () => null }, 3000))).toBe(false);
    expect(recognizesHoldMusic(analysesOf(withNoise(null, -20), 3000))).toBe(false);
  });
});
