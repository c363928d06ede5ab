import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// `npm run bench`: every bench/*.bench.ts in its own process (media benchmarks load native
// WebRTC, which is best kept out of each other's way), one after the other so that they do not
// compete for the CPU. Each prints its own figures. `npm run bench -- <name>` runs the ones whose
// file name contains <name>.
const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const benches = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts") && (!filter || f.includes(filter)))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file.replace(/\.bench\.ts$/, "")}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.log(`(${file} exited with ${r.status ?? r.signal})`);
  }
}
process.exit(failed ? 1 : 0);
