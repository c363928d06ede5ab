/**
 * How many concurrent phone-to-phone calls with two-way media the platform's soft-switch carries
 * on this machine before its media clock misses the 10 ms cadence on more than 1 % of frames, and
 * the CPU each call costs.
 *
 * One call = a sip.js phone calling another through the platform: REGISTER with digest, INVITE
 * (407 and retry), the B2BUA ringing the callee, 200, and then two WebRTC legs in the platform
 * (one per phone) bridged by its mixer, with Opus encoded and decoded on all four ends. The
 * phones run in a child process (bench/sip-bench-phones.ts) so that the clock and CPU figures are
 * the platform's own; both processes share this machine's cores.
 *
 * Calls are added in steps; after each step the platform's clock cadence and CPU are measured,
 * and a sample of calls is checked end to end (the caller hears the callee's 1000 Hz, the callee
 * the caller's 440 Hz). A step that misses the budget is measured once more; a second miss ends
 * the ramp (one stall of a shared machine does not set the limit).
 *
 * Run: npm run bench -- switch-capacity   (or npx tsx bench/switch-capacity.bench.ts [--step 4] [--max 80] [--measure 5])
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPlatform, type Platform } from "../platform/platform";
import type { PhoneReply, PhoneRequest } from "./sip-bench-phones";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1]! : fallback;
}

const STEP = Number(option("step", "4"));
const MAX_CALLS = Number(option("max", "80"));
const MEASURE_MS = Number(option("measure", "5")) * 1000;
const SETTLE_MS = 2000;
const BUDGET = 0.01;
const PASSWORD = "BenchPhone2026";
const FIRST_EXTENSION = 4000;

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

const entry = fileURLToPath(new URL("./sip-bench-phones.ts", import.meta.url));
const child = fork(entry, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const pending = new Map<number, (reply: PhoneReply) => void>();
let nextId = 0;
child.on("message", (reply: PhoneReply) => pending.get(reply.id)?.(reply));

function ask(request: WithoutId<PhoneRequest>): Promise<PhoneReply> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, (reply) => {
      pending.delete(id);
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply);
    });
    child.send({ ...request, id });
  });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dataDir = mkdtempSync(join(tmpdir(), "agentbar-bench-"));
let platform: Platform | undefined;
const calls: number[] = [];

async function mediaCheck(): Promise<string> {
  const sample = [...new Set([0, Math.floor(calls.length / 2), calls.length - 1])].map((i) => calls[i]!);
  const heard = (await ask({ op: "check", calls: sample })).heard!;
  const ok = sample.every(
    (_, i) => Math.abs((heard[2 * i] ?? 0) - 1000) < 5 && Math.abs((heard[2 * i + 1] ?? 0) - 440) < 5,
  );
  return ok ? "ok" : `WRONG ${JSON.stringify(heard.map((f) => f && Math.round(f)))}`;
}

async function measure(p: Platform): Promise<{ missedRatio: number; perCall: number; media: string; row: string }> {
  const media = p.ctx.media;
  const underruns = () => media.stats().legs.reduce((sum, leg) => sum + leg.jitter.underruns, 0);
  const underrunsBefore = underruns();
  media.clock.resetStats();
  const cpuBefore = process.cpuUsage();
  const phonesBefore = (await ask({ op: "cpu" })).cpuMicros!;
  const started = performance.now();
  await wait(MEASURE_MS);
  const cpu = process.cpuUsage(cpuBefore);
  const phonesAfter = (await ask({ op: "cpu" })).cpuMicros!;
  const wall = performance.now() - started;
  const stats = media.clock.stats();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const perCall = cpuMs / (wall / 1000) / calls.length;
  const check = await mediaCheck();
  const row = [
    String(calls.length).padStart(5),
    String(media.stats().legs.length).padStart(5),
    (stats.missedRatio * 100).toFixed(2).padStart(8),
    String(stats.framesLate).padStart(5),
    String(stats.framesSkipped).padStart(8),
    stats.maxLatenessMs.toFixed(1).padStart(11),
    ((cpuMs / wall) * 100).toFixed(0).padStart(14),
    perCall.toFixed(1).padStart(14),
    (((phonesAfter - phonesBefore) / 1000 / wall) * 100).toFixed(0).padStart(12),
    String(underruns() - underrunsBefore).padStart(10),
    ` ${check}`,
  ].join(" ");
  return { missedRatio: stats.missedRatio, perCall, media: check, row };
}

async function main(): Promise<void> {
  const p = await startPlatform({
    port: 0,
    host: "127.0.0.1",
    dataDir,
    logLevel: "silent",
    simApi: "off",
    sipRateBurst: 1000,
    sipRatePerSecond: 1000,
    sipSourceRateBurst: 1000,
    sipSourceRatePerSecond: 1000,
    // The phones all come from this machine, standing in for as many as there are callers.
    sipSourceShare: 1,
  });
  platform = p;
  const domain = p.ctx.users.defaultDomain();
  const extensions: string[] = [];
  for (let i = 0; i < 2 * MAX_CALLS; i++) {
    const extn = String(FIRST_EXTENSION + i);
    p.ctx.users.insertExtension({ extn, domain, password: PASSWORD, name: `Bench ${extn}` });
    extensions.push(extn);
  }

  const cores = cpus();
  console.log(
    `machine: ${cores.length} x ${cores[0]?.model ?? "?"}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} at start`,
  );
  console.log(
    `switch capacity: sip.js phones in a child process, each call phone -> platform (B2BUA, media anchored) -> phone; ` +
      `step ${STEP} calls, settle ${SETTLE_MS} ms, measure ${MEASURE_MS} ms; budget ${BUDGET * 100} % of 10 ms frames late or skipped`,
  );
  console.log(
    "calls  legs  missed%  late  skipped  maxLate ms  platform CPU%  per call ms/s  phones CPU%  underruns  media",
  );
  let sustained = 0;
  let perCallAtLimit = 0;
  let registered = 0;
  while (calls.length + STEP <= MAX_CALLS) {
    const needed = 2 * (calls.length + STEP);
    await ask({
      op: "phones",
      url: p.url,
      domain,
      password: PASSWORD,
      extensions: extensions.slice(registered, needed),
    });
    registered = needed;
    for (let i = 0; i < STEP; i++) {
      const n = calls.length;
      calls.push((await ask({ op: "call", from: extensions[2 * n]!, to: extensions[2 * n + 1]! })).call!);
    }
    await wait(SETTLE_MS);
    let result = await measure(p);
    console.log(result.row);
    if (result.missedRatio > BUDGET && result.media === "ok") {
      result = await measure(p);
      console.log(`${result.row}  (measured again)`);
    }
    if (result.missedRatio > BUDGET || result.media !== "ok") break;
    sustained = calls.length;
    perCallAtLimit = result.perCall;
  }
  console.log("");
  // The ramp stopped at a step that missed the budget, or ran out of steps at --max.
  const limitFound = sustained < calls.length;
  if (calls.length === 0)
    console.log(`result: nothing measured: --max ${MAX_CALLS} is below one step of ${STEP} calls`);
  else if (sustained === 0) console.log(`result: not even ${STEP} calls kept the cadence within ${BUDGET * 100} %`);
  else
    console.log(
      `result: ${limitFound ? "" : "at least "}${sustained} concurrent phone-to-phone calls through the switch (${sustained * 2} media legs in the platform) ` +
        `with the clock missing <= ${BUDGET * 100} % of 10 ms frames; platform CPU per call ${perCallAtLimit.toFixed(1)} ms per second = ` +
        `${(perCallAtLimit / 10).toFixed(2)} % of one core (signalling, media, mixing)` +
        (limitFound ? "" : `; the ramp reached --max ${MAX_CALLS} within the budget, raise --max to find the limit`),
    );
}

async function shutdown(code: number): Promise<never> {
  await ask({ op: "close" }).catch(() => undefined);
  child.disconnect();
  await platform?.close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
  await wait(300);
  // A natural exit crashes inside wrtc's native teardown.
  process.exit(code);
}

main().then(
  () => shutdown(0),
  (error: unknown) => {
    console.error(error);
    return shutdown(1);
  },
);
