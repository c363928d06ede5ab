/**
 * The call-center toolbar's figures, in Chromium against the local platform, as agent1 gets them:
 * - customer enters the queue to ringing card: from the moment POST /sim/queue-callers is sent
 *   (the bench, in Node) to the ringing card with its queue line in the page; split into the
 *   platform's share (up to the INVITE reaching the page's WebSocket; of which the simulated
 *   customer's call up to mod_callcenter's member-queue-start) and the page's own (INVITE to card).
 *   The caller's story (its earlier calls, read from the call records as the card rings) is timed
 *   from the INVITE to the story on the card; every other run holds the page's record reads back
 *   (the story never comes), so the card's own time is printed with and without the story's read.
 *   The customer hangs up before the agent answers (no delay follows), and the agent's delays are
 *   set to 0, so every run is offered at once.
 * - status change to platform-confirmed status: from the click on the menu item (Ready, or a
 *   Break) to the status control showing the new status with no pending mark (the toolbar shows
 *   a status only once the platform reported it); both directions, alternating.
 * Times in the page are taken inside it (event time stamps, performance.now, a MutationObserver),
 * so Playwright's own round trips are not in the figures. Figure 1 spans two processes: both
 * clocks are read as performance.timeOrigin + performance.now() (wall-clock ms), and how well
 * they agree is measured and printed.
 *
 * Run: npm run bench -- toolbar   (or npx tsx bench/toolbar.bench.ts [--runs 20])
 */
import type { Page } from "@playwright/test";
import { initScript, ms, option, stats } from "./chromium-page";
import { benchStage } from "./bench-stage";
import { runBench } from "./run-bench";

const RUNS = option("runs", 20);
const PASSWORD = "Agentbar@2026";
const AGENT = { login: "agent1", extension: "1001", queue: "support" };
/** Offers follow at once: no wrap-up, no delay after a failed offer, no break after unanswered ones. */
const QUICK_AGENT_INFO = {
  wrap_up_time: "0",
  reject_delay_time: "0",
  busy_delay_time: "0",
  no_answer_delay_time: "0",
  max_no_answer: "0",
};
/** A window to count the page's agent_state requests while nothing happens. */
const IDLE_WINDOW_MS = 6000;

const epochNow = () => performance.timeOrigin + performance.now();
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** In the page before the app: time stamps (wall-clock ms) of what the bench measures. */
function instrument() {
  const epoch = () => performance.timeOrigin + performance.now();
  const b = {
    /** Initial INVITEs reaching the page's WebSocket, with the customer's channel uuid. */
    invites: [] as { at: number; customer: string }[],
    /** Ringing cards: when the card appeared, when it showed its queue line, and the caller's story read. */
    cards: [] as { at: number; queueLineAt: number | null; storyAt: number | null }[],
    /** Status changes: the menu item click and the status control showing `status` with no pending mark. */
    expect: null as { status: string; item: string; clickAt: number | null } | null,
    statusRuns: [] as { status: string; item: string; clickAt: number; doneAt: number }[],
    /** WebSockets the page opened: their subprotocol ('' for none). */
    sockets: [] as string[],
  };
  (window as unknown as { __bench: typeof b }).__bench = b;
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      b.sockets.push([protocols ?? []].flat().join(","));
      // Added before sip.js's own listener: the moment the message reaches the page.
      this.addEventListener("message", (e: MessageEvent) => {
        if (typeof e.data !== "string" || !e.data.startsWith("INVITE ") || /^(To|t):[^\r\n]*;tag=/im.test(e.data))
          return;
        const at = epoch();
        b.invites.push({ at, customer: /^X-CC-Member-Session-UUID:\s*(\S+)/im.exec(e.data)?.[1] ?? "" });
      });
    }
  };
  document.addEventListener(
    "click",
    (e) => {
      const item = (e.target as Element | null)?.closest?.("[role^=menuitem]");
      if (item && b.expect && b.expect.clickAt === null) b.expect.clickAt = performance.timeOrigin + e.timeStamp;
    },
    true,
  );
  let card: Element | null = null;
  new MutationObserver(() => {
    const t = epoch();
    const ringing = document.querySelector("[data-testid=call][data-state=ringing]");
    if (ringing && ringing !== card) {
      card = ringing;
      b.cards.push({ at: t, queueLineAt: null, storyAt: null });
    }
    const last = b.cards.at(-1);
    if (ringing && last && last.queueLineAt === null && ringing.querySelector("[data-testid=call-queue]"))
      last.queueLineAt = t;
    if (
      ringing &&
      last &&
      last.storyAt === null &&
      ringing.querySelector("[data-testid=caller-story][data-status=ready]")
    )
      last.storyAt = t;
    const x = b.expect;
    if (x && x.clickAt !== null) {
      const control = document.querySelector("[data-testid=agent-status][data-phase=on]");
      const button = control?.querySelector("button[aria-haspopup=menu]");
      if (
        control?.getAttribute("data-status") === x.status &&
        button &&
        !button.hasAttribute("aria-busy") &&
        !button.querySelector(".spinner")
      ) {
        b.statusRuns.push({ status: x.status, item: x.item, clickAt: x.clickAt, doneAt: t });
        b.expect = null;
      }
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-state", "data-status", "aria-busy"],
  });
}

