import { execSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

// The JavaScript the agent page loads, gzip-compressed (level 9): every script and module the
// built index.html references, followed through static imports and dynamic import() chunks.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
execSync("npx vite build --logLevel error", { cwd: root, stdio: "inherit" });

const html = readFileSync(join(dist, "index.html"), "utf8");
const entries = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
const seen = new Set<string>();
const queue = [...entries];
while (queue.length) {
  const file = queue.shift()!;
  if (seen.has(file)) continue;
  seen.add(file);
  if (!file.endsWith(".js")) continue;
  const code = readFileSync(join(dist, file), "utf8");
  for (const m of code.matchAll(/["'`](?:\.\/|\/assets\/)([\w.-]+\.(?:js|css))["'`]/g)) queue.push(`assets/${m[1]}`);
}

const rows = [...seen].map((file) => {
  const buf = readFileSync(join(dist, file));
  return { file, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
});
const all = readdirSync(join(dist, "assets")).length;
const kb = (n: number) => (n / 1024).toFixed(1);
for (const r of rows) console.log(`${r.file.padEnd(48)} ${kb(r.raw).padStart(8)} KB  ${kb(r.gzip).padStart(7)} KB gzip`);
const js = rows.filter((r) => r.file.endsWith(".js"));
const total = js.reduce((s, r) => s + r.gzip, 0);
console.log(`app JS the agent page loads: ${kb(total)} KB gzip in ${js.length} files (target ≤ 90 KB; ${all} assets built)`);
