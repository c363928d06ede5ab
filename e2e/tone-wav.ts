import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wavHeader } from "../platform/media/wav-format";

/**
 * A 48 kHz mono 16-bit WAV of a sine tone (10 s; Chromium loops its fake microphone file), for
 * the end-to-end tests and the browser benchmarks: each party's microphone says its own tone.
 */
export function toneWav(frequency: number): string {
  const dir = join(tmpdir(), "agentbar-tones");
  const path = join(dir, `${frequency}hz.wav`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const rate = 48000;
  const samples = Buffer.alloc(rate * 10 * 2);
  for (let i = 0; i < rate * 10; i++)
    samples.writeInt16LE(Math.round(Math.sin((2 * Math.PI * frequency * i) / rate) * 0.4 * 32767), i * 2);
  // Written under another name first: parallel workers may ask for the same tone.
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, Buffer.concat([wavHeader(rate, 1, samples.length), samples]));
  renameSync(partial, path);
  return path;
}
