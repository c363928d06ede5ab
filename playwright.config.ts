import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium";

// End-to-end tests drive the system Chromium (browser downloads are not possible here); each
// test starts its own local platform on a free port in a fresh data folder (see e2e/fixtures.ts),
// so tests share nothing. Two lanes run side by side, each one test at a time: the calls (tests
// that drive several Chromiums with live media and listen for tones) and the screens (sign-in,
// accessibility, keyboard, languages, narrow frames, which check no audio). Two tests with media
// at once kept a 2-core machine at a load of 14, slow enough to push tests past their time; the
// suite spends most of its time waiting on the platform and the media, so a screen beside a call
// costs the call little and the suite about a third of its time. The call-quality test runs
// alone after both: it asserts a clean call shows no warning for 30 s, and a screen's accessibility
// pass beside it starves the platform's media relay into real jitter.

/** The screens' lane: specs that check no audio. */
const SCREENS = /\/(accessibility|sign-in|captcha|lockout|keyboard|i18n|narrow-frames|phone-ui)\.spec\.ts$/;
/** What runs alone, once both lanes are done. */
const ALONE = /\/call-quality\.spec\.ts$/;

export default defineConfig({
  testDir: "e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // npm start's default ports are held while the tests run: a test that opens one fails
  // (test/default-ports.ts).
  globalSetup: "./test/default-ports.ts",
  reporter: "list",
  use: {
    trace: "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  // The screenshot specs walk every layout and language to take the documentation's pictures;
  // what they pass through is checked by the other specs (accessibility walks each layout,
  // i18n and phone-ui the Chinese UI), so `npm test` leaves them to `npm run screenshots`.
  projects: [
    { name: "e2e", testIgnore: [/screenshots\.spec\.ts$/, SCREENS, ALONE], workers: 1 },
    { name: "e2e-screens", testMatch: SCREENS, workers: 1 },
    { name: "e2e-alone", testMatch: ALONE, dependencies: ["e2e", "e2e-screens"] },
    { name: "screenshots", testMatch: /screenshots\.spec\.ts$/ },
  ],
});
