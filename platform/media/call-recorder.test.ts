import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SAMPLE_RATE, type Frame } from "./frame";
import type { MediaPlane } from "./media-plane";
import { completeCutRecording } from "./call-recorder";
import { manualPlane, runTicks } from "./test-helpers";
import { ToneDetector } from "./tone-detector";
import { sineTone } from "./tone-generator";
import { parseWav, readWav } from "./wav-reader";
import { WAV_HEADER_BYTES, wavHeader } from "./wav-format";

let dir: string;
let plane: MediaPlane;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentbar-recording-"));
  plane = manualPlane();
});
afterEach(async () => {
  await plane.close();
  await rm(dir, { recursive: true, force: true });
});

function dominantOf(samples: Int16Array): number {
  const detector = new ToneDetector();
  for (let i = 0; i + 480 <= samples.length; i += 480) detector.push(samples.subarray(i, i + 480));
  return Math.round(detector.dominant()!.frequency);
}

describe("call recording", () => {
  it("writes one channel per side, sample for sample, with a correct header", async () => {
    const agent = plane.createParty("agent", sineTone(440));
    const customer = plane.createParty("customer", sineTone(1000));
    plane.bridge(agent, customer);
    const said: Frame[] = [];
    const heard: Frame[] = [];
    agent.tap((s, h) => {
      said.push(s!);
      heard.push(h);
    });
    const path = join(dir, "call.wav");
    const recorder = plane.record(agent, path, { flushFrames: 7 });
    runTicks(plane, 1230);
    const recording = await recorder.stop();

    expect(recording.frames).toBe(123);
    expect(recording.durationMs).toBe(1230);
    expect((await stat(path)).size).toBe(recording.bytes);
    const header = (await readFile(path)).subarray(0, WAV_HEADER_BYTES);
    expect(header.equals(wavHeader(SAMPLE_RATE, 2, 123 * 480 * 4))).toBe(true);

    const wav = await readWav(path);
    expect(wav.sampleRate).toBe(48_000);
    expect(wav.truncatedHeader).toBe(false);
    expect(wav.channels).toHaveLength(2);
    expect(wav.channels[0]).toEqual(concat(said));
    expect(wav.channels[1]).toEqual(concat(heard));
    expect(dominantOf(wav.channels[0]!)).toBe(440);
    expect(dominantOf(wav.channels[1]!)).toBe(1000);
  });

  it("completes the file when the recorded endpoint hangs up, and stop() then returns that result", async () => {
    const agent = plane.createParty("agent", sineTone(440));
    const recorder = plane.record(agent, join(dir, "hangup.wav"));
    runTicks(plane, 500);
    agent.close();
    runTicks(plane, 500);
    const recording = await recorder.stop();
    expect(recording.frames).toBe(50);
    const wav = await readWav(recording.path);
    expect(wav.channels[0]!.length).toBe(50 * 480);
    expect(wav.channels[1]!.every((s) => s === 0)).toBe(true);
  });

  it("reads a file whose recording never completed its header", async () => {
    const samples = Buffer.alloc(480 * 4);
    samples.writeInt16LE(1234, 0);
    samples.writeInt16LE(-5678, 2);
    const path = join(dir, "cut.wav");
    await writeFile(path, Buffer.concat([wavHeader(SAMPLE_RATE, 2, 0), samples]));
    const wav = await readWav(path);
    expect(wav.truncatedHeader).toBe(true);
    expect(wav.channels[0]![0]).toBe(1234);
    expect(wav.channels[1]![0]).toBe(-5678);
    expect(wav.channels[0]!.length).toBe(480);
  });

  it("gives a recording cut off by a crash its true length, to its last whole sample", async () => {
    const path = join(dir, "crashed.wav");
    const samples = Buffer.alloc(1000 * 4 + 3);
    for (let i = 0; i < 1000; i++) samples.writeInt16LE(i, 4 * i);
    await writeFile(path, Buffer.concat([wavHeader(SAMPLE_RATE, 2, 0), samples]));
    expect(await completeCutRecording(path)).toEqual({ durationMs: 21, bytes: WAV_HEADER_BYTES + 4000 });
    const bytes = await readFile(path);
    expect(bytes.length).toBe(WAV_HEADER_BYTES + 4000);
    expect(bytes.subarray(0, WAV_HEADER_BYTES).equals(wavHeader(SAMPLE_RATE, 2, 4000))).toBe(true);
    const wav = parseWav(bytes);
    expect(wav.truncatedHeader).toBe(false);
    expect(wav.channels[0]![999]).toBe(999);

    // Nothing (or less than a header) on disk: an empty recording that still plays.
    const empty = join(dir, "never-written.wav");
    expect(await completeCutRecording(empty)).toEqual({ durationMs: 0, bytes: WAV_HEADER_BYTES });
    expect(parseWav(await readFile(empty)).channels[0]).toHaveLength(0);
  });

  it("refuses what is not 16-bit PCM WAV", () => {
    expect(() => parseWav(Buffer.from("RIFF\0\0\0\0AVI LIST"))).toThrow(/RIFF\/WAVE/);
    const float = wavHeader(SAMPLE_RATE, 1, 0);
    float.writeUInt16LE(3, 20);
    expect(() => parseWav(float)).toThrow(/unsupported/);
  });
});

function concat(frames: Frame[]): Int16Array {
  const out = new Int16Array(frames.length * 480);
  frames.forEach((f, i) => out.set(f, i * 480));
  return out;
}
