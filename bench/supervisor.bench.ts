/**
 * The supervisor's Monitor, in Chromium against the local platform: from the click on an agent's
 * Monitor on the wallboard (the command as the page issues it, through src/cc's supervision) to
 * the moment the supervisor's phone hears the agent's tone and the customer's tone, over `--runs`
 * monitors of one queue call (the customer says 660 Hz, the agent 880 Hz), each stopped before
 * the next. Printed: the median and p95 of the figure, and the breakdown: every step of the way
 * in the page (its REST requests, the leg's INVITE reaching its WebSocket, its answer, ICE and
 * DTLS, the first audio frame played out, each tone first in its audio graph) and in the platform
 * (the leg made, its INVITE sent, the phone's 200 OK, the eavesdrop joined), on one clock, as
 * medians from the click.
 * The agent's phone is a sip.js phone with WebRTC (the integration tests' TestPhone) that answers
 * by itself, in a child process as the call-center bench's are, so that the platform's process
 * carries only the platform; the customer is the platform's simulated queue caller.
 * Hearing is the page's own: a Web Audio analyser on the leg's received track, each tone found by
 * its power at its frequency (Goertzel) in 10 ms blocks, its onset placed in the analyser's window
 * on the page's clock (the analyser's graph buffers a little: the received audio is played out a
 * few ms earlier, which the "first audio frame played out" step says by the receiver's record).
 *
 * Run: npm run bench -- supervisor   (or npx tsx bench/supervisor.bench.ts [--runs 12])
 */
import type { Page } from "@playwright/test";
import { until } from "../test/integration/sip-phone";
import { AgentPhones } from "./agent-phones";
import { benchStage } from "./bench-stage";
import { initScript, ms, option, stats } from "./chromium-page";
import { watchPlatformCallSteps, type Step } from "./platform-call-steps";
import { runBench } from "./run-bench";

const RUNS = option("runs", 12);
const CUSTOMER = 660;
const AGENT_TONE = 880;
const SUPERVISOR_TONE = 1300;
const PASSWORD = "Agentbar@2026";

