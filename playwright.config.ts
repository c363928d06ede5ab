import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium";

// End-to-end tests drive the system Chromium (browser downloads are not possible here); each
// test starts its own local platform on a free port in a fresh data folder (see e2e/fixtures.ts),
// so tests share nothing. They run one at a time all the same: a test drives several Chromiums
// with live media, and two at once kept a 2-core machine at a load of 14, slow enough to push
// tests past their time. A second lane of screens beside the calls took the suite from 9.9 to
// 8.1 minutes, but two Chromiums starting at once still reached a load of 13 and lost a keypad
// tone through Kamailio and a keystroke; the projects stay apart, run in this order, so that the
// call-quality test's clean 30 seconds run last.

/** Screens: specs that check no audio. */
const SCREENS = /\/(accessibility|sign-in|captcha|lockout|keyboard|i18n|narrow-frames|phone-ui)\.spec\.ts$/;
/** What runs last, once the others are done. */
const ALONE = /\/call-quality\.spec\.ts$/;

export default defineConfig({
  testDir: "e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // npm start's default ports are held while the tests run: a test that opens one fails
  // (test/default-ports.ts).
  globalSetup: "./test/default-ports.ts",
  reporter: "list",
  use: {
    // CI keeps no trace: nobody can open one there, and recording them costs a fifth of the suite (docs/decisions.md, "CI time").
    trace: process.env.CI ? "off" : "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  // The screenshot specs walk every layout and language to take the documentation's pictures;
  // what they pass through is checked by the other specs (accessibility walks each layout,
  // i18n and phone-ui the Chinese UI), so `npm test` leaves them to `npm run screenshots`.
  projects: [
    { name: "e2e", testIgnore: [/screenshots\.spec\.ts$/, SCREENS, ALONE] },
    { name: "e2e-screens", testMatch: SCREENS },
    { name: "e2e-alone", testMatch: ALONE, dependencies: ["e2e", "e2e-screens"] },
    { name: "screenshots", testMatch: /screenshots\.spec\.ts$/ },
  ],
});
