/**
 * What the page weighs and how soon it is ready, measured in Chromium against the local platform:
 * - the JavaScript the sign-in screen loads before it shows (gzip, level 9), and what follows in
 *   the background while the agent types (sip.js, the phone, the toolbar);
 * - the JavaScript the agent's page loads until it is ready for calls after a reload with a kept
 *   session, in the bar and in the full page (the history's code included), and what it loads
 *   after that (panels, languages and the like come later, on demand, and are not counted);
 * - reload to "Ready for calls" with a kept session: from the reload (the new page's navigation
 *   start) to the phone registered and the toolbar on, median and p95;
 * - every chunk built, and the CRM host SDK (src/embed/host).
 * Scripts are told apart by the browser's own resource timing: a script whose request started
 * before the moment counts for it.
 *
 * Run: npm run bench -- bundle   (or npx tsx bench/bundle-size.bench.ts [--reloads 20] [--no-build])
 */
import type { BrowserContext, Page } from "@playwright/test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startPlatform } from "../platform/platform";
import { buildApp, initScript, launchChromium, ms, option, root, stats } from "./chromium-page";

const RELOADS = option("reloads", 20);
const PASSWORD = "Agentbar@2026";
const dist = join(root, "dist");
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const gzipped = (b: Buffer) => gzipSync(b, { level: 9 }).length;

if (!process.argv.includes("--no-build")) buildApp();
const dataDir = mkdtempSync(join(tmpdir(), "agentbar-page-bench-"));
const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent", captcha: false });
const browser = await launchChromium(440);

/** In the page before the app: when the sign-in screen and the ready toolbar first appear (performance.now). */
function instrument() {
  const marks: Record<string, number> = {};
  (window as unknown as { __marks: typeof marks }).__marks = marks;
  const seen = () => {
    const t = performance.now();
    if (!marks.signIn && document.querySelector("input[autocomplete=username]")) marks.signIn = t;
    if (!marks.screen && document.querySelector("[data-testid=registration]")) marks.screen = t;
    if (!marks.registered && document.querySelector("[data-testid=registration][data-status=registered]"))
      marks.registered = t;
    if (!marks.toolbar && document.querySelector("[data-testid=agent-status][data-phase=on]")) marks.toolbar = t;
    if (marks.registered && marks.toolbar) marks.ready ??= Math.max(marks.registered, marks.toolbar);
  };
  new MutationObserver(seen).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-status", "data-phase"],
  });
  // The SIP socket's steps: opened, each REGISTER sent and each answer to it (first time only).
  const Native = WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      if (!/sip/.test(String(protocols ?? ""))) return;
      marks.wsCreated ??= performance.now();
      this.addEventListener("open", () => (marks.wsOpen ??= performance.now()));
      this.addEventListener("message", (e) => {
        const status = /^SIP\/2\.0 (\d{3}) [^\r\n]*[\s\S]*?\r\nCSeq: *\d+ REGISTER/i.exec(String(e.data))?.[1];
        if (status) marks[`register${status}`] ??= performance.now();
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
      if (typeof data === "string" && data.startsWith("REGISTER "))
        marks[marks.register1 === undefined ? "register1" : "register2"] ??= performance.now();
      super.send(data);
    }
  } as typeof WebSocket;
}

interface Loaded {
  url: string;
  startTime: number;
}
const marksOf = (page: Page) => page.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
const scriptsOf = (page: Page): Promise<Loaded[]> =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => /\.js(\?|$)/.test(e.name))
      .map((e) => ({ url: e.name, startTime: e.startTime })),
  );
/** The file each script URL serves, gzip-compressed. */
const sizeOf = (url: string) => gzipped(readFileSync(join(dist, new URL(url).pathname)));
const sum = (list: Loaded[]) => list.reduce((s, l) => s + sizeOf(l.url), 0);

/** Scripts requested before `at`, and those requested after it (within the page's first seconds). */
async function split(page: Page, at: number): Promise<{ before: Loaded[]; after: Loaded[] }> {
  await page.waitForLoadState("networkidle");
  const scripts = await scriptsOf(page);
  return { before: scripts.filter((s) => s.startTime < at), after: scripts.filter((s) => s.startTime >= at) };
}
const files = (list: Loaded[]) => list.map((l) => new URL(l.url).pathname.replace("/assets/", "")).join(", ");

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.addInitScript(initScript(instrument));
  page.on("pageerror", (e) => console.log("page error:", e.message));
  return page;
}

// The sign-in screen, and what loads while the agent types.
const context = await browser.newContext({ baseURL: platform.url, viewport: { width: 1280, height: 800 } });
const page = await newPage(context);
await page.goto("/");
await page.locator("input[autocomplete=username]").waitFor();
const signIn = await split(page, (await marksOf(page)).signIn!);
console.log(
  `JS before the sign-in screen shows: ${kb(sum(signIn.before))} gzip in ${signIn.before.length} files (target ≤ 30 KB) [${files(signIn.before)}]`,
);
console.log(
  `JS loaded after it, in the background while the agent types: ${kb(sum(signIn.after))} gzip in ${signIn.after.length} files`,
);

// Signed in: a reload keeps the session (sessionStorage), in the full page and in the bar.
await page.getByLabel("Login name").fill("agent1");
await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
await page.getByRole("button", { name: "Sign in" }).click();
await page.locator("[data-testid=registration][data-status=registered]").waitFor();

