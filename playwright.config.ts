import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium";

// End-to-end tests drive the system Chromium (browser downloads are not possible here); each
// test file starts its own local platform on a free port (see e2e/fixtures.ts).
export default defineConfig({
  testDir: "e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: "list",
  use: {
    trace: "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
});
