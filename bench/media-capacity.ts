/**
 * How many concurrent two-party calls with two-way media this machine carries before the media
 * clock misses its 10 ms cadence on more than 1 % of frames, and the CPU each call costs.
 *
 * One call = two WebRTC legs of the media plane bridged by the mixer, each leg on a loopback
 * peer connection to a simulated browser that sends a tone and decodes what it gets: real Opus
 * encoding and decoding on all four ends. Calls are added in steps; after each step the clock's
 * cadence and the process's CPU are measured over a few seconds, and a sample of calls is
 * checked end to end (A hears B's 1000 Hz, B hears A's 440 Hz).
 *
 * By default the simulated browsers run in a child process, so that the figures are the
 * platform's own (its clock, its CPU). `--far-ends in-process` puts them in the platform's
 * process, which doubles the codec work on its event loop. Both share the same cores.
 *
 * The machine may be shared: a step that misses the budget is measured once more, and only a
 * second miss ends the ramp, so that one stall caused by another program does not set the limit.
 *
 * Run: npx tsx bench/media-capacity.ts [--step 5] [--max 200] [--measure 5] [--far-ends child|in-process]
 */
import { fork, type ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import wrtc from "@roamhq/wrtc";
import { MediaPlane } from "../platform/media/media-plane";
import { connectPeerConnectionPair } from "../platform/media/peer-connection-pair";
import type { WebRtcLeg } from "../platform/media/webrtc-leg";
import { LightBrowser, gatheringComplete } from "./light-browser";
import type { BrowserReply, BrowserRequest } from "./simulated-browsers";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1]! : fallback;
}

const STEP = Number(option("step", "5"));
const MAX_CALLS = Number(option("max", "200"));
const MEASURE_MS = Number(option("measure", "5")) * 1000;
const FAR_ENDS = option("far-ends", "child");
const SETTLE_MS = 2000;
const BUDGET = 0.01;

/** Where the simulated browsers live, and how a call's two legs get connected to them. */
interface FarEnds {
  /** Connects leg A to a browser that calls in and leg B to a browser that is called. */
  connect(legA: WebRtcLeg, legB: WebRtcLeg): Promise<{ browsers: [number, number]; close(): void }>;
  /** Dominant frequency each browser hears now. */
  heard(browsers: number[]): Promise<(number | undefined)[]>;
  /** CPU time of the far ends' process if it is not this one, in microseconds. */
  cpuMicros(): Promise<number | undefined>;
  close(): Promise<void>;
}

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

class ChildFarEnds implements FarEnds {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly pending = new Map<number, (reply: BrowserReply) => void>();
  private readonly pcs: RTCPeerConnection[] = [];

  constructor() {
    const entry = fileURLToPath(new URL("./simulated-browsers.ts", import.meta.url));
    this.child = fork(entry, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child.on("message", (reply: BrowserReply) => this.pending.get(reply.id)?.(reply));
  }

  private request(request: WithoutId<BrowserRequest>): Promise<BrowserReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) => {
        this.pending.delete(id);
        if (reply.error) reject(new Error(reply.error));
        else resolve(reply);
      });
      this.child.send({ ...request, id });
    });
  }

  async connect(legA: WebRtcLeg, legB: WebRtcLeg) {
    // A calls in: the browser offers, the platform answers.
    const offer = await this.request({ op: "offer", frequency: 440 });
    const pcA = this.newPc(legA);
    await pcA.setRemoteDescription({ type: "offer", sdp: offer.sdp! });
    await pcA.setLocalDescription(await pcA.createAnswer());
    await gatheringComplete(pcA);
    await this.request({ op: "accept", key: offer.key!, sdp: pcA.localDescription!.sdp });
    // The platform calls B: it offers, the browser answers.
    const pcB = this.newPc(legB);
    await pcB.setLocalDescription(await pcB.createOffer());
    await gatheringComplete(pcB);
    const answer = await this.request({ op: "answer", frequency: 1000, sdp: pcB.localDescription!.sdp });
    await pcB.setRemoteDescription({ type: "answer", sdp: answer.sdp! });
    await Promise.all([connected(pcA), connected(pcB)]);
    return {
      browsers: [offer.key!, answer.key!] as [number, number],
      close: () => {
        pcA.close();
        pcB.close();
      },
    };
  }

  async heard(browsers: number[]) {
    return (await this.request({ op: "check", browsers })).heard!;
  }

  async cpuMicros() {
    return (await this.request({ op: "cpu" })).cpuMicros;
  }

  async close() {
    await this.request({ op: "close" }).catch(() => undefined);
    for (const pc of this.pcs) pc.close();
  }

  private newPc(leg: WebRtcLeg): RTCPeerConnection {
    const pc = new wrtc.RTCPeerConnection({ iceServers: [] }) as RTCPeerConnection;
    leg.attach(pc);
    this.pcs.push(pc);
    return pc;
  }
}

class InProcessFarEnds implements FarEnds {
  private readonly browsers: LightBrowser[] = [];

  constructor(plane: MediaPlane) {
    plane.clock.onTick(() => {
      for (const browser of this.browsers) browser.speak();
    });
  }

  async connect(legA: WebRtcLeg, legB: WebRtcLeg) {
    const a = new LightBrowser(440);
    const b = new LightBrowser(1000);
    const pairs = [
      await connectPeerConnectionPair((browser, platform) => (a.prepare(browser), legA.attach(platform))),
      await connectPeerConnectionPair((platform, browser) => (legB.attach(platform), b.prepare(browser))),
    ];
    this.browsers.push(a, b);
    return {
      browsers: [this.browsers.length - 2, this.browsers.length - 1] as [number, number],
      close: () => {
        a.close();
        b.close();
        for (const pair of pairs) pair.close();
      },
    };
  }

