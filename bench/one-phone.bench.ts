/**
 * One phone per agent, in Chromium against the local platform:
 * - reload to customer heard again: agent1 talks with a queue's customer and reloads its page,
 *   again and again during the same call. From the reload (page.reload sent) and from the page
 *   being back (its load event) to the moment the customer hears the agent's tone again (the
 *   start of the simulated customer's tone segment, as the platform's analysis reports it). In
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

interface Heard {
  frequency: number;
  from: string;
  to: string;
}

async function main(): Promise<void> {
  const platform = await stage.platform({ simRingMs: 300 });
  const url = platform.url;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${url}${path}`, { method, headers: body !== undefined ? { "content-type": "application/json" } : {}, body: body !== undefined ? JSON.stringify(body) : undefined });
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
  const heardSince = async (since: number) =>
    (await api<{ heard: Heard[] }>("GET", `/sim/channels/${caller.uuid}`)).heard.filter((t) => near(t.frequency, AGENT_TONE) && Date.parse(t.from) >= since);
  const agentHeardAfter = async (since: number): Promise<number> => {
    const limit = Date.now() + 20_000;
    for (;;) {
      const first = (await heardSince(since))[0];
      if (first) return Date.parse(first.from);
      if (Date.now() > limit) throw new Error("the customer did not hear the agent again");
      await wait(50);
    }
  };
  await agentHeardAfter(0);

  const fromReload: number[] = [];
  const fromLoaded: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const sent = Date.now();
    await page.reload();
    const loaded = await page.evaluate(() => performance.timeOrigin + (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventStart);
    const heard = await agentHeardAfter(sent);
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
