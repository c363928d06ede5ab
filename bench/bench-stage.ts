import type { Browser } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPlatform, type Platform } from "../platform/platform";
import { buildApp, launchChromium } from "./chromium-page";

type PlatformOptions = Omit<Parameters<typeof startPlatform>[0], "port" | "host" | "dataDir" | "logLevel">;

/**
 * What a Chromium bench stands on: the built app served by a local platform in a scratch folder,
 * and a Chromium whose microphone says a tone. `cleanUp` takes down whatever was started.
 */
export function benchStage(name: string) {
  let browser: Browser | undefined;
  let platform: Platform | undefined;
  let dataDir: string | undefined;
  return {
    async platform(options: PlatformOptions = {}): Promise<Platform> {
      buildApp();
      dataDir = mkdtempSync(join(tmpdir(), `agentbar-${name}-bench-`));
      platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent", ...options });
      return platform;
    },
    async chromium(microphoneHz: number): Promise<Browser> {
      browser = await launchChromium(microphoneHz);
      return browser;
    },
    async cleanUp(): Promise<void> {
      await browser?.close().catch(() => {});
      await platform?.close().catch(() => {});
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
