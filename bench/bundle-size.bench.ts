import { execSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

// The JavaScript the agent page loads, gzip-compressed (level 9): every script and module the
// built index.html references, followed through static imports and dynamic import() chunks.
// Chunks reached only through import() are loaded on demand (a language, a panel, the history);
// the pages below add the ones they load at once.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
execSync("npx vite build --logLevel error", { cwd: root, stdio: "inherit" });

const html = readFileSync(join(dist, "index.html"), "utf8");
const entries = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
const seen = new Map<string, "start" | "on demand">();
const queue: [string, "start" | "on demand"][] = entries.map((e) => [e, "start"]);
while (queue.length) {
  const [file, how] = queue.shift()!;
  if (seen.get(file) === "start" || (seen.has(file) && how === "on demand")) continue;
  seen.set(file, how);
  if (!file.endsWith(".js")) continue;
  const code = readFileSync(join(dist, file), "utf8");
  for (const m of code.matchAll(/(import\(\s*)?["'`](?:\.\/|\/assets\/)([\w.-]+\.(?:js|css))["'`]/g)) {
    queue.push([`assets/${m[2]}`, m[1] || how === "on demand" ? "on demand" : "start"]);
  }
}

const rows = [...seen].map(([file, how]) => {
  const buf = readFileSync(join(dist, file));
  return { file, how, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
});
const all = readdirSync(join(dist, "assets")).length;
const kb = (n: number) => (n / 1024).toFixed(1);
for (const r of rows) console.log(`${r.file.padEnd(48)} ${kb(r.raw).padStart(8)} KB  ${kb(r.gzip).padStart(7)} KB gzip  ${r.how}`);
const js = rows.filter((r) => r.file.endsWith(".js"));
const sum = (list: typeof js) => list.reduce((s, r) => s + r.gzip, 0);
const atStart = js.filter((r) => r.how === "start");
const chunk = (name: string) => js.filter((r) => r.how === "on demand" && r.file.startsWith(`assets/${name}-`));
const pages: [string, typeof js][] = [
  ["bar page, English (no history)", atStart],
  ["full or side page, English (with the history)", [...atStart, ...chunk("history-panel")]],
  ["full or side page, Chinese", [...atStart, ...chunk("history-panel"), ...chunk("zh-CN")]],
];
for (const [name, list] of pages) console.log(`JS the agent page loads, ${name}: ${kb(sum(list))} KB gzip (target ≤ 90 KB)`);
console.log(`every JS chunk built, including panels loaded only when opened: ${kb(sum(js))} KB gzip in ${js.length} files (${all} assets)`);

// The CRM host SDK (src/embed/host), built beside the app: what a CRM page loads to embed it.
for (const file of ["agentbar-host.js", "agentbar-host.global.js"]) {
  const buf = readFileSync(join(dist, "embed", file));
  const how = file.endsWith(".global.js") ? "script tag" : "ES module";
  console.log(`CRM host SDK, ${how} (embed/${file}): ${kb(buf.length)} KB, ${kb(gzipSync(buf, { level: 9 }).length)} KB gzip (target < 5 KB)`);
}