/** The reload's requests (resource timing): when each ended, by step. */
const requestsOf = (page: Page): Promise<Record<string, number>> =>
  page.evaluate(() => {
    const steps: [string, RegExp][] = [
      ["appChunk", /\/assets\/app-[^/]*\.js$/],
      ["workspaceChunk", /\/assets\/workspace-[^/]*\.js$/],
      ["sessionCheck", /\/api\/users\/info/],
      ["token", /\/api\/users\/extn_token/],
      ["agentState", /\/api\/cc\/agent_state/],
    ];
    const out: Record<string, number> = {};
    for (const e of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
      for (const [name, re] of steps) {
        if (re.test(new URL(e.name).pathname)) {
          out[`${name}Start`] ??= e.startTime;
          out[name] ??= e.responseEnd;
        }
      }
    }
    return out;
  });

/** Per reload, from the navigation's start: the signed-in screen shown, the phone registered, the toolbar on, both. */
const reloads: Record<string, number>[] = [];
async function reloadToReady(layout: "bar" | "full"): Promise<{ before: Loaded[]; after: Loaded[] }> {
  await page.goto(`/?layout=${layout}`);
  await page.waitForFunction(
    () => (window as unknown as { __marks: Record<string, number> }).__marks.ready !== undefined,
    null,
    { timeout: 20_000 },
  );
  const marks = { ...(await marksOf(page)), ...(await requestsOf(page)) };
  reloads.push(marks);
  return split(page, marks.ready!);
}
const targets = { bar: 90, full: 95 };
for (const layout of ["bar", "full"] as const) {
  const r = await reloadToReady(layout);
  console.log(
    `JS the agent page loads until ready for calls, ${layout === "bar" ? "bar" : "full page"}: ${kb(sum(r.before))} gzip in ${r.before.length} files (target ≤ ${targets[layout]} KB) [${files(r.before)}]`,
  );
  if (r.after.length)
    console.log(`  loaded after ready, in the background: ${kb(sum(r.after))} gzip [${files(r.after)}]`);
}
reloads.length = 0;
for (let i = 0; i < RELOADS; i++) await reloadToReady(i % 2 ? "bar" : "full");
const at = (mark: string) => stats(reloads.map((m) => m[mark]!));
const ready = at("ready");
console.log(
  `reload to "Ready for calls" (kept session, the phone registered and the toolbar on): median ${ms(ready.median)}, p95 ${ms(ready.p95)} (${ready.n} reloads, bar and full page in turn; target: median ≤ 400 ms)`,
);
console.log(
  `  median from the reload: signed-in screen shown ${ms(at("screen").median)}, phone registered ${ms(at("registered").median)}, toolbar on (queues joined, status read) ${ms(at("toolbar").median)}`,
);
const step = (label: string, mark: string, from?: string) => {
  const have = reloads.filter((m) => m[mark] !== undefined && (!from || m[from] !== undefined));
  if (!have.length) return `${label} —`;
  const s = stats(have.map((m) => m[mark]!));
  return `${label} ${ms(s.median)}${from ? ` (from ${ms(stats(have.map((m) => m[from]!)).median)})` : ""}`;
};
console.log("  the reload's steps, median from the reload (request start to its end):");
console.log(
  `    ${step("app chunk", "appChunk", "appChunkStart")}; ${step("workspace chunk", "workspaceChunk", "workspaceChunkStart")}; ${step("session check", "sessionCheck", "sessionCheckStart")}`,
);
console.log(
  `    ${step("extension token", "token", "tokenStart")}; ${step("SIP WebSocket open", "wsOpen", "wsCreated")}`,
);
console.log(
  `    ${step("REGISTER → 401", "register401", "register1")}; ${step("REGISTER → 200", "register200", "register2")}; ${step("agent state read", "agentState", "agentStateStart")}; ${step("toolbar on", "toolbar")}`,
);

await browser.close();
await platform.close();
rmSync(dataDir, { recursive: true, force: true });

// Every chunk built: what the parts loaded on demand weigh.
const chunks = readdirSync(join(dist, "assets"))
  .filter((f) => f.endsWith(".js"))
  .map((f) => ({
    f,
    raw: readFileSync(join(dist, "assets", f)).length,
    gzip: gzipped(readFileSync(join(dist, "assets", f))),
  }))
  .sort((a, b) => b.gzip - a.gzip);
console.log(`every JS chunk built: ${kb(chunks.reduce((s, c) => s + c.gzip, 0))} gzip in ${chunks.length} files`);
for (const c of chunks) console.log(`  ${c.f.padEnd(40)} ${kb(c.raw).padStart(9)} ${kb(c.gzip).padStart(9)} gzip`);

// The CRM host SDK (src/embed/host), built beside the app: what a CRM page loads to embed it.
for (const file of ["agentbar-host.js", "agentbar-host.global.js"]) {
  const buf = readFileSync(join(dist, "embed", file));
  const how = file.endsWith(".global.js") ? "script tag" : "ES module";
  console.log(`CRM host SDK, ${how} (embed/${file}): ${kb(buf.length)}, ${kb(gzipped(buf))} gzip (target < 6 KB)`);
}
// The platform loaded native WebRTC: leave explicitly.
process.exit(0);
