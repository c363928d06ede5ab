/**
 * The browser phone's figures, in Chromium against the local platform, as an agent gets them:
 * - the JavaScript the agent page downloads (measured, gzip as served compressed);
 * - sign-in to registered: from the Sign in click to the status saying "Ready for calls";
 * - INVITE to ringing card: from the INVITE reaching the page's WebSocket to the ringing call
 *   card in the page;
 * - Answer click to first remote audio: from the click to the moment the call's receiver played
 *   out its first frame above -40 dBFS (its own record: getSynchronizationSources' time stamp and
 *   the frame's level), i.e. handed it to the audio output that the call's audio element and any
 *   other consumer of the track share; what the output device adds after that (its buffer, a
 *   fake device here) is not in the figure. Beside it, the same audio as the page notices it
 *   through a Web Audio analyser (polled): that path adds its own audio graph's buffering (a
 *   FIFO and 512-frame render chunks here), which the audio element does not go through. The
 *   steps also say when that audio entered the analyser's graph and left its output. For calls
 *   answered as soon as they ring and for calls answered after an agent's pause (2 s), with the
 *   breakdown of each step on both sides: the page's (instrumented in the page) and the local
 *   platform's (it runs in this process: platform-call-steps.ts), on one clock;
 * - the other half, Answer click to the caller hearing the agent: from the click to the first
 *   frame over -40 dBFS that the simulated caller hears from the bridge on (the agent's
 *   microphone, a 620 Hz tone), in the platform's mix; its steps are in the same breakdown (200 OK
 *   sent and received, ACK, ICE and DTLS on both sides, the phone's first audio out of the
 *   platform's decoder, the caller hearing it);
 * - the page's heap (after garbage collection) and its RTCPeerConnections after 200 calls,
 *   against after 20: a leak shows as growth.
 * Every time is taken inside the page (event time stamps, performance.now) or the platform, so
 * Playwright's own round trips are not in the figures.
 *
 * Run: npm run bench -- phone   (or npx tsx bench/phone.bench.ts [--calls 200] [--timed 20] [--pause 2000])
 */
import type { Page } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startPlatform } from "../platform/platform";
import { buildApp, initScript, launchChromium, ms, option, stats } from "./chromium-page";
import { watchPlatformCallSteps, type Step } from "./platform-call-steps";

const CALLS = option("calls", 200);
const TIMED = option("timed", 20);
/** How long the agent of the second timed series lets the call ring before Answer. */
const PAUSE_MS = option("pause", 2000);
const SIGN_INS = 5;
/** The agent's microphone: a tone the caller tells apart from the platform's ringback (450 Hz) in a 10 ms frame. */
const MICROPHONE_HZ = 620;
const PASSWORD = "Agentbar@2026";

buildApp();
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadAtStart = load();
const platformSteps = watchPlatformCallSteps();
const dataDir = mkdtempSync(join(tmpdir(), "agentbar-phone-bench-"));
const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent" });
platformSteps.watchSwitch(platform.ctx.switch, MICROPHONE_HZ);

const browser = await launchChromium(MICROPHONE_HZ);