/** In the page before the app: time stamps (page clock) of each step after a Monitor click, and the tones heard. */
function instrument() {
  const b = {
    clicks: [] as number[],
    steps: [] as [string, number][],
    /** Per click: when each tone was first in the leg's received audio (onset in the analyser's window). */
    heard: [] as Record<string, number>[],
  };
  (window as unknown as { __bench: typeof b }).__bench = b;
  const step = (name: string, at = performance.now()) => b.steps.push([name, at]);

  const nativeFetch = window.fetch.bind(window);
  window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const func = /\/api\/cc\/ccc\/(\w+)/.exec(url)?.[1] ?? /\/api\/([\w/]+)/.exec(url)?.[1];
    if (!func) return nativeFetch(input, init);
    step(`${func} sent`);
    return nativeFetch(input, init).then((r) => (step(`${func} answered`), r));
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener("message", (e: MessageEvent) => {
        if (typeof e.data === "string" && e.data.startsWith("INVITE ") && !/^(To|t):[^\r\n]*;tag=/im.test(e.data))
          step("INVITE received");
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
      if (typeof data === "string" && /^SIP\/2.0 200[^\r\n]*\r\n(?:[^\r\n]+\r\n)*CSeq:\s*\d+\s+INVITE/i.test(data))
        step("200 OK sent");
      super.send(data);
    }
  };

  const gum = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (c) => {
    step("microphone asked");
    return gum(c).then((s) => (step("microphone open"), s));
  };

  let ctx: AudioContext | undefined;
  /** Listens to a leg's received track from the moment it exists: finds when each tone starts. */
  const listen = (pc: RTCPeerConnection, track: MediaStreamTrack) => {
    const run = b.clicks.length - 1;
    const heard: Record<string, number> = (b.heard[run] = {});
    ctx ??= new AudioContext();
    const c = ctx;
    const analyser = c.createAnalyser();
    analyser.fftSize = 8192;
    const samples = new Float32Array(analyser.fftSize);
    const source = c.createMediaStreamSource(new MediaStream([track]));
    source.connect(analyser);
    const block = Math.round(c.sampleRate / 100);
    /** The amplitude of `hz` in samples[from, from + block) (Goertzel). */
    const amplitude = (hz: number, from: number) => {
      const k = 2 * Math.cos((2 * Math.PI * hz) / c.sampleRate);
      let s1 = 0;
      let s2 = 0;
      for (let i = from; i < from + block; i++) {
        const s0 = samples[i]! + k * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      return (2 * Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - k * s1 * s2))) / block;
    };
    let played = false;
    const started = performance.now();
    const timer = setInterval(() => {
      if (performance.now() - started > 10_000 || pc.connectionState === "closed") {
        clearInterval(timer);
        source.disconnect();
        return;
      }
      if (!played) {
        const sources =
          pc
            .getReceivers()
            .find((r) => r.track === track)
            ?.getSynchronizationSources() ?? [];
        const frame = sources.find((s) => (s.audioLevel ?? 0) > 0.01);
        if (frame) {
          played = true;
          step("first audio frame played out", frame.timestamp - performance.timeOrigin);
        }
      }
      const before = c.currentTime;
      analyser.getFloatTimeDomainData(samples);
      // Rendered meanwhile: the data and the time do not match; read again at the next poll.
      if (c.currentTime !== before) return;
      const now = performance.now();
      const n = samples.length;
      for (const [name, hz] of [
        ["customer", 660],
        ["agent", 880],
      ] as const) {
        if (heard[name] !== undefined || amplitude(hz, n - block) < 0.003) continue;
        // The first 10 ms block of the window that holds it: its onset, on the page's clock.
        let from = 0;
        while (from < n - block && amplitude(hz, from) < 0.003) from += block;
        heard[name] = now - ((n - from) / c.sampleRate) * 1000;
        step(`${name}'s tone heard`, heard[name]);
      }
      if (heard.customer !== undefined && heard.agent !== undefined) {
        clearInterval(timer);
        source.disconnect();
      }
    }, 2);
  };

  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      step("peer connection made");
      const on = (event: string, done: () => boolean, name: string) => {
        let seen = false;
        this.addEventListener(event, () => {
          if (!seen && done()) {
            seen = true;
            step(name);
          }
        });
      };
      on("icegatheringstatechange", () => this.iceGatheringState === "complete", "ICE gathered");
      on("iceconnectionstatechange", () => this.iceConnectionState === "connected", "ICE connected");
      on("connectionstatechange", () => this.connectionState === "connected", "DTLS connected");
      this.addEventListener("track", (e) => e.track.kind === "audio" && listen(this, e.track));
      const srd = this.setRemoteDescription.bind(this);
      this.setRemoteDescription = ((d: RTCSessionDescriptionInit) =>
        srd(d).then(() => void (d.type === "offer" && step("offer set")))) as typeof this.setRemoteDescription;
      const sld = this.setLocalDescription.bind(this);
      this.setLocalDescription = ((d?: RTCLocalSessionDescriptionInit) =>
        sld(d).then(() => void (d?.type === "answer" && step("answer set")))) as typeof this.setLocalDescription;
    }
  };

  document.addEventListener(
    "click",
    (e) => {
      const button = (e.target as Element | null)?.closest?.("button");
      if (button?.textContent?.trim() !== "Monitor" || !button.closest("[data-testid=agent-row]")) return;
      b.clicks.push(e.timeStamp);
      step("Monitor click");
    },
    true,
  );
}

interface Bench {
  clicks: number[];
  steps: [string, number][];
  heard: Record<string, number>[];
}
const bench = (page: Page) => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench);

const stage = benchStage("supervisor");
let agentPhones: AgentPhones | undefined;

