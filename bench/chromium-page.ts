/**
 * What the browser benchmarks share: the build of the app, the system Chromium with fake media,
 * a script run in the page before the app, command-line options and the figures' statistics.
 */
import { chromium, type Browser } from "@playwright/test";
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** `--<name> <number>` on the command line, else `fallback`. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Builds the app into dist/, which the local platform serves. */
export function buildApp(): void {
  execSync("npx vite build --logLevel error", { cwd: root, stdio: "inherit" });
}

/** A 10 s sine tone as a WAV file, for Chromium's fake microphone. */
export function toneWav(frequency: number): string {
  const dir = join(tmpdir(), "agentbar-tones");
  const path = join(dir, `${frequency}hz.wav`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const rate = 48000;
  const n = rate * 10;
  const wav = Buffer.alloc(44 + n * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + n * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * frequency * i) / rate) * 0.4 * 32767), 44 + i * 2);
  writeFileSync(path, wav);
  return path;
}

/** The system Chromium (CHROMIUM_PATH to use another), its microphone saying `microphoneHz`. */
export function launchChromium(microphoneHz: number): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      "--allow-loopback-in-peer-connection",
      "--autoplay-policy=no-user-gesture-required",
      `--use-file-for-fake-audio-capture=${toneWav(microphoneHz)}`,
    ],
  });
}

/** `fn` as an init script (page.addInitScript): tsx keeps function names with a `__name` helper that the page does not have. */
export function initScript(fn: () => void): { content: string } {
  return { content: `var __name = (f) => f; (${fn.toString()})();` };
}

export function stats(values: number[]): { median: number; p95: number; n: number } {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

export const ms = (v: number) => `${v.toFixed(0)} ms`;
