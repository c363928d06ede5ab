/**
 * What an agent notices while someone on the LAN floods the platform (issue: hostile input
 * changes nothing). The platform runs in a child process of its own, the attacker in another
 * (`flood-child.ts`); this process is the agent. For each phase, on a fresh platform, it prints the agent's REST round trips (its agent_state, one
 * request after another: median, p95, max), how long a call to a registered phone takes to ring
 * it (the caller's POST /sim/calls to the INVITE at the phone), and the platform's resident
 * memory (at the start, at its peak):
 *
 * - baseline: no flood;
 * - /ws batches, unread: 4 JSON-RPC sockets (2 never logged in, 2 logged in as agents) sending
 *   62 KiB frames of 21,000 empty requests and never reading what comes back;
 * - big SIP messages: 6 SIP sockets from another address sending 250 KB REGISTERs with about
 *   9,000 Contact headers, one after another;
 * - REGISTER flood: 20 SIP sockets from another address sending 3,900 REGISTERs a second in all.
 *
 * Run: npm run bench -- floods   (options: npx tsx bench/floods.bench.ts [--seconds 10] [--only <phase>],
 * a phase by a word of its name: baseline, ws, big, register)
 */
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { defaultOptions } from "../platform/config";
import { statelessResponse } from "../platform/sip/wire";
import { RestAgent, signIn } from "../test/integration/floods";
import { DEMO_DOMAIN } from "../test/integration/harness";
import { PlatformProcess } from "../test/integration/platform-process";
import { RawSip, rawRegister, newId, statusOf } from "../test/integration/sip-raw";
import type { FloodReport, FloodRequest } from "./flood-child";
import { runBench } from "./run-bench";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}
const SECONDS = Number(option("seconds") ?? 10);
const ONLY = option("only");
/** Another address of this machine: the attacker's. */
const ATTACKER = "127.0.0.2";
/** The /ws phase stops early past this (the platform before its bounds took gigabytes). */
const RSS_CEILING = 4 * 1024 ** 3;
const here = dirname(fileURLToPath(import.meta.url));

/** A flood run by a child process: stopping it says what it sent and got back. */
interface Flood {
  stop(): Promise<FloodReport>;
}

