/**
 * The supervisor's wallboard in Chromium: 2,000 agents, 2,000 changes a second (each event changes
 * its agent: half of them a status, which places the agent again in the board's order, half a
 * state), a day of 20,000 call records (10,526 callers, nine in ten answered, and the agents' legs
 * they were bridged to, across the two queues), written into the platform's own store and read
 * through its `GET /api/cdrs`.
 * - today's figures: from the sign-in to the board's 2,000 agents, and to every queue's figures
 *   read from the records (`--records`, default 20,000); then "after open" as the target means
 *   it (docs/decisions.md): a signed-in supervisor reloads the board (`--reloads`, default 5),
 *   from the page's navigation to the agents and to every queue's figures, the median: the day
 *   kept in the browser since the first opening, only what ended since is read; and the same
 *   with nothing kept (`--first-opens`, default 3: the day's first opening in this browser, the
 *   whole day read);
 * - frame time: the interval between the page's animation frames while the changes stream in
 *   (median, p95), the frames that took over 33 ms (one frame dropped at 60 Hz) and over 50 ms,
 *   and Chromium's long animation frames (50 ms and more) with the longest;
 * - cost per update batch: from the moment the board's batch timer fires to the end of the work it
 *   caused (the store change, the rows re-rendered in the microtasks that follow, then the style
 *   and layout of what changed, forced there), median and p95;
 * - the page's JS heap after a garbage collection, each minute, for `--minutes` (default 10, the
 *   figure reported; CI does not run benchmarks): flat, not growing.
 * Timings are kept in fixed histograms in the page, so that measuring adds nothing to the heap.
 * The supervisor signs in to the local platform; `GET /api/cc/agent_state` answers 2,000 agents (or a
 * queue's, as the platform does) and
 * the event channel is a stand-in in the page that speaks mod_verto's login and subscribe and
 * pushes mod_callcenter's events at the rate asked for.
 *
 * Run: npm run bench -- wallboard   (or npx tsx bench/wallboard.bench.ts [--minutes 10] [--agents 2000] [--rate 2000]
 * [--records 20000] [--reloads 5] [--first-opens 3]; the default rate makes batches of 200 changes, the target's)
 * `--profile <folder>` also writes the page's CPU profiles there: from the sign-in to every queue's
 * figures (open.cpuprofile), from the first reload to them (reload.cpuprofile), from the first opening
 * with nothing kept to them (first-open.cpuprofile) and the first
 * minute of changes (changes.cpuprofile), for Chromium's DevTools or any .cpuprofile reader; the app
 * is then built without minifying, so that the profiles name its functions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CdrStore, NewCdr } from "../platform/cdr/cdr-store";
import { startPlatform } from "../platform/platform";
import type { Db } from "../platform/store/db";
import { idleAgentRecords } from "../src/cc/supervisor/testing/agent-records";
import { buildApp, initScript, launchChromium, option } from "./chromium-page";

const MINUTES = option("minutes", 10);
const AGENTS = option("agents", 2000);
const RATE = option("rate", 2000);
const RECORDS = option("records", 20_000);
const RELOADS = option("reloads", 5);
const FIRST_OPENS = option("first-opens", 3);
const BATCH_MS = 100;
const PROFILE = process.argv.includes("--profile") ? process.argv[process.argv.indexOf("--profile") + 1] : undefined;

const QUEUE_NAMES = ["support", "sales"];

/**
 * A day's call records of each queue, written into the platform's own store as its switch writes
 * them (every column, the call center's variables): the board reads them through the platform's
 * `GET /api/cdrs`, its query and its paging, as it would in a centre.
 */
