/**
 * What SIP digest costs phones and the platform, and what it leaves a guesser:
 * - a sip.js phone registering (REGISTER, 401, REGISTER, 200) and refreshing its registration
 *   (the refresh resends the last Authorization, whose nonce count is spent: 401 stale=true, then
 *   200), round trips timed in the phone's process;
 * - digest checks per second (one right answer each, a fresh nonce count each);
 * - the memory of the tables at their bounds: 10,000 nonce counts, 10,000 guessing sources;
 * - how many guesses one source gets checked in an hour under the guessing rule (its clock
 *   simulated, so this takes no hour).
 *
 * Run: npm run bench -- sip-auth   (or npx tsx bench/sip-auth.bench.ts [--phones 20])
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startPlatform } from "../platform/platform";
import { AuthThrottle } from "../platform/sip/auth-throttle";
import { DigestAuthenticator } from "../platform/sip/digest";
import { TestPhone, closePhoneMedia } from "../test/integration/sip-phone";

const i = process.argv.indexOf("--phones");
const PHONES = i >= 0 ? Number(process.argv[i + 1]) : 20;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const md5 = (s: string) => createHash("md5").update(s).digest("hex");

const dataDir = mkdtempSync(join(tmpdir(), "agentbar-sip-auth-bench-"));
const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent" });
const domain = platform.ctx.users.defaultDomain();
const { extensionPassword: password } = JSON.parse(readFileSync(platform.ctx.options.demoFile, "utf8")) as {
  extensionPassword: string;
};

// Registering and refreshing, as the phones of the agents do it.
const registering: number[] = [];
const refreshing: number[] = [];
for (let n = 0; n < PHONES; n++) {
  const started = performance.now();
  const phone = await TestPhone.start({ url: platform.url, extension: "1001", password, domain, tone: 440 });
  if (phone.lastRegisterStatus !== 200) throw new Error(`did not register: ${phone.lastRegisterStatus}`);
  registering.push(performance.now() - started);
  const refreshed = performance.now();
  const status = await new Promise<number>((resolve) => {
    void phone.registerer!.register({
      requestDelegate: { onAccept: () => resolve(200), onReject: (r) => resolve(r.message.statusCode ?? 0) },
    });
  });
  if (status !== 200) throw new Error(`refresh answered ${status}`);
  refreshing.push(performance.now() - refreshed);
  await phone.stop();
}
console.log(
  `sip.js phone: registered in ${median(registering).toFixed(1)} ms, refreshed in ${median(refreshing).toFixed(1)} ms (medians of ${PHONES}, one WebSocket each)`,
);
await closePhoneMedia();
await platform.close();
rmSync(dataDir, { recursive: true, force: true });

// Digest checks.
const auth = new DigestAuthenticator("agentbar.local");
const request = { method: "REGISTER", requestUri: "sip:agentbar.local", binding: "bench" };
const nonce = /nonce="([^"]+)"/.exec(auth.challenge(request))![1]!;
const ha1 = md5(`1001:agentbar.local:${password}`);
const ha2 = md5("REGISTER:sip:agentbar.local");
const CHECKS = 50_000;
const answers = Array.from({ length: CHECKS }, (_, n) => {
  const nc = (n + 1).toString(16).padStart(8, "0");
  return `Digest username="1001", realm="agentbar.local", nonce="${nonce}", uri="sip:agentbar.local", response="${md5(`${ha1}:${nonce}:${nc}:c:auth:${ha2}`)}", qop=auth, nc=${nc}, cnonce="c"`;
});
const checking = performance.now();
for (const answer of answers)
  if (!auth.check(answer, request, () => [password]).ok) throw new Error("a right answer was refused");
const perSecond = CHECKS / ((performance.now() - checking) / 1000);
console.log(
  `digest checks: ${Math.round(perSecond).toLocaleString("en")} per second (right answers, each a new nonce count)`,
);

// The tables at their bounds.
const heap = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};
const emptyHeap = heap();
const full = new DigestAuthenticator("agentbar.local");
for (let n = 0; n < 10_000; n++) {
  const r = { ...request, binding: `conn ${n}` };
  const fresh = /nonce="([^"]+)"/.exec(full.challenge(r))![1]!;
  const answer = `Digest username="1001", realm="agentbar.local", nonce="${fresh}", uri="sip:agentbar.local", response="${md5(`${ha1}:${fresh}:00000001:c:auth:${ha2}`)}", qop=auth, nc=00000001, cnonce="c"`;
  full.check(answer, r, () => [password]);
}
const nonceBytes = heap() - emptyHeap;
const throttle = new AuthThrottle();
const before = heap();
for (let n = 0; n < 20_000; n++)
  throttle.failed(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, "1001@agentbar.local");
const sourceBytes = heap() - before;
console.log(
  `tables at their bounds: ${full.trackedNonces.toLocaleString("en")} nonce counts ≈ ${(nonceBytes / 1e6).toFixed(1)} MB; ` +
    `${throttle.size.sources.toLocaleString("en")} guessing sources (of 20,000 seen) ≈ ${(sourceBytes / 1e6).toFixed(1)} MB` +
    (global.gc ? "" : " (run with --expose-gc for steadier figures)"),
);

// One source guessing for an hour, answering each delay as soon as it may.
let now = 0;
const guessed = new AuthThrottle({ now: () => now });
let checked = 0;
while (now < 3_600_000) {
  const a = guessed.admit("10.9.9.9", "1001@agentbar.local");
  if ("retryAfterMs" in a) {
    now += a.retryAfterMs;
    continue;
  }
  now += a.waitMs;
  a.release();
  guessed.failed("10.9.9.9", "1001@agentbar.local");
  checked++;
}
console.log(
  `a guessing source gets ${checked} answers checked in an hour (the first 5 at once, then at most one every 30 s)`,
);
process.exit(0);