interface Bench {
  invites: { at: number; customer: string }[];
  cards: { at: number; queueLineAt: number | null; storyAt: number | null }[];
  expect: { status: string; item: string; clickAt: number | null } | null;
  statusRuns: { status: string; item: string; clickAt: number; doneAt: number }[];
  sockets: string[];
}
const bench = (page: Page) => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench);

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  everyMs = 5,
): Promise<void> {
  const limit = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > limit) throw new Error(`timed out waiting for ${what}`);
    await wait(everyMs);
  }
}

const stage = benchStage("toolbar");

async function main(): Promise<void> {
  const platform = await stage.platform();
  const url = platform.url;

  // ---- the platform, as an administrator and as the simulated outside world ----
  const api = async <T>(method: string, path: string, body?: unknown, token?: string): Promise<T> => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(token ? { "X-XTRA-AUTH-ID": token } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };
  const admin = (await api<{ token: string }>("POST", "/api/sessions", { login: "admin", password: PASSWORD })).token;
  const users = await api<{ data: { id: number; login: string }[] }>(
    "GET",
    `/api/users?login=${AGENT.login}`,
    undefined,
    admin,
  );
  const agentId = users.data.find((u) => u.login === AGENT.login)?.id;
  if (agentId === undefined) throw new Error(`no user ${AGENT.login}`);
  await api("PUT", `/api/users/${agentId}`, { agent_info: QUICK_AGENT_INFO }, admin);
  interface AgentRecord {
    agent_id: string;
    status: string;
    cc_state: string;
    callstate: string;
    ready_time: string;
  }
  const agentRecord = async () =>
    (await api<AgentRecord[]>("GET", `/api/cc/agent_state?queue=${AGENT.queue}`, undefined, admin)).find(
      (r) => r.agent_id === AGENT.extension,
    );

  // When mod_callcenter's engine sees each customer enter the queue and offers it (in this process).
  const entered = new Map<string, number>();
  const offered = new Map<string, number>();
  platform.callCenter.engine.events.on("event", (e) => {
    if (e["CC-Action"] === "member-queue-start") entered.set(e["CC-Member-Session-UUID"] ?? "", epochNow());
    if (e["CC-Action"] === "agent-offering") offered.set(e["CC-Member-Session-UUID"] ?? "", epochNow());
  });

  // ---- the agent's page ----
  const browser = await stage.chromium(440);
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.addInitScript(initScript(instrument));
  page.on("pageerror", (e) => console.log("page error:", e.message));
  const agentStateRequests: number[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/cc/agent_state")) agentStateRequests.push(Date.now());
  });
  const agentStateRate = async () => {
    const from = Date.now();
    await wait(IDLE_WINDOW_MS);
    return (agentStateRequests.filter((t) => t >= from).length * 1000) / IDLE_WINDOW_MS;
  };

  await page.goto("/");
  await page.getByLabel("Login name").fill(AGENT.login);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-testid=registration][data-status=registered]").waitFor();
  const status = page.locator("[data-testid=agent-status][data-phase=on]");
  await status.waitFor();
  // The feed settles (an event channel, when there is one, opens right after the queues are joined).
  await wait(1000);
  const feed = (await page.locator("[data-testid=queues] .feed").getAttribute("class"))?.includes("feed-events")
    ? "events"
    : "polling";
  const feedText = (await page.locator("[data-testid=queues] .feed").textContent())?.trim() ?? "";
  const idleRateAtStart = await agentStateRate();

  // How far apart the page's clock and this process's are: the reading with the shortest round trip.
  let clock = { offset: 0, within: Infinity };
  for (let i = 0; i < 20; i++) {
    const before = epochNow();
    const inPage = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = epochNow();
    if ((after - before) / 2 < clock.within)
      clock = { offset: inPage - (before + after) / 2, within: (after - before) / 2 };
  }

  /** Picks a menu item of the status control and waits until the platform-confirmed status shows. */
  const changeStatus = async (item: "Ready" | "Break", expected: string) => {
    await page.evaluate((x) => ((window as unknown as { __bench: Bench }).__bench.expect = { ...x, clickAt: null }), {
      status: expected,
      item,
    });
    await page.getByRole("button", { name: /^Status:/ }).click();
    const menuItem =
      item === "Ready"
        ? page.getByRole("menuitemradio", { name: "Ready", exact: true })
        : page.getByRole("menuitemradio", { name: /^Break:/ }).first();
    await menuItem.click();
    await page.waitForFunction(() => (window as unknown as { __bench: Bench }).__bench.expect === null);
  };

  // ---- 1. customer enters the queue -> ringing card (and the caller's story) ----
  await changeStatus("Ready", "Available");
  const sent: { at: number; customer: string; story: boolean }[] = [];
  // Runs without the story: the page's record reads are held until the card is gone, then failed.
  let held: (() => void)[] = [];
  let holdRecords = false;
  await page.route("**/api/cdrs?**", async (route) => {
    if (!holdRecords) return route.continue();
    await new Promise<void>((resolve) => held.push(resolve));
    await route.abort();
  });
  for (let i = 0; i < RUNS * 2; i++) {
    const story = i % 2 === 0;
    holdRecords = !story;
    await until("the agent free and ready on the platform", async () => {
      const r = await agentRecord();
      return r?.status === "Available" && r.cc_state === "Waiting" && r.callstate === "IDLE" && !r.ready_time;
    });
    const cardsBefore = (await bench(page)).cards.length;
    const at = epochNow();
    const caller = await api<{ id: string; uuid: string }>("POST", "/sim/queue-callers", {
      queue: AGENT.queue,
      callerIdNumber: `555010${i % 10}`,
      callerIdName: `Bench Customer ${i + 1}`,
      toneHz: 660,
      patienceSeconds: 30,
    });
    sent.push({ at, customer: caller.uuid, story });
    await page.waitForFunction(
      ([k, story]) => {
        const cards = (window as unknown as { __bench: Bench }).__bench.cards;
        return cards.length > k && cards.at(-1)!.queueLineAt !== null && (!story || cards.at(-1)!.storyAt !== null);
      },
      [cardsBefore, story] as const,
    );
    // The customer hangs up before the agent answers: no delay for the agent (ORIGINATOR_CANCEL).
    await api("DELETE", `/sim/queue-callers/${caller.id}`);
    await page.locator("[data-testid=call][data-state=ringing]").waitFor({ state: "detached" });
    held.forEach((release) => release());
    held = [];
    for (const dismiss of await page.getByRole("button", { name: "Dismiss" }).all())
      await dismiss.click().catch(() => {});
  }

  // ---- 2. status menu click -> platform-confirmed status ----
  for (let i = 0; i < RUNS; i++) {
    await changeStatus("Break", "On Break");
    await changeStatus("Ready", "Available");
  }
  const idleRateAtEnd = await agentStateRate();

  // ---- figures ----
  const b = await bench(page);
  const cards = b.cards.slice(-2 * RUNS);
  if (cards.length !== 2 * RUNS || sent.length !== 2 * RUNS)
    throw new Error(`${cards.length} ringing cards for ${sent.length} customers`);
  const total: number[] = [];
  const platformShare: number[] = [];
  const entering: number[] = [];
  const engine: number[] = [];
  const agentLeg: number[] = [];
  const pageShare: number[] = [];
  const cardToQueueLine: number[] = [];
  const withoutStory: number[] = [];
  const inviteToStory: number[] = [];
  const cardToStory: number[] = [];
  let unmatched = 0;
  sent.forEach((s, i) => {
    const card = cards[i]!;
    const shown = card.queueLineAt!;
    if (!s.story) {
      const invite = b.invites.find((v) => v.customer === s.customer);
      if (invite) withoutStory.push(shown - invite.at);
      return;
    }
    total.push(shown - s.at);
    cardToQueueLine.push(shown - card.at);
    const invite = b.invites.find((v) => v.customer === s.customer);
    const joined = entered.get(s.customer);
    const offer = offered.get(s.customer);
    if (!invite || joined === undefined || offer === undefined) return void unmatched++;
    platformShare.push(invite.at - s.at);
    entering.push(joined - s.at);
    engine.push(offer - joined);
    agentLeg.push(invite.at - offer);
    pageShare.push(shown - invite.at);
    inviteToStory.push(card.storyAt! - invite.at);
    cardToStory.push(card.storyAt! - card.at);
  });
  const runs = b.statusRuns.slice(1); // the first Ready only made the agent ready for the offers
  const toReady = runs.filter((r) => r.status === "Available").map((r) => r.doneAt - r.clickAt);
  const toBreak = runs.filter((r) => r.status === "On Break").map((r) => r.doneAt - r.clickAt);
  if (toReady.length !== RUNS || toBreak.length !== RUNS)
    throw new Error(`${toReady.length} Ready and ${toBreak.length} Break changes measured, ${RUNS} each expected`);

  const line = (name: string, values: number[], extra = "") => {
    const s = stats(values);
    console.log(`  ${name}: median ${ms(s.median)}, p95 ${ms(s.p95)}${extra}`);
  };
  const eventSockets = b.sockets.filter((p) => !p.split(",").includes("sip")).length;
  console.log(
    `status and queue feed: ${feed === "events" ? "events (the event channel is open)" : "polling agent_state (no event channel)"}; the queue list says "${feedText}"; ` +
      `the page opened ${b.sockets.length} WebSocket(s), ${eventSockets} of them not SIP`,
  );
  console.log(
    `page clock against the bench's: ${clock.offset >= 0 ? "+" : ""}${clock.offset.toFixed(1)} ms, read within ±${clock.within.toFixed(1)} ms`,
  );
  console.log(
    `customer enters the queue (POST /sim/queue-callers sent) to ringing card with its queue line in the page (${RUNS} customers, each hung up before answer):`,
  );
  line("in all", total);
  if (unmatched)
    console.log(
      `  (${unmatched} customers without a matched INVITE, member-queue-start or agent-offering: left out of the split)`,
    );
  line("the platform's share, to the INVITE at the page's WebSocket", platformShare);
  line("  of which the customer's call until member-queue-start", entering);
  line("  of which member-queue-start to agent-offering (the engine)", engine);
  line("  of which agent-offering to the INVITE at the page (the agent leg: its media offer, SIP)", agentLeg);
  line("the toolbar's own, INVITE at the WebSocket to ringing card", pageShare);
  if (cardToQueueLine.some((v) => v > 0)) line("  of which ringing card to its queue line", cardToQueueLine);
  line(
    `  the same, ${withoutStory.length} more customers with the story's record read held back (the card without the story)`,
    withoutStory,
  );
  console.log(
    `the caller's story (earlier calls of the number, from GET /api/cdrs) on the ringing card (${inviteToStory.length} customers, 10 numbers calling again):`,
  );
  line("INVITE at the WebSocket to the story on the card", inviteToStory);
  line("  of which after the card showed", cardToStory);
  console.log(
    `status menu click to the platform-confirmed status shown, no pending mark (${RUNS} each way, alternating):`,
  );
  line('"Ready" to Available', toReady);
  line('"Break: <reason>" to On Break', toBreak);
  console.log(
    `agent_state requests from the page while nothing happens: ${idleRateAtStart.toFixed(1)}/s after sign-in, ${idleRateAtEnd.toFixed(1)}/s after ${2 * RUNS + 1} status changes`,
  );
}

await runBench("toolbar", main, stage.cleanUp);
