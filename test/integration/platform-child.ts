/**
 * A local platform in a process of its own (started by `PlatformProcess`): the options come as
 * JSON in the first argument, the URL goes back over IPC, "close" (or the parent going away)
 * stops it and deletes its data folder. Its memory and its event loop are then its own, so a test
 * or a bench can read its RSS and load it without sharing a thread with it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPlatform } from "../../platform/platform";

const dataDir = mkdtempSync(join(tmpdir(), "agentbar-child-"));
const platform = await startPlatform({
  port: 0,
  host: "127.0.0.1",
  logLevel: "silent",
  ...(JSON.parse(process.argv[2] ?? "{}") as object),
  dataDir,
});
const stop = async () => {
  await platform.close();
  rmSync(dataDir, { recursive: true, force: true });
  // Native WebRTC keeps a process alive.
  process.exit(0);
};
process.on("message", (m) => m === "close" && void stop());
process.on("disconnect", () => void stop());
process.send!({ url: platform.url });
