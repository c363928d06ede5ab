/**
 * One phone per agent across the tabs of a browser, in Chromium against the local platform:
 * two tabs of agent1 in one browser profile (one has the phone, the other shows it); the tab with
 * the phone is closed, again and again (a new second tab opened each time). From the close to the
 * platform's registrar holding a new binding of extension 1001 over another connection: the
 * browser hands the Web Lock on, the other tab fetches its extension token, connects and
 * registers.
 *
 * Run: npm run bench -- one-phone-tabs   (or npx tsx bench/one-phone-tabs.bench.ts [--runs 10])
 */
import type { Page } from "@playwright/test";
import { ms, option, stats } from "./chromium-page";
import { benchStage } from "./bench-stage";
import { runBench } from "./run-bench";

const RUNS = option("runs", 10);
const PASSWORD = "Agentbar@2026";

const stage = benchStage("one-phone-tabs");

async function main(): Promise<void> {
  const platform = await stage.platform();
  const browser = await stage.chromium(440);
  const context = await browser.newContext({ baseURL: platform.url, viewport: { width: 1280, height: 800 } });
  const registrar = platform.ctx.sip.registrar;
  const bindings = () => registrar.contactsOf("1001", "agentbar.local");

  /** A tab of agent1, signed in, once it knows whether it has the phone (`registered`) or another tab has it. */
  const tab = async (status: "registered" | "elsewhere"): Promise<Page> => {
    const p = await context.newPage();
    p.setDefaultTimeout(15_000);
    p.on("pageerror", (e) => console.log("page error:", e.message));
    await p.goto("/");
    await p.getByLabel("Login name").fill("agent1");
    await p.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.locator(`[data-testid=registration][data-status=${status}]`).waitFor();
    return p;
  };

  const fromClose: number[] = [];
  let owner = await tab("registered");
  let other = await tab("elsewhere");
  for (let i = 0; i < RUNS; i++) {
    const before = new Set(bindings().map((b) => b.connection));
    const registered = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the other tab did not register")), 20_000);
      const onChange = (extension: string) => {
        if (extension !== "1001" || !bindings().some((b) => !before.has(b.connection) && b.connection.open)) return;
        clearTimeout(timer);
        registrar.off("change", onChange);
        resolve(Date.now());
      };
      registrar.on("change", onChange);
    });
    const closing = Date.now();
    await owner.close();
    fromClose.push((await registered) - closing);
    owner = other;
    await owner.locator("[data-testid=registration][data-status=registered]").waitFor();
    other = await tab("elsewhere");
  }

  const s = stats(fromClose);
  console.log(`the tab with the phone closed to the agent's other tab registered (${RUNS} closes):`);
  console.log(`  from the close: median ${ms(s.median)}, p95 ${ms(s.p95)}`);
}

await runBench("one-phone-tabs", main, stage.cleanUp);