  async heard(browsers: number[]) {
    return browsers.map((i) => this.browsers[i]?.dominantHeard());
  }

  async cpuMicros() {
    return undefined;
  }

  async close() {}
}

function connected(pc: RTCPeerConnection): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pc.connectionState === "connected") resolve();
      else if (pc.connectionState === "failed") reject(new Error("peer connection failed"));
    };
    pc.addEventListener("connectionstatechange", check);
    check();
  });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const plane = new MediaPlane();
const farEnds: FarEnds = FAR_ENDS === "in-process" ? new InProcessFarEnds(plane) : new ChildFarEnds();
const calls: { browsers: [number, number]; close(): void }[] = [];

/** A sample of calls, checked end to end. */
async function mediaCheck(): Promise<string> {
  const sample = [...new Set([0, Math.floor(calls.length / 2), calls.length - 1])].map((i) => calls[i]!);
  const heard = await farEnds.heard(sample.flatMap((c) => c.browsers));
  const ok = sample.every(
    (_, i) => Math.abs((heard[2 * i] ?? 0) - 1000) < 3 && Math.abs((heard[2 * i + 1] ?? 0) - 440) < 3,
  );
  return ok ? "ok" : `WRONG ${JSON.stringify(heard.map((f) => f && Math.round(f)))}`;
}

interface Measurement {
  missedRatio: number;
  row: string;
  perCall: number;
  media: string;
}

/** Measures the calls now up: the clock's cadence, the CPU, and a sample of calls end to end. */
async function measure(): Promise<Measurement> {
  const underrunsBefore = totalUnderruns();
  plane.clock.resetStats();
  const cpuBefore = process.cpuUsage();
  const farCpuBefore = await farEnds.cpuMicros();
  const wallBefore = performance.now();
  await wait(MEASURE_MS);
  const cpu = process.cpuUsage(cpuBefore);
  const farCpuAfter = await farEnds.cpuMicros();
  const wall = performance.now() - wallBefore;
  const stats = plane.clock.stats();
  const underruns = totalUnderruns() - underrunsBefore;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const perCall = cpuMs / (wall / 1000) / calls.length;
  const farPercent =
    farCpuBefore === undefined || farCpuAfter === undefined
      ? "-"
      : (((farCpuAfter - farCpuBefore) / 1000 / wall) * 100).toFixed(0);
  const media = await mediaCheck();
  const row = [
    String(calls.length).padStart(5),
    String(calls.length * 2).padStart(5),
    (stats.missedRatio * 100).toFixed(2).padStart(8),
    String(stats.framesLate).padStart(5),
    String(stats.framesSkipped).padStart(8),
    stats.maxLatenessMs.toFixed(1).padStart(11),
    stats.meanLatenessMs.toFixed(2).padStart(12),
    ((stats.busyMs / stats.elapsedMs) * 100).toFixed(1).padStart(11),
    ((cpuMs / wall) * 100).toFixed(0).padStart(14),
    perCall.toFixed(1).padStart(14),
    farPercent.padStart(14),
    String(underruns).padStart(10),
    ` ${media}`,
  ].join(" ");
  return { missedRatio: stats.missedRatio, row, perCall, media };
}

async function main(): Promise<void> {
  const cores = cpus();
  console.log(
    `machine: ${cores.length} x ${cores[0]?.model ?? "?"}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} at start`,
  );
  console.log(
    `media capacity: simulated browsers ${FAR_ENDS === "in-process" ? "in this process" : "in a child process"}; step ${STEP} calls, settle ${SETTLE_MS} ms, ` +
      `measure ${MEASURE_MS} ms; budget: ${BUDGET * 100} % of frames late or skipped`,
  );
  console.log(
    "calls  legs  missed%  late  skipped  maxLate ms  meanLate ms  tick busy%  platform CPU%  per call ms/s  browsers CPU%  underruns  media",
  );
  let sustained = 0;
  let perCallAtLimit = 0;
  while (calls.length + STEP <= MAX_CALLS) {
    for (let i = 0; i < STEP; i++) {
      const legA = plane.createWebRtcLeg(`call${calls.length}-a`);
      const legB = plane.createWebRtcLeg(`call${calls.length}-b`);
      calls.push(await farEnds.connect(legA, legB));
      plane.bridge(legA, legB);
    }
    await wait(SETTLE_MS);
    let result = await measure();
    console.log(result.row);
    if (result.missedRatio > BUDGET && result.media === "ok") {
      result = await measure();
      console.log(`${result.row}  (measured again)`);
    }
    if (result.missedRatio > BUDGET || result.media !== "ok") break;
    sustained = calls.length;
    perCallAtLimit = result.perCall;
  }
  console.log("");
  if (sustained === 0) console.log(`result: not even ${STEP} calls kept the cadence within ${BUDGET * 100} %`);
  else
    console.log(
      `result: ${sustained} concurrent two-party calls sustained (${sustained * 2} WebRTC legs) with the clock missing <= ${BUDGET * 100} % of frames; ` +
        `platform CPU per call ${perCallAtLimit.toFixed(1)} ms per second = ${(perCallAtLimit / 10).toFixed(2)} % of one core` +
        (FAR_ENDS === "in-process" ? " (including the simulated browsers' share, about half)" : ""),
    );
}

function totalUnderruns(): number {
  return plane.stats().legs.reduce((sum, leg) => sum + leg.jitter.underruns, 0);
}

async function shutdown(code: number): Promise<never> {
  // Legs first, then their connections; process.exit because a natural exit crashes inside wrtc.
  await plane.close();
  for (const call of calls) call.close();
  await farEnds.close();
  await wait(300);
  process.exit(code);
}

main().then(
  () => shutdown(0),
  (error: unknown) => {
    console.error(error);
    return shutdown(1);
  },
);
