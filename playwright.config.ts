import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium";

// End-to-end tests drive the system Chromium (browser downloads are not possible here); each
// test starts its own local platform on a free port in a fresh data folder (see e2e/fixtures.ts),
// so tests share nothing and two run at once: they mostly wait on media and timers, which leaves
// a 2-core machine room for a second.
export default defineConfig({
  testDir: "e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: "list",
  use: {
    trace: "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
});
