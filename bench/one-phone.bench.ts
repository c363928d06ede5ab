/**
 * One phone per agent, in Chromium against the local platform:
 * - reload to customer heard again: agent1 talks with a queue's customer and reloads its page,
 *   again and again during the same call. From the reload (page.reload sent) and from the page
 *   being back (its load event) to the moment the customer hears the agent's tone again (the
 *   simulated customer's analysis, polled every 25 ms, hears it again after a moment without it). In
 *   between, the reloaded page signs in from its kept session, registers, joins its queues, reads
 *   agent_state, asks ccIntercept of its own call and answers the leg the platform sends.
 *
 * Run: npm run bench -- one-phone   (or npx tsx bench/one-phone.bench.ts [--runs 10])
 */
import { ms, option, stats } from "./chromium-page";
import { benchStage } from "./bench-stage";
import { runBench } from "./run-bench";

const RUNS = option("runs", 10);
const PASSWORD = "Agentbar@2026";
const AGENT_TONE = 440;
const CUSTOMER_TONE = 660;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const near = (hz: number, target: number) => Math.abs(hz - target) <= 15;

const stage = benchStage("one-phone");

async function main(): Promise<void> {
  const platform = await stage.platform({ simRingMs: 300 });
  const url = platform.url;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: body !== undefined ? { "content-type": "application/json" } : {},
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };

  const browser = await stage.chromium(AGENT_TONE);
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => console.log("page error:", e.message));
  // The page asks before it goes away during a call; the agent confirms (the reload goes on).
  page.on("dialog", (d) => void d.accept());
  await page.goto("/");
  await page.getByLabel("Login name").fill("agent1");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-testid=agent-status][data-phase=on]").waitFor();
  await page.getByRole("button", { name: /^Status:/ }).click();
  await page.getByRole("menuitemradio", { name: "Ready", exact: true }).click();
  await page.locator("[data-testid=agent-status][data-status=Available]").waitFor();

  const caller = await api<{ id: string; uuid: string }>("POST", "/sim/queue-callers", {
    queue: "support",
    callerIdNumber: "5550190",
    callerIdName: "Bench Customer",
    toneHz: CUSTOMER_TONE,
    patienceSeconds: 60,
  });
  await page.locator("[data-testid=call][data-state=ringing]").getByRole("button", { name: "Answer" }).click();
  /**
   * What the customer hears now, by the platform's analysis of the last tenth of a second or so.
   * Read against the wall clock: the times of the heard segments are media time (samples heard
   * since the party was made), which falls behind the wall clock whenever the loaded platform
   * loses a media tick, so they cannot be compared with the moment of the reload.
   */
  const hearsAgent = async () =>
    (await api<{ hearing: number[] }>("GET", `/sim/channels/${caller.uuid}`)).hearing.some((hz) =>
      near(hz, AGENT_TONE),
    );
  const until = async (what: string, check: () => Promise<boolean>): Promise<number> => {
    const limit = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > limit) throw new Error(`the customer did not ${what}`);
      await wait(25);
    }
    return Date.now();
  };
  await until("hear the agent", hearsAgent);
  const fromReload: number[] = [];
  const fromLoaded: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const sent = Date.now();
    // The page goes on sending for a moment after the reload is asked for: the customer hears it,
    // then music on hold (or silence), then the agent again.
    const gap = until("stop hearing the agent", async () => !(await hearsAgent()));
    await page.reload();
    const loaded = await page.evaluate(
      () =>
        performance.timeOrigin +
        (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventStart,
    );
    await gap;
    const heard = await until("hear the agent again", hearsAgent);
    await page.locator("[data-testid=call][data-state=active]").waitFor();
    fromReload.push(heard - sent);
    fromLoaded.push(heard - loaded);
  }
  await api("DELETE", `/sim/queue-callers/${caller.id}`);

  const line = (name: string, values: number[]) => {
    const s = stats(values);
    console.log(`  ${name}: median ${ms(s.median)}, p95 ${ms(s.p95)}`);
  };
  console.log(`reload during a queue call to the customer hearing the agent again (${RUNS} reloads of one call):`);
  line("from the reload", fromReload);
  line("from the page being back (its load event)", fromLoaded);
}

await runBench("one-phone", main, stage.cleanUp);