async function main(): Promise<void> {
  const platformSteps = watchPlatformCallSteps();
  const platform = await stage.platform();
  platformSteps.watchSwitch(platform.ctx.switch, AGENT_TONE);
  const { engine, queueCallers } = platform.callCenter;

  // The agent's queue call, which the supervisor monitors again and again.
  agentPhones = new AgentPhones();
  await agentPhones.request({
    op: "start",
    url: platform.url,
    domain: platform.ctx.users.defaultDomain(),
    phones: [{ extension: "1001", password: "Extn1234Demo", tone: AGENT_TONE }],
  });
  const agent = engine.agent("1001")!;
  engine.signIn(agent, "1001", "support");
  engine.setStatus(agent, "Available");
  await queueCallers!.start({
    queue: "support",
    callerIdNumber: "5550142",
    callerIdName: "Carla Customer",
    toneHz: CUSTOMER,
  });
  await until("the agent talks to the customer", () => agent.call?.leg.state === "answered", 15_000);
  const agentHears = async () => (await agentPhones!.request({ op: "heard", extensions: ["1001"] })).heard![0];
  const deadline = Date.now() + 15_000;
  for (let hz = await agentHears(); hz == null || Math.abs(hz - CUSTOMER) > 10; hz = await agentHears()) {
    if (Date.now() > deadline) throw new Error(`the agent hears ${hz} Hz, not the customer's ${CUSTOMER} Hz`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const browser = await stage.chromium(SUPERVISOR_TONE);
  const context = await browser.newContext({ baseURL: platform.url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.log("page error:", e.message));
  await page.addInitScript(initScript(instrument));
  await page.goto("/?layout=full");
  await page.getByLabel("Login name").fill("supervisor");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-testid=registration][data-status=registered]").waitFor();
  const monitor = page
    .getByTestId("wallboard")
    .locator("[data-testid=agent-row][data-agent='1001']")
    .getByRole("button", { name: "Monitor" });

  const channels = platform.ctx.switch.channels().length;
  for (let run = 0; run < RUNS; run++) {
    await monitor.click();
    await page.waitForFunction(
      (k) => {
        const h = (window as unknown as { __bench: Bench }).__bench.heard[k];
        return h?.customer !== undefined && h.agent !== undefined;
      },
      run,
      { timeout: 10_000 },
    );
    const stop = page.getByTestId("supervising").getByRole("button", { name: "Stop" });
    await stop.click();
    await stop.waitFor({ state: "detached" });
    await until(
      "the platform has no supervision left",
      () => platform.ctx.switch.channels().length === channels,
      10_000,
    );
    for (const dismiss of await page.getByRole("button", { name: "Dismiss" }).all()) await dismiss.click();
  }

  const b = await bench(page);
  const pageOrigin = await page.evaluate(() => performance.timeOrigin);
  const allSteps: Step[] = [
    ...b.steps.map(([n, t]): Step => [`browser   ${n}`, t]),
    ...platformSteps.steps.map(([n, t]): Step => [`platform  ${n}`, t - pageOrigin]),
  ].sort((x, y) => x[1] - y[1]);
  const both: number[] = [];
  const after = new Map<string, number[]>();
  for (let run = 0; run < b.clicks.length; run++) {
    const click = b.clicks[run]!;
    const heard = b.heard[run]!;
    both.push(Math.max(heard.customer!, heard.agent!) - click);
    const seen = new Set<string>();
    for (const [name, at] of allSteps) {
      if (at < click || at >= (b.clicks[run + 1] ?? Infinity) || seen.has(name)) continue;
      seen.add(name);
      after.set(name, [...(after.get(name) ?? []), at - click]);
    }
  }
  const figure = stats(both);
  console.log(
    `Monitor click to the supervisor hearing both sides: median ${ms(figure.median)}, p95 ${ms(figure.p95)} (${figure.n} runs; target: median ≤ 300 ms)`,
  );
  console.log("  each step, ms from the click (median / p95; seen in n runs):");
  const summary = [...after]
    .filter(([, v]) => v.length > b.clicks.length / 2)
    .map(([name, v]) => ({ name, ...stats(v) }))
    .sort((x, y) => x.median - y.median);
  for (const s of summary)
    console.log(
      `    ${s.median.toFixed(0).padStart(5)} ${s.p95.toFixed(0).padStart(5)}  ${s.name}${s.n < b.clicks.length ? ` (${s.n})` : ""}`,
    );
}

await runBench("supervisor", main, async () => {
  await agentPhones?.close();
  await stage.cleanUp();
});