async function startFlood(request: FloodRequest): Promise<Flood> {
  const child = fork(join(here, "flood-child.ts"), [JSON.stringify(request)], { execArgv: ["--import", "tsx"] });
  await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the flood process exited with ${code}`)));
  });
  let report: Promise<FloodReport> | undefined;
  return {
    stop: () =>
      (report ??= new Promise<FloodReport>((resolve) => {
        child.once("message", (m) => resolve(m as FloodReport));
        child.send("stop");
      })),
  };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
const ms = (v: number) => (!Number.isFinite(v) ? "over 30 s" : v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);

let platform: PlatformProcess | undefined;
let phone: RawSip | undefined;

/** Extension 1001's phone, registered from this machine's usual address; says busy to every call. */
async function registeredPhone(url: string): Promise<{ sip: RawSip; rang: () => Promise<number> }> {
  const { extensionPassword } = JSON.parse(readFileSync(defaultOptions.demoFile, "utf8")) as {
    extensionPassword: string;
  };
  const sip = await RawSip.open(url, "/sip");
  const answer = await rawRegister(sip, {
    extension: "1001",
    password: extensionPassword,
    domain: DEMO_DOMAIN,
    contactUser: newId(),
    expires: 3600,
  });
  if (statusOf(answer) !== 200) throw new Error(`the phone did not register: ${answer.split("\r\n")[0]}`);
  let ringing: ((at: number) => void) | undefined;
  sip.ws.on("message", (data) => {
    const text = data.toString();
    if (!text.startsWith("INVITE ")) return;
    ringing?.(performance.now());
    const busy = statelessResponse(text, 486, "Busy Here");
    if (busy) sip.send(busy);
  });
  /** Places a call to 1001; how long until its INVITE reached the phone, ms (Infinity: not in 30 s). */
  const rang = async () => {
    const started = performance.now();
    const heard = new Promise<number>((resolve) => {
      ringing = resolve;
      setTimeout(() => resolve(Infinity), 30_000);
    });
    const placed = fetch(`${url}/sim/calls`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ destination: "1001" }),
      signal: AbortSignal.timeout(30_000),
    }).then(
      (res) => res.arrayBuffer(),
      () => undefined,
    );
    const at = await heard;
    await placed;
    return at - started;
  };
  return { sip, rang };
}

interface Phase {
  name: string;
  rest: number[];
  rings: number[];
  rssStart: number;
  rssPeak: number;
  note: string;
}

async function phase(
  name: string,
  p: PlatformProcess,
  agent: { url: string; token: string },
  rang: () => Promise<number>,
  flood?: FloodRequest,
): Promise<Phase> {
  const rssStart = p.rss();
  let rssPeak = rssStart;
  let note = "";
  const running = flood && (await startFlood(flood));
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, p.rss());
    if (rssPeak > RSS_CEILING && !note) {
      note = `stopped early at ${mb(rssPeak)}`;
      void running?.stop();
    }
  }, 100);
  // Let the flood take hold first.
  if (running) await wait(1000);
  const rest = new RestAgent(agent.url, agent.token);
  rest.start();
  const rings: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until && !note) {
    rings.push(await rang());
    await wait(500);
  }
  const times = await rest.stop();
  const notes = [note, rest.failures ? `${rest.failures} REST requests failed or were given up after 30 s` : ""];
  clearInterval(sampler);
  if (running) {
    const r = await running.stop();
    notes.push(
      `the flood sent ${r.sent.toLocaleString("en")} frames, got ${r.answers.toLocaleString("en")} answers, had ${r.closedByPlatform} connections closed by the platform`,
    );
  }
  return { name, rest: times, rings, rssStart, rssPeak, note: notes.filter(Boolean).join("; ") };
}

function print(r: Phase): void {
  console.log(
    `${r.name}: REST median ${ms(percentile(r.rest, 50))}, p95 ${ms(percentile(r.rest, 95))}, max ${ms(Math.max(...r.rest))} (${r.rest.length} requests); ` +
      `a call rings the phone in median ${ms(percentile(r.rings, 50))}, max ${ms(Math.max(...r.rings))} (${r.rings.length} calls); ` +
      `platform RSS ${mb(r.rssStart)} at the start, peak ${mb(r.rssPeak)}` +
      (r.note ? `; ${r.note}` : ""),
  );
}

/** One phase on a platform of its own, so that no phase inherits another's backlog or memory. */
async function onFreshPlatform(
  name: string,
  flood?: (url: string, tokens: (string | undefined)[]) => FloodRequest,
): Promise<void> {
  if (ONLY && !name.includes(ONLY)) return;
  platform = await PlatformProcess.start({ simRingMs: 300 });
  const url = platform.url;
  const registered = await registeredPhone(url);
  phone = registered.sip;
  const agent = { url, token: await signIn(url, "agent1") };
  const tokens = [undefined, undefined, await signIn(url, "agent2"), await signIn(url, "agent3")];
  // Warm up: JIT, the first requests, the first call.
  for (let i = 0; i < 20; i++) await new RestAgent(url, agent.token).request();
  await registered.rang();
  print(await phase(name, platform, agent, registered.rang, flood?.(url, tokens)));
  phone.close();
  phone = undefined;
  await platform.close();
  platform = undefined;
}

await runBench(
  "floods",
  async () => {
    console.log(`${SECONDS} s per phase, each on a fresh platform in a process of its own`);
    await onFreshPlatform("baseline, no flood");
    await onFreshPlatform("/ws batches, unread", (url, tokens) => ({
      kind: "unread-batches",
      url,
      sockets: 4,
      tokens,
    }));
    await onFreshPlatform("big SIP messages", (url) => ({
      kind: "big-sip",
      url,
      sockets: 6,
      bytes: 250_000,
      localAddress: ATTACKER,
    }));
    await onFreshPlatform("REGISTER flood", (url) => ({
      kind: "register-flood",
      url,
      sockets: 20,
      perSecond: 195,
      localAddress: ATTACKER,
    }));
  },
  async () => {
    phone?.close();
    await platform?.close();
  },
);