/** In the page before the app: time stamps of what the bench measures, and a count of peer connections. */
function instrument() {
  const b = {
    invites: [] as number[],
    ringingCards: [] as number[],
    answerClicks: [] as number[],
    signInClicks: [] as number[],
    registeredAt: [] as number[],
    firstAudio: [] as number[],
    /** When each call's first frame over -40 dBFS was played out, by the receiver's record (by call). */
    playedOut: [] as (number | undefined)[],
    pcs: { created: 0, closed: 0, collected: 0 },
    /** Each step of a call's media setup, as it happens: [step, time]. */
    steps: [] as [string, number][],
  };
  const step = (name: string, at = performance.now()) => b.steps.push([name, at]);
  (window as unknown as { __bench: typeof b }).__bench = b;
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      // Added before sip.js's own listener: the moment the message reaches the page.
      this.addEventListener("message", (e: MessageEvent) => {
        if (typeof e.data === "string" && e.data.startsWith("INVITE ") && !/^(To|t):[^\r\n]*;tag=/im.test(e.data))
          b.invites.push(performance.now());
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
      if (typeof data === "string" && data.startsWith("SIP/2.0 200") && /^CSeq:\s*\d+\s+INVITE/im.test(data))
        step("200 OK sent");
      super.send(data);
    }
  };
  const gum = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (c) => {
    step("microphone asked");
    return gum(c).then((s) => (step("microphone open"), s));
  };
  const NativePc = window.RTCPeerConnection;
  const registry = new FinalizationRegistry(() => b.pcs.collected++);
  const live: RTCPeerConnection[] = [];
  window.RTCPeerConnection = class extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      b.pcs.created++;
      registry.register(this, null);
      live.push(this);
      let counted = false;
      const onClose = () => {
        if (counted || (this.signalingState !== "closed" && this.connectionState !== "closed")) return;
        counted = true;
        b.pcs.closed++;
        live.splice(live.indexOf(this), 1);
      };
      this.addEventListener("signalingstatechange", onClose);
      this.addEventListener(
        "icegatheringstatechange",
        () => this.iceGatheringState === "complete" && step("ICE gathered"),
      );
      this.addEventListener(
        "iceconnectionstatechange",
        () => this.iceConnectionState === "connected" && step("ICE connected"),
      );
      this.addEventListener(
        "connectionstatechange",
        () => this.connectionState === "connected" && step("DTLS connected"),
      );
      const srd = this.setRemoteDescription.bind(this);
      const answer = this.createAnswer.bind(this) as (o?: RTCAnswerOptions) => Promise<RTCSessionDescriptionInit>;
      const sld = this.setLocalDescription.bind(this);
      const watchDtls = () => {
        const transport = this.getSenders()[0]?.transport;
        transport?.addEventListener("statechange", () => transport.state === "connecting" && step("DTLS connecting"));
      };
      this.setRemoteDescription = ((d: RTCSessionDescriptionInit) =>
        srd(d).then(() => void (d.type === "offer" && step("offer set")))) as typeof this.setRemoteDescription;
      this.createAnswer = ((o?: RTCAnswerOptions) =>
        answer(o).then((r) => (step("answer made"), r))) as typeof this.createAnswer;
      this.setLocalDescription = ((d?: RTCLocalSessionDescriptionInit) =>
        sld(d).then(
          () => void (d?.type === "answer" && (step("answer set"), watchDtls())),
        )) as typeof this.setLocalDescription;
      const close = this.close.bind(this);
      this.close = () => {
        close();
        onClose();
      };
    }
  };
  // The first audio after an Answer click: poll the newest connection's received track.
  let ctx: AudioContext | undefined;
  const watchForAudio = (since: number) => {
    const call = b.answerClicks.length - 1;
    ctx ??= new AudioContext();
    let analyser: AnalyserNode | undefined;
    let source: MediaStreamAudioSourceNode | undefined;
    let samples = new Float32Array(0);
    let receiver: RTCRtpReceiver | undefined;
    let played = false;
    let audible = false;
    let noticed = false;
    const timer = setInterval(() => {
      if (performance.now() - since > 5000) return clearInterval(timer);
      if (!receiver) {
        receiver = live
          .at(-1)
          ?.getReceivers()
          .find((r) => r.track.kind === "audio" && r.track.readyState === "live");
        if (!receiver) return;
        // Listening from the click on: a source node made when audio is already there would add
        // its own start-up to the figure.
        analyser = ctx!.createAnalyser();
        // The last 0.68 s: the onset is found in it, however late the page looks.
        analyser.fftSize = 32768;
        samples = new Float32Array(analyser.fftSize);
        source = ctx!.createMediaStreamSource(new MediaStream([receiver.track]));
        source.connect(analyser);
      }
      // The receiver's own record of the frames it handed to the audio output (one entry per
      // source, for its newest frame: its time and, from the RTP header, its level).
      const newest = audible ? undefined : receiver.getSynchronizationSources()[0];
      if (newest) {
        // The time stamp is performance.timeOrigin + performance.now() when the frame was played out.
        const at = newest.timestamp - performance.timeOrigin;
        if (!played) step("first audio frame played out", at);
        played = true;
        if ((newest.audioLevel ?? 0) > 0.01) {
          audible = true;
          b.playedOut[call] = at;
        }
      }
      if (noticed) {
        if (audible) clearInterval(timer);
        return;
      }
      const c = ctx!;
      const before = c.currentTime;
      analyser!.getFloatTimeDomainData(samples);
      // Rendered meanwhile: the data and the time do not match; read again at the next poll.
      if (c.currentTime !== before) return;
      const rms = (from: number, to: number) => {
        let sum = 0;
        for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
        return Math.sqrt(sum / (to - from));
      };
      const n = samples.length;
      if (rms(n - 256, n) > 0.01) {
        noticed = true;
        const at = performance.now();
        b.firstAudio.push(at);
        // Where the page's polling and the audio output put it: the first render quantum (128
        // frames) over -40 dBFS in the window (which ends at currentTime), on the page's clock
        // by the time of this read (in the audio graph) and by the output's time stamp (when a
        // context time is played by the output device).
        let onset = 0;
        while (onset < n - 128 && rms(onset, onset + 128) <= 0.01) onset += 128;
        if (onset > 0) {
          const sinceOnset = (n - onset) / c.sampleRate;
          step("first audio in the audio graph", at - sinceOnset * 1000);
          const out = c.getOutputTimestamp();
          if (out.performanceTime)
            step(
              "first audio out of the audio output",
              out.performanceTime + (before - sinceOnset - out.contextTime!) * 1000,
            );
        }
        if (audible) clearInterval(timer);
        source?.disconnect();
        // When the first RTP packet arrived: the newest one's arrival, less 20 ms (the packet
        // time) for each packet since (read once here, not polled during the setup it measures).
        const pc = live.at(-1);
        void pc?.getStats().then((stats) => {
          for (const r of stats.values()) {
            if (r.type !== "inbound-rtp" || r.kind !== "audio" || !r.packetsReceived) continue;
            b.steps.push([
              "first RTP received",
              r.lastPacketReceivedTimestamp - performance.timeOrigin - (r.packetsReceived - 1) * 20,
            ]);
          }
        });
      }
    }, 2);
  };
  document.addEventListener(
    "click",
    (e) => {
      const button = (e.target as Element | null)?.closest?.("button");
      const name = button?.getAttribute("aria-label") ?? button?.textContent ?? "";
      if (name === "Answer") {
        b.answerClicks.push(e.timeStamp);
        step("Answer click handled");
        watchForAudio(e.timeStamp);
      } else if (name === "Sign in") b.signInClicks.push(e.timeStamp);
    },
    true,
  );
  new MutationObserver(() => {
    const t = performance.now();
    const ringing = document.querySelector("[data-testid=call][data-state=ringing]");
    if (ringing && !ringing.hasAttribute("data-bench-seen")) {
      ringing.setAttribute("data-bench-seen", "");
      b.ringingCards.push(t);
    }
    const reg = document.querySelector("[data-testid=registration]");
    const status = reg?.getAttribute("data-status");
    if (status === "registered" && !reg!.hasAttribute("data-bench-seen")) {
      reg!.setAttribute("data-bench-seen", "");
      b.registeredAt.push(t);
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-state", "data-status"],
  });
}

