import { describe, expect, it } from "vitest";
import { DtmfDetector } from "./dtmf-detector";
import { DtmfGenerator } from "./dtmf-generator";
import { HoldMusic } from "./music-on-hold";
import { ToneGenerator } from "./tone-generator";
import { feed, withNoise } from "./test-helpers";

function receive(digits: string, options?: ConstructorParameters<typeof DtmfGenerator>[1], noiseDb?: number): string {
  const detector = new DtmfDetector();
  const generator = new DtmfGenerator(digits, options);
  const source = noiseDb === undefined ? generator : withNoise(generator, noiseDb);
  feed(source, (digits.length + 2) * ((options?.toneMs ?? 100) + (options?.gapMs ?? 100)), (f) => detector.push(f));
  return detector.digits;
}

describe("DtmfDetector", () => {
  it("receives every key of the keypad", () => {
    expect(receive("123A456B789C*0#D")).toBe("123A456B789C*0#D");
  });

  it("counts repeated digits once per press", () => {
    expect(receive("1122##00", { toneMs: 60, gapMs: 50 })).toBe("1122##00");
  });

  it("receives the shortest standard timing: 40 ms tone, 40 ms pause", () => {
    expect(receive("9955*", { toneMs: 40, gapMs: 40 })).toBe("9955*");
  });

  it("counts repeated digits at minimal pauses not aligned to frames", () => {
    expect(receive("7777", { toneMs: 45, gapMs: 45 })).toBe("7777");
  });

  it("does not split a digit in two when a codec glitch distorts 30 ms of it", () => {
    const detector = new DtmfDetector();
    const tone = new DtmfGenerator("5", { toneMs: 300, gapMs: 100 });
    const glitch = withNoise(null, -15, 3);
    for (let i = 0; i < 40; i++) {
      const frame = tone.nextFrame() ?? new Int16Array(480);
      detector.push(i >= 10 && i < 13 ? glitch.nextFrame()! : frame);
    }
    expect(detector.digits).toBe("5");
  });

  it("receives digits in noise 10 dB below the tones", () => {
    expect(receive("5*08#", {}, -25)).toBe("5*08#");
  });

  it("ignores a tone pulse too short to be a key press", () => {
    expect(receive("7", { toneMs: 8, gapMs: 100 })).toBe("");
  });

  it("ignores single tones, dial-tone-like pairs and hold music", () => {
    const detector = new DtmfDetector();
    feed(new ToneGenerator({ frequencies: [697] }), 500, (f) => detector.push(f));
    feed(new ToneGenerator({ frequencies: [350, 440] }), 500, (f) => detector.push(f));
    feed(new HoldMusic(), 4000, (f) => detector.push(f));
    expect(detector.digits).toBe("");
  });

  it("accepts a pair within the twist limit and rejects one beyond it", () => {
    const pair = (rowDb: number, columnDb: number) => {
      const row = new ToneGenerator({ frequencies: [770], levelDb: rowDb });
      const column = new ToneGenerator({ frequencies: [1336], levelDb: columnDb });
      return {
        label: `770 Hz at ${rowDb} dB + 1336 Hz at ${columnDb} dB`,
        nextFrame() {
          const a = row.nextFrame()!;
          const b = column.nextFrame()!;
          return Int16Array.from(a, (s, i) => s + b[i]!);
        },
      };
    };
    const within = new DtmfDetector();
    feed(pair(-6, -12), 300, (f) => within.push(f));
    expect(within.digits).toBe("5");
    const beyond = new DtmfDetector();
    feed(pair(-6, -20), 300, (f) => beyond.push(f));
    expect(beyond.digits).toBe("");
  });

  it("tells listeners each digit once, and take() empties the buffer", () => {
    const detector = new DtmfDetector();
    const seen: string[] = [];
    detector.onDigit((d) => seen.push(d));
    feed(new DtmfGenerator("42"), 500, (f) => detector.push(f));
    expect(seen).toEqual(["4", "2"]);
    expect(detector.take()).toBe("42");
    expect(detector.digits).toBe("");
  });
});
