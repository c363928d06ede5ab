import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildHostSdk } from "./host-sdk";

/** The host SDK's npm package (packages/host-sdk): its folder. */
export const HOST_PACKAGE_DIR = fileURLToPath(new URL("../packages/host-sdk", import.meta.url));

/**
 * `npm run host:pack [-- <folder>]`: builds the host SDK into packages/host-sdk/dist and packs the
 * package into a .tgz in `<folder>` (default: packages/host-sdk); prints the tarball's path.
 */
export async function packHostSdk(destination = HOST_PACKAGE_DIR): Promise<string> {
  const dist = join(HOST_PACKAGE_DIR, "dist");
  rmSync(dist, { recursive: true, force: true });
  await buildHostSdk(dist);
  mkdirSync(destination, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: HOST_PACKAGE_DIR,
    encoding: "utf8",
  });
  const [packed] = JSON.parse(out) as { filename: string }[];
  return join(destination, packed!.filename);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(await packHostSdk(process.argv[2] ? resolve(process.argv[2]) : undefined));
}
