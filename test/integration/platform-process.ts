import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PlatformOptions } from "../../platform/config";

const child = join(dirname(fileURLToPath(import.meta.url)), "platform-child.ts");

/** A platform started in a child process (`platform-child.ts`) on free ports, with its own data folder. */
export class PlatformProcess {
  private constructor(
    private readonly process: ChildProcess,
    readonly url: string,
  ) {}

  static async start(options: Partial<PlatformOptions> = {}): Promise<PlatformProcess> {
    const proc = fork(child, [JSON.stringify(options)], { execArgv: ["--import", "tsx"], stdio: "inherit" });
    const url = await new Promise<string>((resolve, reject) => {
      proc.once("message", (m) => resolve((m as { url: string }).url));
      proc.once("exit", (code) => reject(new Error(`the platform process exited with ${code} before it listened`)));
    });
    return new PlatformProcess(proc, url);
  }

  /** The process's resident memory now, bytes (Linux: /proc). */
  rss(): number {
    const status = readFileSync(`/proc/${this.process.pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN) * 1024;
  }

  async close(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.send("close");
    await exited;
  }
}
