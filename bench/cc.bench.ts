/**
 * Call-center figures of the local platform:
 *
 * 1. Offer latency: the time from a customer entering a queue (mod_callcenter's
 *    member-queue-start) to the agent's phone receiving the INVITE, over N calls (median, p95,
 *    max). The phone is sip.js over a real WebSocket in this process; it never answers, the
 *    customer hangs up once the INVITE is in, so no media is set up and the figure is the
 *    engine's and the SIP side's alone.
 * 2. Capacity: how many concurrent queue calls with two-way media (a simulated customer in the
 *    platform, an agent phone with WebRTC and Opus in a child process) the platform carries before
 *    its media clock misses its 10 ms cadence on more than 1 % of frames. Calls are added in
 *    steps; a sample of calls is checked end to end (the agent hears the customer's 660 Hz, the
 *    customer hears the agent's own tone). A step over budget is measured again before it ends
 *    the ramp (the machine may be shared).
 *
 * Run: npm run bench -- cc   (options: npx tsx bench/cc.bench.ts [--calls 50] [--step 5] [--max 60] [--measure 4])
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../platform/auth/passwords";
import { startPlatform, type Platform } from "../platform/platform";
import { DEFAULT_AGENT_INFO } from "../platform/store/users";
import { TestPhone, until } from "../test/integration/sip-phone";
import { AgentPhones } from "./agent-phones";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1]! : fallback;
}

const LATENCY_CALLS = Number(option("calls", "50"));
const STEP = Number(option("step", "5"));
const MAX_CALLS = Number(option("max", "60"));
const MEASURE_MS = Number(option("measure", "4")) * 1000;
const SETTLE_MS = 2000;
const BUDGET = 0.01;
const CUSTOMER_TONE = 660;
const BENCH_PASSWORD = "Bench1234Pass";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const near = (hz: number | null | undefined, target: number) =>
  hz != null && Math.abs(hz - target) <= Math.max(3, target * 0.01);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function offerLatency(platform: Platform): Promise<void> {
  const { engine, queueCallers } = platform.callCenter;
  const db = platform.ctx.db;
  db.prepare("UPDATE users SET agent_info = json_patch(agent_info, ?) WHERE extn = '1001'").run(
    JSON.stringify({
      wrap_up_time: "0",
      busy_delay_time: "0",
      reject_delay_time: "0",
      no_answer_delay_time: "0",
      max_no_answer: "0",
    }),
  );
  const agent = engine.agent("1001")!;
  engine.signIn(agent, "1001", "support");
  engine.setStatus(agent, "Available");
  const domain = platform.ctx.users.defaultDomain();
  const phone = await TestPhone.start({
    url: platform.url,
    extension: "1001",
    password: "Extn1234Demo",
    domain,
    tone: 880,
  });

  const joined = new Map<string, number>();
  const offered = new Map<string, number>();
  const invited = new Map<string, number>();
  engine.events.on("event", (e) => {
    if (e["CC-Action"] === "member-queue-start") joined.set(e["CC-Member-Session-UUID"]!, performance.now());
    if (e["CC-Action"] === "agent-offering") offered.set(e["CC-Member-Session-UUID"]!, performance.now());
  });
  const delegate = phone.ua.delegate!;
  const onInvite = delegate.onInvite!.bind(delegate);
  delegate.onInvite = (invitation) => {
    invited.set(invitation.request.getHeader("x-cc-member-session-uuid") ?? "", performance.now());
    onInvite(invitation);
  };

  const samples: number[] = [];
  const engineSamples: number[] = [];
  for (let i = 0; i < LATENCY_CALLS; i++) {
    const caller = await queueCallers!.start({
      queue: "support",
      callerIdNumber: "5550100",
      callerIdName: "Bench Customer",
      toneHz: CUSTOMER_TONE,
    });
    await until("the agent's phone gets the INVITE", () => invited.has(caller.uuid), 10_000);
    samples.push(invited.get(caller.uuid)! - joined.get(caller.uuid)!);
    engineSamples.push(offered.get(caller.uuid)! - joined.get(caller.uuid)!);
    queueCallers!.hangup(caller.id);
    await until("the agent is free again", () => agent.state === "Waiting" && !agent.offer && !agent.call, 10_000);
  }
  await phone.stop();
  engine.setStatus(agent, "On Break", "bench");
  const figures = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `median ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`;
  };
  console.log(
    `offer latency (customer enters the queue -> INVITE at the agent's phone), ${samples.length} calls: ${figures(samples)}`,
  );
  // Where the time goes: the engine's choice of agent, the rest is the SIP side making the leg
  // (its WebRTC offer, gathered before the INVITE is sent) and the WebSocket.
  console.log(`  of which the engine (member-queue-start -> agent-offering): ${figures(engineSamples)}`);
}

interface BenchAgent {
  extension: string;
  tone: number;
  customer?: string;
}

/** Adds agents with extensions 2001, 2002, ... and tiers in a queue `bench`. */
async function addAgents(platform: Platform, from: number, count: number): Promise<BenchAgent[]> {
  const { db, users } = platform.ctx;
  const domain = users.defaultDomain();
  const hash = await hashPassword(BENCH_PASSWORD);
  let queue = db.prepare("SELECT id FROM queues WHERE name = 'bench'").get() as { id: number } | undefined;
  if (!queue) {
    const info = db
      .prepare("INSERT INTO queues (name, description, strategy) VALUES ('bench', 'Benchmark', 'longest-idle-agent')")
      .run();
    queue = { id: Number(info.lastInsertRowid) };
  }
  const out: BenchAgent[] = [];
  for (let i = from; i < from + count; i++) {
    const extension = String(2001 + i);
    const agentInfo = { ...DEFAULT_AGENT_INFO, wrap_up_time: "0", status: "Out" };
    const userId = users.insertUser({
      login: `bench${i}`,
      name: `Bench Agent ${i}`,
      password_hash: hash,
      type: "AGENT",
      domain,
      agent_info: JSON.stringify(agentInfo),
    });
    const extnId = users.insertExtension({
      user_id: userId,
      extn: extension,
      name: `Bench Agent ${i}`,
      domain,
      password: BENCH_PASSWORD,
      cid_name: `Bench Agent ${i}`,
      cid_number: extension,
    });
    users.updateUser(userId, { extn: extension, extn_id: extnId, cid_name: `Bench Agent ${i}`, cid_number: extension });
    db.prepare("INSERT INTO tiers (queue_id, user_id, level, position) VALUES (?, ?, 1, ?)").run(
      queue.id,
      userId,
      i + 1,
    );
    // Tones 900..1480 Hz: apart from the customer's 660 Hz and from the hold-music notes.
    out.push({ extension, tone: 900 + (i % 30) * 20 });
  }
  return out;
}

