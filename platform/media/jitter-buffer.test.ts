import { describe, expect, it } from "vitest";
import { JitterBuffer } from "./jitter-buffer";

const frame = (marker: number) => new Int16Array(480).fill(marker);

describe("JitterBuffer", () => {
  it("plays frames in order and absorbs a burst", () => {
    const buffer = new JitterBuffer();
    expect(buffer.pull()).toBeNull(); // nothing yet: call setup, not an underrun
    for (const m of [1, 2, 3]) buffer.push(frame(m));
    expect([buffer.pull()![0], buffer.pull()![0], buffer.pull()![0]]).toEqual([1, 2, 3]);
    expect(buffer.stats()).toMatchObject({ received: 3, played: 3, underruns: 0, overruns: 0, depth: 0 });
  });

  it("starts with the first frame with sound: the decoder's silence before it is not queued in front of it", () => {
    const buffer = new JitterBuffer();
    for (let i = 0; i < 3; i++) buffer.push(frame(0)); // a burst of what a decoder hands over before its first packet
    buffer.push(frame(7));
    expect(buffer.pull()![0]).toBe(7);
    // Once started, silence is audio like any other and keeps its place.
    buffer.push(frame(0));
    buffer.push(frame(8));
    expect([buffer.pull()![0], buffer.pull()![0]]).toEqual([0, 8]);
    expect(buffer.stats()).toMatchObject({ received: 3, played: 3, underruns: 0 });
  });

  it("plays silence on underrun and counts it", () => {
    const buffer = new JitterBuffer();
    buffer.push(frame(1));
    buffer.pull();
    expect(buffer.pull()).toBeNull();
    expect(buffer.pull()).toBeNull();
    expect(buffer.stats().underruns).toBe(2);
  });

  it("drops the oldest frames when full", () => {
    const buffer = new JitterBuffer({ capacity: 4 });
    for (let m = 1; m <= 6; m++) buffer.push(frame(m));
    expect(buffer.stats()).toMatchObject({ overruns: 2, depth: 4 });
    expect(buffer.pull()![0]).toBe(3);
  });

  it("trims latency that a burst left behind, back to the target depth", () => {
    const buffer = new JitterBuffer({ capacity: 20, targetDepth: 2, trimWindow: 10 });
    for (let m = 1; m <= 8; m++) buffer.push(frame(m)); // a burst of 8
    let next = 9;
    for (let i = 0; i < 10; i++) {
      buffer.pull();
      buffer.push(frame(next++)); // then steady: one in, one out
    }
    // Every read of the window found 8 frames queued: the 6 over the target are dropped.
    expect(buffer.stats()).toMatchObject({ trimmed: 6, depth: 2 });
    for (let i = 0; i < 10; i++) {
      buffer.pull();
      buffer.push(frame(next++));
    }
    expect(buffer.stats().trimmed).toBe(6);
  });

  it("forgets queued audio on clear", () => {
    const buffer = new JitterBuffer();
    buffer.push(frame(1));
    buffer.clear();
    expect(buffer.pull()).toBeNull();
  });
});