function writeDayRecords(cdrs: CdrStore, db: Db, total: number): void {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const span = Date.now() - midnight.getTime() - 60_000;
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = (ms: number) => {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  };
  const epoch = (ms: number) => String(Math.floor(ms / 1000));
  const leg = (o: Partial<NewCdr> & Pick<NewCdr, "uuid" | "variables">): NewCdr => ({
    bleg_uuid: "",
    other_uuid: "",
    caller_id_name: "",
    caller_id_number: "",
    destination_number: "",
    start_stamp: "",
    ring_stamp: "",
    answer_stamp: "",
    end_stamp: "",
    duration: 0,
    billsec: 0,
    account_code: "",
    hangup_cause: "NORMAL_CLEARING",
    sip_hangup_disposition: "recv_bye",
    network_addr: "127.0.0.1",
    network_port: "5060",
    context: "default",
    direction: "inbound",
    realm: "agentbar.local",
    external_tracking_id: "",
    caller_source: "sip",
    digits_dialed: "",
    sip_call_id: "",
    xui_route_ids: "",
    abs_path: "",
    rel_path: "",
    rtp_use_codec_name: "opus",
    xui_hangup_cause: "",
    media_file_id: null,
    extn: "",
    user_id: null,
    ...o,
  });
  // Nine callers in ten answered have two legs (theirs and the agent's): `total` legs in all.
  const callers = Math.round(total / 1.9);
  db.transaction(() => {
    for (let i = 0; i < callers; i++) {
      const queue = QUEUE_NAMES[i % QUEUE_NAMES.length]!;
      const joined = midnight.getTime() + Math.floor((span * i) / callers);
      const agent = String(10000 + ((i * 7) % 2000));
      const abandoned = i % 10 === 0;
      const answered = joined + 5_000 + (i % 40) * 1000;
      const ended = abandoned ? joined + 30_000 : answered + 120_000 + (i % 300) * 1000;
      const caller = { caller_id_name: `Caller ${i}`, caller_id_number: `555${i}`, sip_call_id: `call-${i}` };
      cdrs.insert(
        leg({
          ...caller,
          uuid: `m-${i}`,
          other_uuid: abandoned ? "" : `a-${i}`,
          destination_number: queue,
          start_stamp: stamp(joined),
          answer_stamp: stamp(joined),
          end_stamp: stamp(ended),
          duration: Math.round((ended - joined) / 1000),
          billsec: Math.round((ended - joined) / 1000),
          variables: JSON.stringify({
            cc_side: "member",
            cc_queue: queue,
            cc_queue_joined_epoch: epoch(joined),
            ...(abandoned
              ? { cc_queue_canceled_epoch: epoch(ended) }
              : { cc_queue_answered_epoch: epoch(answered), cc_agent: agent, cc_queue_terminated_epoch: epoch(ended) }),
          }),
        }),
      );
      if (!abandoned)
        cdrs.insert(
          leg({
            ...caller,
            uuid: `a-${i}`,
            other_uuid: `m-${i}`,
            destination_number: agent,
            direction: "outbound",
            extn: agent,
            start_stamp: stamp(answered - 3000),
            ring_stamp: stamp(answered - 3000),
            answer_stamp: stamp(answered),
            end_stamp: stamp(ended),
            duration: Math.round((ended - answered + 3000) / 1000),
            billsec: Math.round((ended - answered) / 1000),
            variables: JSON.stringify({ cc_side: "agent", cc_queue: queue, cc_agent: agent }),
          }),
        );
    }
  })();
}

