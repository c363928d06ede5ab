import { test as base, chromium, expect, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "@playwright/test";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultOptions, type PlatformOptions } from "../platform/config";
import { startPlatform, type Platform } from "../platform/platform";

export { expect };

/** Demo users (platform/demo-data.json) and their shared password. */
export const PASSWORD = "Agentbar@2026";

export type Layout = "bar" | "side" | "full";

export interface PartyOptions {
  /** Browser language (navigator.languages and Accept-Language). */
  locale?: string;
  colorScheme?: "light" | "dark";
  viewport?: { width: number; height: number };
  /**
   * A WAV file the party's fake microphone plays. Chromium takes it per process, so a party with
   * its own audio gets its own browser; the others share the test's browser.
   */
  fakeAudioWav?: string;
}

export interface Party {
  page: Page;
  context: BrowserContext;
  /** Opens the app of the test's platform in this party's page. */
  open(options?: { layout?: Layout }): Promise<void>;
}

interface TestFixtures {
  /** Options of this file's platform, e.g. `test.use({ platformOptions: { captcha: true } })`. */
  platformOptions: Partial<PlatformOptions>;
  platform: Platform;
  /** Opens the app at `path` (e.g. "/?layout=side") in the default page. */
  openApp: (path?: string) => Promise<Page>;
  /** Another browser user: an agent, a supervisor, a customer. Closed after the test. */
  newParty: (options?: PartyOptions) => Promise<Party>;
}

export const test = base.extend<TestFixtures>({
  platformOptions: [{}, { option: true }],
  // Every test gets its own platform (it starts in well under a second) in a fresh data folder:
  // no state passes from one test to the next, whatever a test changed or left half done.
  platform: async ({ platformOptions }, use) => {
    if (!existsSync(join(defaultOptions.distDir, "index.html"))) {
      throw new Error("The app is not built: run `npm run test:e2e` (it runs `vite build` first) or `npm run build`.");
    }
    const dataDir = await mkdtemp(join(tmpdir(), "agentbar-e2e-"));
    const platform = await startPlatform({ port: 0, host: "127.0.0.1", dataDir, logLevel: "silent", ...platformOptions });
    try {
      await use(platform);
    } finally {
      await platform.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  baseURL: async ({ platform }, use) => {
    await use(platform.url);
  },
  // Deterministic defaults; a test asks for another language through newParty({ locale }).
  locale: "en-US",
  colorScheme: "light",
  openApp: async ({ page }, use) => {
    await use(async (path = "/") => {
      await page.goto(path);
      return page;
    });
  },
  newParty: async ({ browser, platform, launchOptions }, use) => {
    const opened: { context: BrowserContext; browser?: Browser }[] = [];
    await use(async (options = {}) => {
      let owner: Browser | undefined;
      if (options.fakeAudioWav) {
        owner = await chromium.launch({
          ...launchOptions,
          args: [...(launchOptions.args ?? []), `--use-file-for-fake-audio-capture=${options.fakeAudioWav}`],
        });
      }
      const contextOptions: BrowserContextOptions = {
        baseURL: platform.url,
        locale: options.locale ?? "en-US",
        colorScheme: options.colorScheme ?? "light",
        ...(options.viewport ? { viewport: options.viewport } : {}),
      };
      const context = await (owner ?? browser).newContext(contextOptions);
      opened.push({ context, ...(owner ? { browser: owner } : {}) });
      const page = await context.newPage();
      return {
        page,
        context,
        open: async ({ layout } = {}) => {
          await page.goto(layout ? `/?layout=${layout}` : "/");
        },
      };
    });
    for (const { context, browser: owner } of opened) {
      await context.close();
      await owner?.close();
    }
  },
});

/** The sign-in form's fields, by their accessible names in English. */
export function signInForm(page: Page) {
  return {
    login: page.getByLabel("Login name"),
    password: page.getByLabel("Password", { exact: true }),
    submit: page.getByRole("button", { name: "Sign in" }),
    message: page.getByTestId("sign-in-message"),
    addressToggle: page.getByRole("button", { name: /Platform address/ }),
    address: page.getByRole("textbox", { name: "Platform address" }),
    captcha: page.getByLabel("Characters in the picture"),
    captchaPicture: page.getByRole("img", { name: "Picture of the characters to type" }),
  };
}

export async function signIn(page: Page, login: string, password = PASSWORD): Promise<void> {
  const form = signInForm(page);
  await form.login.fill(login);
  await form.password.fill(password);
  await form.submit.click();
}

/** The windows the screenshots take in each layout (the side panel within 320-400 px, the bar 56 px high). */
export const screenshotViewports: Record<Layout, { width: number; height: number }> = {
  bar: { width: 1280, height: 56 },
  side: { width: 360, height: 800 },
  full: { width: 1280, height: 800 },
};

/** Writes docs/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(import.meta.dirname, "..", "docs", "screenshots");
  await mkdir(dir, { recursive: true });
  await page.screenshot({ animations: "disabled", path: join(dir, `${name}.png`) });
}