async function capacity(platform: Platform): Promise<void> {
  const { engine, queueCallers } = platform.callCenter;
  const clock = platform.ctx.media.clock;
  const phones = new AgentPhones();
  const agents: BenchAgent[] = [];
  const domain = platform.ctx.users.defaultDomain();
  console.log(
    `capacity: queue calls with media (agent phones in a child process); step ${STEP}, settle ${SETTLE_MS} ms, measure ${MEASURE_MS} ms; budget ${BUDGET * 100} % of frames late or skipped`,
  );
  console.log("calls  missed%  late  skipped  maxLate ms  platform CPU%  per call ms/s  phones CPU%  media");

  const measure = async () => {
    clock.resetStats();
    const cpuBefore = process.cpuUsage();
    const phonesBefore = (await phones.request({ op: "cpu" })).cpuMicros!;
    const start = performance.now();
    await wait(MEASURE_MS);
    const cpu = process.cpuUsage(cpuBefore);
    const phonesCpu = (await phones.request({ op: "cpu" })).cpuMicros! - phonesBefore;
    const wall = performance.now() - start;
    const stats = clock.stats();
    const sample = [...new Set([0, Math.floor(agents.length / 2), agents.length - 1])].map((i) => agents[i]!);
    const heard = (await phones.request({ op: "heard", extensions: sample.map((a) => a.extension) })).heard!;
    const customersHear = sample.map((a) => platform.ctx.sim.get(a.customer ?? "")?.hearing ?? []);
    const ok = sample.every(
      (a, i) => near(heard[i], CUSTOMER_TONE) && customersHear[i]!.some((hz) => near(hz, a.tone)),
    );
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const row = [
      String(agents.length).padStart(5),
      (stats.missedRatio * 100).toFixed(2).padStart(8),
      String(stats.framesLate).padStart(5),
      String(stats.framesSkipped).padStart(8),
      stats.maxLatenessMs.toFixed(1).padStart(11),
      ((cpuMs / wall) * 100).toFixed(0).padStart(14),
      (cpuMs / (wall / 1000) / agents.length).toFixed(1).padStart(14),
      ((phonesCpu / 1000 / wall) * 100).toFixed(0).padStart(12),
      ` ${ok ? "ok" : `WRONG agents hear ${JSON.stringify(heard)}, customers hear ${JSON.stringify(customersHear)}`}`,
    ].join(" ");
    return { missed: stats.missedRatio, ok, row };
  };

  let sustained = 0;
  try {
    while (agents.length + STEP <= MAX_CALLS) {
      const added = await addAgents(platform, agents.length, STEP);
      await phones.request({
        op: "start",
        url: platform.url,
        domain,
        phones: added.map((a) => ({ extension: a.extension, password: BENCH_PASSWORD, tone: a.tone })),
      });
      for (const a of added) {
        const agent = engine.agent(a.extension)!;
        engine.signIn(agent, a.extension, "bench");
        engine.setStatus(agent, "Available");
      }
      agents.push(...added);
      for (let i = 0; i < STEP; i++) {
        await queueCallers!.start({
          queue: "bench",
          callerIdNumber: `555${String(agents.length + i).padStart(4, "0")}`,
          callerIdName: "Bench Customer",
          toneHz: CUSTOMER_TONE,
        });
      }
      await until(
        "every call of the step is connected",
        () => engine.calls().filter((c) => c.leg.state === "answered").length === agents.length,
        60_000,
      );
      for (const a of agents) a.customer ??= engine.agent(a.extension)!.call?.peer?.uuid;
      await wait(SETTLE_MS);
      let result = await measure();
      console.log(result.row);
      if (result.missed > BUDGET && result.ok) {
        result = await measure();
        console.log(`${result.row}  (measured again)`);
      }
      if (result.missed > BUDGET || !result.ok) break;
      sustained = agents.length;
    }
  } finally {
    await phones.close();
  }
  console.log(
    sustained === 0
      ? `capacity: not even ${STEP} queue calls kept the media clock within ${BUDGET * 100} %`
      : `capacity: ${sustained} concurrent queue calls with media sustained${sustained + STEP > MAX_CALLS ? ` (the ramp's maximum, --max ${MAX_CALLS})` : ""}, media clock missing <= ${BUDGET * 100} % of frames`,
  );
}

async function main(): Promise<void> {
  const cores = cpus();
  console.log(
    `machine: ${cores.length} x ${cores[0]?.model ?? "?"}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} at start`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), "agentbar-cc-bench-"));
  const platform = await startPlatform({
    port: 0,
    host: "127.0.0.1",
    dataDir,
    logLevel: "silent",
    simRingMs: 100,
    sipRateBurst: 500,
    sipRatePerSecond: 200,
    sipSourceRateBurst: 500,
    sipSourceRatePerSecond: 200,
    // The phones all come from this machine, standing in for as many as there are agents.
    sipSourceShare: 1,
  });
  try {
    await offerLatency(platform);
    await capacity(platform);
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  // A process that loaded wrtc must end with process.exit(): a natural exit crashes in its teardown.
  () => setTimeout(() => process.exit(0), 300),
  (error: unknown) => {
    console.error(error);
    setTimeout(() => process.exit(1), 300);
  },
);
