/**
 * The CRM host SDK as a CRM page meets it: its size (gzip, what the page downloads), and the time
 * from `embed()` to its promise resolving (the frame loaded, the app's channel loaded on demand,
 * the handshake answered), cold (a fresh browser cache) and warm (the page embeds again); and how
 * long after the app stops answering (its frame hangs) the page hears `disconnected`.
 *
 * Run: npm run bench -- embed   (options: npx tsx bench/embed.bench.ts [--n 10] [--no-build])
 */
import Fastify from "fastify";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startPlatform } from "../platform/platform";
import type * as HostSdk from "../src/embed/host/index";
import { buildApp, launchChromium, option, root, stats } from "./chromium-page";

const N = option("n", 10);
if (!process.argv.includes("--no-build")) buildApp();
const dist = join(root, "dist");
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
for (const file of ["agentbar-host.js", "agentbar-host.global.js"]) {
  const buf = readFileSync(join(dist, "embed", file));
  console.log(`host SDK ${file}: ${kb(buf.length)}, ${kb(gzipSync(buf, { level: 9 }).length)} gzip`);
}

// A CRM page on its own origin, embedding the app of a platform that allows it.
const crm = Fastify({ logger: false, forceCloseConnections: true });
let appUrl = "";
crm.get("/", (_req, reply) =>
  reply
    .type("text/html")
    .send(
      `<!doctype html><title>CRM</title><div id="agentbar"></div><script type="module">import * as sdk from "${appUrl}/embed/agentbar-host.js"; window.sdk = sdk;</script>`,
    ),
);
await crm.listen({ port: 0, host: "127.0.0.1" });
const crmUrl = `http://localhost:${(crm.server.address() as AddressInfo).port}`;
const dataDir = mkdtempSync(join(tmpdir(), "agentbar-embed-bench-"));
const platform = await startPlatform({
  port: 0,
  host: "127.0.0.1",
  dataDir,
  logLevel: "silent",
  embedHosts: [{ origin: crmUrl, scopes: ["status"] }],
});
appUrl = platform.url;

const browser = await launchChromium(440);
/** ms from embed() to its promise resolving, in a page of a fresh browser context or the same one. */
async function embedTimes(): Promise<{ cold: number[]; warm: number[]; lost: number[] }> {
  const cold: number[] = [];
  const warm: number[] = [];
  const lost: number[] = [];
  for (let i = 0; i < N; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(crmUrl);
    await page.waitForFunction(() => "sdk" in window);
    const time = () =>
      page.evaluate(async (url) => {
        const w = window as unknown as { sdk: typeof HostSdk; bar?: { destroy(): void } };
        w.bar?.destroy();
        const start = performance.now();
        w.bar = await w.sdk.embed({ url, container: document.getElementById("agentbar")! });
        return performance.now() - start;
      }, appUrl);
    cold.push(await time());
    warm.push(await time());
    // The app's frame hangs: how long until the page hears that it stopped answering.
    const frame = page.frames().find((f) => f.url().startsWith(appUrl))!;
    const heard = page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const bar = (window as unknown as { bar: HostSdk.Agentbar }).bar;
          const start = performance.now();
          bar.on("disconnected", () => resolve(performance.now() - start));
        }),
    );
    // Its promise settles when the loop ends, or fails when the context closes first.
    frame
      .evaluate(() => {
        const until = Date.now() + 5000;
        while (Date.now() < until);
      })
      .catch(() => undefined);
    lost.push(await heard);
    await context.close();
  }
  return { cold, warm, lost };
}

const { cold, warm, lost } = await embedTimes();
const line = (what: string, values: number[]) => {
  const s = stats(values);
  console.log(`${what}: median ${s.median.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms (n=${s.n})`);
};
line("embed() to ready, fresh browser cache", cold);
line("embed() to ready, the page embedding again", warm);
line("a hung frame to disconnected (heartbeat; target < 5000 ms)", lost);
await browser.close();
await crm.close();
await platform.close();
rmSync(dataDir, { recursive: true, force: true });
// The platform loaded native WebRTC: leave explicitly.
process.exit(0);