interface Bench {
  steps: [string, number][];
  invites: number[];
  ringingCards: number[];
  answerClicks: number[];
  signInClicks: number[];
  registeredAt: number[];
  firstAudio: number[];
  playedOut: (number | undefined)[];
  pcs: { created: number; closed: number; collected: number };
}
const bench = (page: Page) => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench);

const context = await browser.newContext({ baseURL: platform.url, viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await page.addInitScript(initScript(instrument));
const scripts: Buffer[] = [];
page.on("response", (r) => {
  if (r.request().resourceType() === "script") void r.body().then((b) => scripts.push(b));
});
page.on("pageerror", (e) => console.log("page error:", e.message));

await page.goto("/");
const loginField = page.getByLabel("Login name");
for (let i = 0; i < SIGN_INS; i++) {
  await loginField.fill("agent1");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-testid=registration][data-status=registered]").waitFor();
  if (i < SIGN_INS - 1) {
    await page.getByRole("button", { name: "Sign out" }).click();
    await loginField.waitFor();
  }
}
const jsLoaded = scripts.reduce((s, b) => s + gzipSync(b, { level: 9 }).length, 0);

const cdp = await context.newCDPSession(page);
async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) await cdp.send("HeapProfiler.collectGarbage");
  // Finalization callbacks (collected peer connections) run after the collection.
  await page.waitForTimeout(300);
  return (await cdp.send("Runtime.getHeapUsage")).usedSize;
}

async function simCall(): Promise<string> {
  const r = await fetch(`${platform.url}/sim/calls`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      destination: "1001",
      frequency: 1000,
      callerIdNumber: "5550100",
      callerIdName: "Bench Caller",
    }),
  });
  return ((await r.json()) as { uuid: string }).uuid;
}

