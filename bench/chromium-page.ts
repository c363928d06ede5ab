/**
 * What the browser benchmarks share: the build of the app, the system Chromium with fake media,
 * a script run in the page before the app, command-line options and the figures' statistics.
 */
import { chromium, type Browser } from "@playwright/test";
import { execSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumLaunchOptions } from "../e2e/chromium";
import { toneWav } from "../e2e/tone-wav";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** `--<name> <number>` on the command line, else `fallback`. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Builds the app into dist/, which the local platform serves; `readable`: not minified, so that a CPU profile names the functions it shows. */
export function buildApp(o: { readable?: boolean } = {}): void {
  execSync(`npx vite build --logLevel error${o.readable ? " --minify false" : ""}`, { cwd: root, stdio: "inherit" });
}

/** The system Chromium (CHROMIUM_PATH to use another), its microphone saying `microphoneHz`. */
export function launchChromium(microphoneHz: number): Promise<Browser> {
  return chromium.launch({
    ...chromiumLaunchOptions,
    args: [...chromiumLaunchOptions.args, `--use-file-for-fake-audio-capture=${toneWav(microphoneHz)}`],
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
