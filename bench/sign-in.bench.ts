/**
 * Sign-in timing of the local platform: a wrong password for a login that exists and any
 * password for a login that does not should take the same time (a difference would tell an
 * attacker which logins exist). Prints median and p95 of each over N sign-ins over real HTTP, and
 * the ratio of the medians.
 *
 * Run: npm run bench -- sign-in   (options: npx tsx bench/sign-in.bench.ts [--n 60])
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startPlatform } from "../platform/platform";

const index = process.argv.indexOf("--n");
const N = index >= 0 ? Number(process.argv[index + 1]) : 60;
const PASSWORD = "Agentbar@2026";

const dataDir = mkdtempSync(join(tmpdir(), "agentbar-bench-"));
const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent", captcha: false });

async function signIn(login: string, password: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${platform.url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login, password }),
  });
  await res.text();
  return performance.now() - started;
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)]!,
    p95: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!,
  };
};

try {
  // Warm up (JIT, the first scrypt).
  await signIn("agent1", PASSWORD);
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < N; i++) {
    // Taken in turns so that load from elsewhere falls on both alike.
    known.push(await signIn("agent1", "Wrong@Pass99"));
    unknown.push(await signIn(`nobody-${i}`, "Wrong@Pass99"));
    // A success starts agent1's count again before the lock (5 failures).
    if (i % 4 === 3) await signIn("agent1", PASSWORD);
  }
  const k = stats(known);
  const u = stats(unknown);
  console.log(`sign-in refused, ${N} each over HTTP (captcha off):`);
  console.log(`  login that exists, wrong password: median ${k.median.toFixed(1)} ms, p95 ${k.p95.toFixed(1)} ms`);
  console.log(`  login that does not exist:         median ${u.median.toFixed(1)} ms, p95 ${u.p95.toFixed(1)} ms`);
  console.log(`  ratio of medians (unknown / known): ${(u.median / k.median).toFixed(2)}`);
} finally {
  await platform.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