let at20: { heap: number; pcs: Bench["pcs"] } | undefined;
/** Heap after GC along the way, to tell a leak (steady growth) from a level reached early. */
const series: [number, number][] = [];
/** Per call, the underruns of the phone's leg in the platform until the call was hung up. */
const underruns: number[] = [];
const started = Date.now();
for (let n = 1; n <= CALLS; n++) {
  const before = (await bench(page)).firstAudio.length;
  await simCall();
  const answer = page.locator("[data-testid=call][data-state=ringing]").getByRole("button", { name: "Answer" });
  // The second timed series: an agent who lets the call ring a moment (what is prepared meanwhile
  // must still be good, and nothing may have timed out or backed off).
  if (n > TIMED && n <= 2 * TIMED) {
    await answer.waitFor();
    await page.waitForTimeout(PAUSE_MS);
  }
  await answer.click();
  await page.locator("[data-testid=call][data-state=active]").waitFor();
  await page.waitForFunction((k) => (window as unknown as { __bench: Bench }).__bench.firstAudio.length > k, before, {
    timeout: 10_000,
  });
  // The phone's leg in the platform: ticks that found its jitter buffer empty once its audio had come.
  underruns.push(platform.ctx.media.stats().legs.reduce((sum, leg) => sum + leg.jitter.underruns, 0));
  await page.locator("[data-testid=call][data-state=active]").getByRole("button", { name: "Hang up" }).click();
  await page.locator("[data-testid=call][data-state=ended]").first().waitFor();
  // Ended cards are dismissed as an agent would, so the page holds no more than it shows.
  for (const dismiss of await page.getByRole("button", { name: "Dismiss" }).all()) await dismiss.click();
  if (n === 20) at20 = { heap: await heapAfterGc(), pcs: (await bench(page)).pcs };
  if (n >= 20 && n % 30 === 20 && n < CALLS) series.push([n, n === 20 ? at20!.heap : await heapAfterGc()]);
  if (n % 50 === 0) process.stdout.write(`  ${n} calls (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}
const heap200 = await heapAfterGc();
series.push([CALLS, heap200]);
const b = await bench(page);

const pair = (from: number[], to: number[], count: number) => {
  const out: number[] = [];
  for (let i = 0; i < Math.min(count, from.length, to.length); i++) out.push(to[i]! - from[i]!);
  return out;
};
const signIn = stats(pair(b.signInClicks, b.registeredAt, SIGN_INS));
const ringing = stats(pair(b.invites, b.ringingCards, TIMED));
const pageOrigin = await page.evaluate(() => performance.timeOrigin);
/** Every step of the calls' media setup on the page's clock: the page's and the platform's. */
const allSteps: Step[] = [
  ...b.steps.map(([n, t]): Step => [`browser   ${n}`, t]),
  ...platformSteps.steps.map(([n, t]): Step => [`platform  ${n}`, t - pageOrigin]),
].sort((x, y) => x[1] - y[1]);
/** The other half of the first words: the caller (simulated, in the platform) hears the agent's microphone. */
const CALLER_HEARS = "platform  the caller hears the phone";
/**
 * Answer to first audio for the calls `from` to `to` (indexes), and when each step of their
 * media setup happened: while the call rang (after its INVITE reached the page, before the
 * Answer click) or after the click, and how long after.
 */
function answerToAudio(from: number, to: number) {
  to = Math.min(to, b.answerClicks.length, b.invites.length, b.firstAudio.length);
  const audio = stats(pair(b.answerClicks.slice(from, to), b.firstAudio.slice(from, to), to - from));
  const played: number[] = [];
  for (let i = from; i < to; i++) if (b.playedOut[i] !== undefined) played.push(b.playedOut[i]! - b.answerClicks[i]!);
  const ringing = new Map<string, number[]>();
  const answered = new Map<string, number[]>();
  const heard: number[] = [];
  for (let i = from; i < to; i++) {
    const invite = b.invites[i]!;
    const click = b.answerClicks[i]!;
    const seen = new Set<string>();
    for (const [name, at] of allSteps) {
      if (at < invite || at >= (b.invites[i + 1] ?? Infinity) || seen.has(name)) continue;
      seen.add(name);
      const [list, value] = at < click ? [ringing, at - invite] : [answered, at - click];
      list.set(name, [...(list.get(name) ?? []), value]);
      if (name === CALLER_HEARS && at >= click) heard.push(at - click);
    }
  }
  /** Steps seen in more than half of the calls, by median time. */
  const summary = (m: Map<string, number[]>) =>
    [...m]
      .filter(([, v]) => v.length > (to - from) / 2)
      .map(([name, v]) => ({ name, ...stats(v) }))
      .sort((x, y) => x.median - y.median);
  return {
    audio,
    played: stats(played),
    heard: stats(heard),
    ringing: summary(ringing),
    answered: summary(answered),
    calls: to - from,
  };
}
const mb = (v: number) => `${(v / 1024 / 1024).toFixed(1)} MB`;

console.log(
  `JS the agent page downloaded (full layout, English, measured in Chromium): ${(jsLoaded / 1024).toFixed(1)} KB gzip in ${scripts.length} files`,
);
console.log(`sign-in to registered: median ${ms(signIn.median)}, p95 ${ms(signIn.p95)} (${signIn.n} sign-ins)`);
console.log(`INVITE to ringing card: median ${ms(ringing.median)}, p95 ${ms(ringing.p95)} (${ringing.n} calls)`);
for (const [label, from, to] of [
  ["answered as soon as they rang", 0, TIMED],
  [`answered after ${PAUSE_MS / 1000} s of ringing`, TIMED, 2 * TIMED],
] as const) {
  const r = answerToAudio(from, to);
  if (!r.calls) continue;
  // The level comes from the RTP header (RFC 6464), which the local platform sends.
  if (!r.played.n)
    console.log(
      `Answer click to first remote audio played out, calls ${label}: not measured (the received RTP carried no audio level)`,
    );
  else
    console.log(
      `Answer click to first remote audio played out, calls ${label}: median ${ms(r.played.median)}, p95 ${ms(r.played.p95)} (${r.played.n} calls; target: median ≤ 60 ms)`,
    );
  console.log(
    `  the same audio noticed by the page through a Web Audio analyser: median ${ms(r.audio.median)}, p95 ${ms(r.audio.p95)}`,
  );
  console.log(
    `Answer click to the caller hearing the agent's microphone (its first frame over -40 dBFS in the platform's mix), calls ${label}: median ${ms(r.heard.median)}, p95 ${ms(r.heard.p95)} (${r.heard.n} calls; target: median ≤ 60 ms)`,
  );
  console.log(
    `  while the call rang (median ms after its INVITE reached the page): ${r.ringing.map((s) => `${s.name.replace(/ +/, ": ")} ${s.median.toFixed(0)}`).join(", ") || "nothing"}`,
  );
  console.log(`  after the Answer click (ms from the click, median / p95; seen in n calls):`);
  for (const s of r.answered)
    console.log(
      `    ${s.median.toFixed(0).padStart(5)} ${s.p95.toFixed(0).padStart(5)}  ${s.name}${s.n < r.calls ? ` (${s.n})` : ""}`,
    );
  const line = (v: { median: number; p95: number }, what: string) =>
    console.log(`    ${v.median.toFixed(0).padStart(5)} ${v.p95.toFixed(0).padStart(5)}  browser   ${what}`);
  if (r.played.n)
    line(r.played, "first frame over -40 dBFS played out (the receiver's time stamp): the figure; target 60");
  line(r.audio, "first audio over -40 dBFS noticed by the page (an analyser in its own audio graph)");
  const gaps = underruns.slice(from, to);
  console.log(
    `  the phone's audio in the platform, from its first frame to the hang-up (once the page heard the caller): the leg's jitter buffer found empty ${gaps.reduce((a, b) => a + b, 0)} times, in ${gaps.filter((n) => n > 0).length} of ${gaps.length} calls`,
  );
}
console.log(`load average (1, 5, 15 min): ${loadAtStart} at the start, ${load()} at the end`);
if (at20) {
  console.log(
    `page heap after GC: ${mb(at20.heap)} after 20 calls, ${mb(heap200)} after ${CALLS} (${((heap200 - at20.heap) / 1024 / ((CALLS - 20) / 100)).toFixed(0)} KB per 100 calls)`,
  );
  console.log(`page heap along the way: ${series.map(([n, h]) => `${n}: ${mb(h)}`).join(", ")}`);
  const open = (p: Bench["pcs"]) => p.created - p.closed;
  const held = (p: Bench["pcs"]) => p.created - p.collected;
  console.log(
    `RTCPeerConnections: open ${open(at20.pcs)} after 20 calls, ${open(b.pcs)} after ${CALLS}; not yet garbage-collected ${held(at20.pcs)} after 20, ${held(b.pcs)} after ${CALLS} (${b.pcs.created} made in all)`,
  );
}

await browser.close();
await platform.close();
rmSync(dataDir, { recursive: true, force: true });
// The platform loaded native WebRTC: leave explicitly.
process.exit(0);