/** In the page before the app: the events stand-in and the timing of the board's batches. */
function instrument() {
  const cfg = (window as unknown as { __benchConfig: { agents: number; rate: number; batchMs: number } }).__benchConfig;
  /** Counts per `step` ms up to `max` (the last bucket takes everything above), the number, the longest. */
  const histogram = (step: number, max: number) => ({
    step,
    counts: new Uint32Array(Math.ceil(max / step) + 1),
    n: 0,
    longest: 0,
  });
  type Histogram = ReturnType<typeof histogram>;
  const add = (h: Histogram, v: number) => {
    h.counts[Math.min(h.counts.length - 1, Math.floor(v / h.step))]!++;
    h.n++;
    if (v > h.longest) h.longest = v;
  };
  const b = {
    batches: histogram(0.1, 200),
    frames: histogram(0.5, 1000),
    longFrames: { n: 0, longest: 0 },
    /** Starts counting again (after the first read and the warm-up). */
    reset() {
      b.batches = histogram(0.1, 200);
      b.frames = histogram(0.5, 1000);
      b.longFrames = { n: 0, longest: 0 };
    },
    read: () => ({
      batches: { ...b.batches, counts: [...b.batches.counts] },
      frames: { ...b.frames, counts: [...b.frames.counts] },
      longFrames: b.longFrames,
    }),
  };
  (window as unknown as { __bench: typeof b }).__bench = b;

  // Frame time: the interval between animation frames, as the page draws while the changes stream in.
  let lastFrame = 0;
  const frame = (t: number) => {
    if (lastFrame) add(b.frames, t - lastFrame);
    lastFrame = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  // Chromium's long animation frames (the work of a frame that took 50 ms or more).
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        b.longFrames.n++;
        b.longFrames.longest = Math.max(b.longFrames.longest, e.duration);
      }
    }).observe({ type: "long-animation-frame", buffered: false });
  } catch {
    // A browser without the API: the frame intervals still tell.
  }

  // Each batch timer of the board (its delay is the batch time): its task, the renders it queued
  // (Preact renders in a microtask queued by the store's change, the signals' text bindings two
  // microtasks later) and the style and layout of what they changed, forced at their end. Not a
  // task after it: the page may draw a frame (its paint, other animation-frame callbacks) or run
  // other tasks between the two, which are not the batch's work.
  const nativeSetTimeout = window.setTimeout.bind(window);
  window.setTimeout = ((fn: TimerHandler, delay?: number, ...args: unknown[]) => {
    if (typeof fn !== "function" || delay !== cfg.batchMs) return nativeSetTimeout(fn, delay, ...args);
    return nativeSetTimeout(() => {
      const start = performance.now();
      (fn as (...a: unknown[]) => void)(...args);
      queueMicrotask(() =>
        queueMicrotask(() =>
          queueMicrotask(() => {
            void document.body.offsetHeight;
            add(b.batches, performance.now() - start);
          }),
        ),
      );
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
      const messages = [JSON.parse(text)].flat() as {
        id?: number;
        method?: string;
        params?: { eventChannel?: unknown };
      }[];
      for (const m of messages) {
        if (!m.method || m.id === undefined) continue;
        if (m.method === "login")
          this.deliver({ jsonrpc: "2.0", id: m.id, result: { message: "logged in", sessid: "bench" } });
        else if (m.method === "verto.subscribe") {
          this.deliver({
            jsonrpc: "2.0",
            id: m.id,
            result: { subscribedChannels: [m.params?.eventChannel].flat(), sessid: "bench" },
          });
          this.start();
        } else this.deliver({ jsonrpc: "2.0", id: m.id, result: { sessid: "bench" } });
      }
    }
    private start() {
      let i = 0;
      const perTick = Math.max(1, Math.round(cfg.rate / 20));
      this.timer = setInterval(() => {
        for (let k = 0; k < perTick; k++, i++) {
          // Agent `i * 7919 % agents` (7919 is prime: every agent once per `agents` events, always
          // the same kind of event); each visit turns what it says back and forth, so that every
          // event changes the board: a status (Available, or On Break for lunch; either places the
          // agent again in the status order) or a state (Waiting or Idle, in place).
          const agent = String(10000 + ((i * 7919) % cfg.agents));
          const flip = i % 4 < 2 === (Math.floor(i / cfg.agents) % 2 === 0);
          const data =
            i % 2
              ? {
                  "CC-Action": "agent-status-change",
                  "CC-Agent": agent,
                  ...(flip
                    ? { "CC-Agent-Status": "Available" }
                    : { "CC-Agent-Status": "On Break", "CC-Agent-Break-Reason": "lunch" }),
                }
              : {
                  "CC-Action": "agent-state-change",
                  "CC-Agent": agent,
                  "CC-Agent-State": flip ? "Waiting" : "Idle",
                };
          this.deliver({
            jsonrpc: "2.0",
            id: 100000 + this.serial,
            method: "verto.event",
            params: {
              eventChannel: "FSevent.custom::callcenter::info",
              eventSerno: this.serial++,
              data: {
                "Event-Subclass": "callcenter::info",
                "Event-Date-Timestamp": String(Date.now() * 1000),
                ...data,
              },
            },
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

interface Histogram {
  step: number;
  counts: number[];
  n: number;
  longest: number;
}
interface Reading {
  frames: Histogram;
  batches: Histogram;
  longFrames: { n: number; longest: number };
}
const readings: Reading[] = [];

function merge(hs: Histogram[]): Histogram {
  const first = hs[0]!;
  return {
    step: first.step,
    counts: first.counts.map((_, i) => hs.reduce((a, h) => a + h.counts[i]!, 0)),
    n: hs.reduce((a, h) => a + h.n, 0),
    longest: Math.max(...hs.map((h) => h.longest)),
  };
}

/** Median and p95 of a histogram: the upper edge of the bucket the quantile falls in. */
function quantiles(h: Histogram): { median: number; p95: number } {
  const at = (q: number) => {
    let seen = 0;
    for (let i = 0; i < h.counts.length; i++) {
      seen += h.counts[i]!;
      if (seen >= q * h.n) return (i + 1) * h.step;
    }
    return h.longest;
  };
  return { median: at(0.5), p95: at(0.95) };
}

/**
 * When the opening page first shows every agent and every queue's figures of the day: checked at
 * each of its animation frames (the moment a frame would paint them), not by the test's polling of
 * the page, which after its first few tries looks only every 500 ms.
 */
function openingTimes() {
  const { agents, queues } = (window as unknown as { __benchOpening: { agents: number; queues: string[] } })
    .__benchOpening;
  // `busy`: the page's thread in long tasks (over 50 ms each) until the figures show.
  const shown = { agents: 0, figures: 0, busy: 0 };
  (window as unknown as { __benchShown: typeof shown }).__benchShown = shown;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!shown.figures || e.startTime < shown.figures) shown.busy += e.duration;
  }).observe({ type: "longtask", buffered: true });
  const check = () => {
    const t = performance.now();
    if (!shown.agents && document.querySelector("[data-testid=wallboard-count]")?.textContent?.includes(String(agents)))
      shown.agents = t;
    if (
      !shown.figures &&
      queues.every((q) =>
        document
          .querySelector(`.queue-tile[data-queue=${q}] [data-testid=queue-day-source]`)
          ?.textContent?.trim()
          .startsWith("Today since"),
      )
    )
      shown.figures = t;
    if (!(shown.agents && shown.figures) && t < 60_000) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

async function main() {
  buildApp({ readable: !!PROFILE });
  const dataDir = mkdtempSync(join(tmpdir(), "agentbar-bench-"));
  const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent" });
  const browser = await launchChromium(440);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ["microphone"] });
    const page = await context.newPage();
    await page.addInitScript(
      `window.__benchConfig = ${JSON.stringify({ agents: AGENTS, rate: RATE, batchMs: BATCH_MS })};`,
    );
    await page.addInitScript(initScript(instrument));
    await page.addInitScript(`window.__benchOpening = ${JSON.stringify({ agents: AGENTS, queues: QUEUE_NAMES })};`);
    await page.addInitScript(initScript(openingTimes));
    const queueIds = new Map(
      (platform.ctx.db.prepare("SELECT id, name FROM queues").all() as { id: number; name: string }[]).map((q) => [
        q.name,
        String(q.id),
      ]),
    );
    writeDayRecords(platform.ctx.cdrs, platform.ctx.db, RECORDS);
    const agents = idleAgentRecords(AGENTS).map((a) => ({ ...a, queue_id: queueIds.get(a.group_id)! }));
    // Every agent, or one queue's (`?queue=`), as the platform answers.
    const bodies = new Map([
      ["", JSON.stringify(agents)],
      ...QUEUE_NAMES.map((q) => [q, JSON.stringify(agents.filter((a) => a.group_id === q))] as const),
    ]);
    await page.route("**/api/cc/agent_state**", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: bodies.get(new URL(route.request().url()).searchParams.get("queue") ?? "") ?? "[]",
      }),
    );
    await page.goto(platform.url);
    await page.getByLabel("Login name").fill("supervisor");
    await page.getByLabel("Password", { exact: true }).fill("Agentbar@2026");
    const cdp = await context.newCDPSession(page);
    const profile = async (name: string, during: () => Promise<void>) => {
      if (!PROFILE) return during();
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
      await during();
      const { profile: p } = await cdp.send("Profiler.stop");
      mkdirSync(PROFILE, { recursive: true });
      writeFileSync(join(PROFILE, `${name}.cpuprofile`), JSON.stringify(p));
    };
    /** The board shows every agent. */
    const agentsThere = () =>
      page
        .getByTestId("wallboard-count")
        .filter({ hasText: String(AGENTS) })
        .waitFor({ timeout: 30_000 });
    /** Every queue's tile shows today's figures from the records (all of them read). */
    const figuresThere = async () => {
      for (const q of QUEUE_NAMES)
        await page
          .locator(`.queue-tile[data-queue=${q}]`)
          .getByTestId("queue-day-source")
          .filter({ hasText: /^Today since/ })
          .waitFor({ timeout: 60_000 });
    };
    const signIn = Date.now();
    let agentsShown = 0;
    await profile("open", async () => {
      await page.getByRole("button", { name: "Sign in" }).click();
      await agentsThere();
      agentsShown = Date.now() - signIn;
      await figuresThere();
    });
    const figuresShown = Date.now() - signIn;
    const offered = await page
      .locator(".queue-tile [data-testid=queue-offered]")
      .evaluateAll((dds) => dds.reduce((n, d) => n + Number(d.textContent), 0));
    console.log(
      `sign-in to the board's ${AGENTS} agents: ${agentsShown} ms; to today's figures of every queue from ${RECORDS} records: ${figuresShown} ms (${figuresShown - agentsShown} ms after the agents; ${offered} callers offered)`,
    );
    // "After open" (docs/decisions.md, "Today's figures 'after open'"): a signed-in supervisor reloads
    // the board; from the page's navigation (its time origin) to every queue's figures of the day,
    // timed in the page at the first animation frame that shows them (see `openingTimes`). With the
    // day kept in the browser (a reload), then with nothing kept (the day's first opening there).
    const reloads = async (count: number, kept: boolean) => {
      const opens: { agents: number; figures: number; busy: number; asked: number; lastPage: number }[] = [];
      for (let i = 0; i < count; i++) {
        let agents = 0;
        let figures = 0;
        let busy = 0;
        // When the day's first records were asked and its last page was in (Resource Timing): what
        // the platform's pages take, beside what the page makes of them.
        let pages = { asked: 0, lastPage: 0 };
        const open = async () => {
          // Deleted once the page that holds it open goes: before the next one opens it.
          if (!kept) await page.evaluate(() => void indexedDB.deleteDatabase("agentbar-day-records"));
          await page.reload();
          await agentsThere();
          await figuresThere();
          ({ agents, figures, busy } = await page.evaluate(
            () =>
              (window as unknown as { __benchShown: { agents: number; figures: number; busy: number } }).__benchShown,
          ));
          pages = await page.evaluate(() => {
            const cdrs = performance
              .getEntriesByType("resource")
              .filter(
                (e) => e.name.includes("/api/cdrs") && e.name.includes("groupValue"),
              ) as PerformanceResourceTiming[];
            return {
              asked: Math.min(...cdrs.map((e) => e.startTime)),
              lastPage: Math.max(...cdrs.map((e) => e.responseEnd)),
            };
          });
        };
        if (i === 0) await profile(kept ? "reload" : "first-open", open);
        else await open();
        opens.push({ agents, figures, busy, ...pages });
        const again = await page
          .locator(".queue-tile [data-testid=queue-offered]")
          .evaluateAll((dds) => dds.reduce((n, d) => n + Number(d.textContent), 0));
        if (again !== offered) throw new Error(`after a reload ${again} callers offered, before ${offered}`);
      }
      if (!opens.length) return;
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const figures = opens.map((o) => o.figures);
      console.log(
        `a signed-in supervisor ${kept ? "reloading the board (the day kept in the browser: what ended since is read)" : "opening the board with nothing kept in the browser (the whole day read)"}, from the page's navigation: the ${AGENTS} agents in ${median(opens.map((o) => o.agents)).toFixed(0)} ms, today's figures of every queue in ${median(figures).toFixed(0)} ms (median of ${opens.length}: ${figures.map((f) => f.toFixed(0)).join(", ")} ms)`,
      );
      console.log(
        `  the day's records asked at ${median(opens.map((o) => o.asked)).toFixed(0)} ms, the last page in at ${median(opens.map((o) => o.lastPage)).toFixed(0)} ms (medians; each one's last page: ${opens.map((o) => o.lastPage.toFixed(0)).join(", ")} ms); the page's thread in long tasks until the figures: ${median(opens.map((o) => o.busy)).toFixed(0)} ms (median; ${opens.map((o) => o.busy.toFixed(0)).join(", ")} ms)`,
      );
    };
    await reloads(RELOADS, true);
    await reloads(FIRST_OPENS, false);
    const heap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      return ((await cdp.send("Runtime.getHeapUsage")) as { usedSize: number }).usedSize / 1024 / 1024;
    };
    const heaps: number[] = [await heap()];
    console.log(`${AGENTS} agents, ${RATE} changes/s, batches every ${BATCH_MS} ms, ${MINUTES} min`);
    console.log(`heap at start: ${heaps[0]!.toFixed(1)} MB`);
    // The garbage collection above is a long frame of its own: counting starts after it.
    await page.waitForTimeout(2_000);
    await page.evaluate(() => (window as unknown as { __bench: { reset(): void } }).__bench.reset());
    for (let minute = 1; minute <= MINUTES; minute++) {
      if (minute === 1) await profile("changes", () => page.waitForTimeout(60_000));
      else await page.waitForTimeout(60_000);
      // Each reading's garbage collection stalls the page: the frames are read and counted again around it.
      const r = await page.evaluate(() => (window as unknown as { __bench: { read(): Reading } }).__bench.read());
      readings.push(r);
      heaps.push(await heap());
      await page.waitForTimeout(2_000);
      await page.evaluate(() => (window as unknown as { __bench: { reset(): void } }).__bench.reset());
      console.log(`heap after ${minute} min: ${heaps.at(-1)!.toFixed(1)} MB`);
    }
    if (!readings.length) return;
    const frames = merge(readings.map((r) => r.frames));
    const batches = merge(readings.map((r) => r.batches));
    const f = quantiles(frames);
    const over = (ms: number) => frames.counts.slice(Math.ceil(ms / frames.step)).reduce((a, c) => a + c, 0);
    const longFrames = readings.reduce(
      (a, r) => ({ n: a.n + r.longFrames.n, longest: Math.max(a.longest, r.longFrames.longest) }),
      { n: 0, longest: 0 },
    );
    console.log(
      `frame time: median ${f.median.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, longest ${frames.longest.toFixed(0)} ms (${frames.n} frames)`,
    );
    console.log(
      `frames over 33 ms (a frame dropped at 60 Hz): ${over(33.5)} (${((100 * over(33.5)) / Math.max(1, frames.n)).toFixed(2)} %); over 50 ms: ${over(50)}`,
    );
    console.log(
      `long animation frames (Chromium, 50 ms and more): ${longFrames.n}, longest ${longFrames.longest.toFixed(0)} ms`,
    );
    const s = quantiles(batches);
    console.log(
      `cost per update batch: median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms (${batches.n} batches)`,
    );
    const growth = heaps.length > 2 ? heaps.at(-1)! - heaps[1]! : 0;
    console.log(`heap growth from minute 1 to the end: ${growth.toFixed(1)} MB`);
  } finally {
    await browser.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
