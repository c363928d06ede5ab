/**
 * The supervisor's wallboard in Chromium: 2,000 agents, 200 changes a second.
 * - cost per update batch: from the moment the board's batch timer fires to the end of the work it
 *   caused (the store change, the rows re-rendered, the page's layout), median and p95;
 * - the page's JS heap after a garbage collection, each minute, for `--minutes` (default 10):
 *   flat, not growing.
 * The supervisor signs in to the local platform; `GET /api/cc/agent_state` answers 2,000 agents and
 * the event channel is a stand-in in the page that speaks mod_verto's login and subscribe and
 * pushes mod_callcenter's events at the rate asked for.
 *
 * Run: npm run bench -- wallboard   (or npx tsx bench/wallboard.bench.ts [--minutes 10] [--agents 2000] [--rate 200])
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPlatform } from "../platform/platform";
import { idleAgentRecords } from "../src/cc/supervisor/testing/agent-records";
import { buildApp, initScript, launchChromium, option, stats } from "./chromium-page";

const MINUTES = option("minutes", 10);
const AGENTS = option("agents", 2000);
const RATE = option("rate", 200);
const BATCH_MS = 100;

/** In the page before the app: the events stand-in and the timing of the board's batches. */
function instrument() {
  const cfg = (window as unknown as { __benchConfig: { agents: number; rate: number; batchMs: number } }).__benchConfig;
  const b = { batches: [] as number[] };
  (window as unknown as { __bench: typeof b }).__bench = b;

  // Each batch timer of the board (its delay is the batch time): its task, the renders it queued, and the layout.
  const nativeSetTimeout = window.setTimeout.bind(window);
  const channel = new MessageChannel();
  const waiting: (() => void)[] = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  window.setTimeout = ((fn: TimerHandler, delay?: number, ...args: unknown[]) => {
    if (typeof fn !== "function" || delay !== cfg.batchMs) return nativeSetTimeout(fn, delay, ...args);
    return nativeSetTimeout(() => {
      const start = performance.now();
      (fn as (...a: unknown[]) => void)(...args);
      waiting.push(() => {
        void document.body.offsetHeight;
        b.batches.push(performance.now() - start);
      });
      channel.port2.postMessage(0);
    }, delay);
  }) as typeof window.setTimeout;

  const NativeWebSocket = window.WebSocket;
  class EventChannelStandIn extends EventTarget {
    readyState = 0;
    protocol = "";
    onopen: ((e: Event) => void) | null = null;
    onmessage: ((e: MessageEvent) => void) | null = null;
    onclose: ((e: CloseEvent) => void) | null = null;
    onerror: ((e: Event) => void) | null = null;
    private timer: ReturnType<typeof setInterval> | undefined;
    private serial = 0;
    constructor() {
      super();
      nativeSetTimeout(() => {
        this.readyState = 1;
        const e = new Event("open");
        this.onopen?.(e);
        this.dispatchEvent(e);
      }, 0);
    }
    private deliver(data: unknown) {
      const e = new MessageEvent("message", { data: JSON.stringify(data) });
      this.onmessage?.(e);
      this.dispatchEvent(e);
    }
    send(text: string) {
      const messages = [JSON.parse(text)].flat() as { id?: number; method?: string; params?: { eventChannel?: unknown } }[];
      for (const m of messages) {
        if (!m.method || m.id === undefined) continue;
        if (m.method === "login") this.deliver({ jsonrpc: "2.0", id: m.id, result: { message: "logged in", sessid: "bench" } });
        else if (m.method === "verto.subscribe") {
          this.deliver({ jsonrpc: "2.0", id: m.id, result: { subscribedChannels: [m.params?.eventChannel].flat(), sessid: "bench" } });
          this.start();
        } else this.deliver({ jsonrpc: "2.0", id: m.id, result: { sessid: "bench" } });
      }
    }
    private start() {
      let i = 0;
      const perTick = Math.max(1, Math.round(cfg.rate / 20));
      this.timer = setInterval(() => {
        for (let k = 0; k < perTick; k++, i++) {
          const agent = String(10000 + ((i * 7919) % cfg.agents));
          const data =
            i % 2
              ? { "CC-Action": "agent-status-change", "CC-Agent": agent, "CC-Agent-Status": i % 4 === 1 ? "Available" : "On Break", "CC-Agent-Break-Reason": "lunch" }
              : { "CC-Action": "agent-state-change", "CC-Agent": agent, "CC-Agent-State": i % 4 === 0 ? "Waiting" : "Idle" };
          this.deliver({
            jsonrpc: "2.0",
            id: 100000 + this.serial,
            method: "verto.event",
            params: { eventChannel: "FSevent.custom::callcenter::info", eventSerno: this.serial++, data: { "Event-Subclass": "callcenter::info", "Event-Date-Timestamp": String(Date.now() * 1000), ...data } },
          });
        }
      }, 50);
    }
    close() {
      clearInterval(this.timer);
      this.readyState = 3;
    }
    addEventListenerCompat() {}
  }
  window.WebSocket = function (url: string | URL, protocols?: string | string[]) {
    if ([protocols ?? []].flat().includes("sip")) return new NativeWebSocket(url, protocols);
    return new EventChannelStandIn() as unknown as WebSocket;
  } as unknown as typeof WebSocket;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
}

async function main() {
  buildApp();
  const dataDir = mkdtempSync(join(tmpdir(), "agentbar-bench-"));
  const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent" });
  const browser = await launchChromium(440);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ["microphone"] });
    const page = await context.newPage();
    await page.addInitScript(`window.__benchConfig = ${JSON.stringify({ agents: AGENTS, rate: RATE, batchMs: BATCH_MS })};`);
    await page.addInitScript(initScript(instrument));
    const body = JSON.stringify(idleAgentRecords(AGENTS));
    await page.route("**/api/cc/agent_state**", (route) => route.fulfill({ status: 200, contentType: "application/json", body }));
    await page.goto(platform.url);
    await page.getByLabel("Login name").fill("supervisor");
    await page.getByLabel("Password", { exact: true }).fill("Agentbar@2026");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("wallboard-count").filter({ hasText: String(AGENTS) }).waitFor({ timeout: 30_000 });
    const cdp = await context.newCDPSession(page);
    const heap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      return ((await cdp.send("Runtime.getHeapUsage")) as { usedSize: number }).usedSize / 1024 / 1024;
    };
    const heaps: number[] = [await heap()];
    console.log(`${AGENTS} agents, ${RATE} changes/s, batches every ${BATCH_MS} ms, ${MINUTES} min`);
    console.log(`heap at start: ${heaps[0]!.toFixed(1)} MB`);
    for (let minute = 1; minute <= MINUTES; minute++) {
      await page.waitForTimeout(60_000);
      heaps.push(await heap());
      console.log(`heap after ${minute} min: ${heaps.at(-1)!.toFixed(1)} MB`);
    }
    const batches = await page.evaluate(() => (window as unknown as { __bench: { batches: number[] } }).__bench.batches);
    const s = stats(batches);
    console.log(`cost per update batch: median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms (${s.n} batches)`);
    const growth = heaps.length > 2 ? heaps.at(-1)! - heaps[1]! : 0;
    console.log(`heap growth from minute 1 to the end: ${growth.toFixed(1)} MB`);
  } finally {
    await browser.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
