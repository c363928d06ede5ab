import { describe, expect, it } from "vitest";
import type { CallStatsSample } from "./call-stats";
import { OneWayAudioDetector } from "./one-way-audio";

function reading(
  at: number,
  packetsReceived: number,
  levels: Partial<Pick<CallStatsSample, "receivedLevel" | "remoteSentLevel">> = {},
): CallStatsSample {
  return {
    at,
    packetsReceived,
    packetsLost: 0,
    bytesReceived: packetsReceived * 80,
    packetsSent: at / 20,
    bytesSent: at * 4,
    ...levels,
  };
}

describe("OneWayAudioDetector", () => {
  it("says so once no packet has arrived for 3 s, dating it from the last one", () => {
    const d = new OneWayAudioDetector();
    expect(d.update(reading(1000, 50), false)).toEqual({ flowing: false });
    expect(d.update(reading(2000, 100), false)).toEqual({ flowing: true });
    expect(d.update(reading(3000, 100), false)).toEqual({ flowing: false });
    expect(d.update(reading(4000, 100), false).problem).toBeUndefined();
    expect(d.update(reading(5000, 100), false)).toEqual({
      flowing: false,
      problem: { reason: "no-packets", since: 2000 },
    });
    // Audio comes back: over.
    expect(d.update(reading(6000, 150), false)).toEqual({ flowing: true });
  });

  it("expects no audio while the call is held, nor right after", () => {
    const d = new OneWayAudioDetector();
    d.update(reading(1000, 50), false);
    for (let at = 2000; at <= 8000; at += 1000) expect(d.update(reading(at, 50), true).problem).toBeUndefined();
    // Resumed at 8 s: the 3 s count from there.
    expect(d.update(reading(9000, 50), false).problem).toBeUndefined();
    expect(d.update(reading(10000, 50), false).problem).toBeUndefined();
    expect(d.update(reading(11000, 50), false).problem).toEqual({ reason: "no-packets", since: 8000 });
  });

  it("says so when packets play as silence for 3 s while the far end says it sends sound", () => {
    const d = new OneWayAudioDetector();
    const muffled = { receivedLevel: 0.0001, remoteSentLevel: 0.05 };
    d.update(reading(1000, 50, { receivedLevel: 0.05, remoteSentLevel: 0.05 }), false);
    expect(d.update(reading(2000, 100, muffled), false)).toEqual({ flowing: false });
    d.update(reading(3000, 150, muffled), false);
    expect(d.update(reading(4000, 200, muffled), false)).toEqual({
      flowing: false,
      problem: { reason: "no-sound", since: 1000 },
    });
  });

  it("takes silence for silence when the far end says it is quiet too, or says nothing", () => {
    const d = new OneWayAudioDetector();
    for (let i = 1; i <= 8; i++) {
      const levels = i % 2 ? { receivedLevel: 0.0001, remoteSentLevel: 0.0001 } : { receivedLevel: 0.0001 };
      expect(d.update(reading(i * 1000, i * 50, levels), false).problem).toBeUndefined();
    }
  });

  it("starts counting again from a reset (the media path was renegotiated)", () => {
    const d = new OneWayAudioDetector();
    d.update(reading(1000, 50), false);
    d.update(reading(2000, 50), false);
    d.reset(3500);
    expect(d.update(reading(4000, 50), false).problem).toBeUndefined();
    expect(d.update(reading(6000, 50), false).problem).toBeUndefined();
    expect(d.update(reading(6500, 50), false).problem).toEqual({ reason: "no-packets", since: 3500 });
  });
});
