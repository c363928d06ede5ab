import axe from "axe-core";
import {
  test as base,
  chromium,
  expect,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from "@playwright/test";
import { spawn } from "node:child_process";
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
  /** More Chromium switches; a party with switches of its own gets its own browser too. */
  browserArgs?: string[];
}

export interface Party {
  page: Page;
  context: BrowserContext;
  /** Opens the app of the test's platform in this party's page. */
  open(options?: { layout?: Layout }): Promise<void>;
}

/** A party whose page the browser can freeze and wake, as it does to a background tab (the Page Lifecycle's `freeze` and `resume`). */
export interface FreezableParty extends Party {
  /** Chromium freezes the page (DevTools' `Page.setWebLifecycleState`): it hides it, fires `freeze`, then runs nothing more. */
  freeze(): Promise<void>;
  /** Chromium wakes it (`resume` fires, its tasks run again) and the user looks at the tab again (it is visible). */
  wake(): Promise<void>;
  /** The page's title as the browser's tab shows it (read from the browser, so also while the page is frozen). */
  tabTitle(): Promise<string>;
}

interface TestFixtures {
  /** Options of this file's platform, e.g. `test.use({ platformOptions: { captcha: true } })`. */
  platformOptions: Partial<PlatformOptions>;
  platform: Platform;
  /** Opens the app at `path` (e.g. "/?layout=side") in the default page. */
  openApp: (path?: string) => Promise<Page>;
  /** Another browser user: an agent, a supervisor, a customer. Closed after the test. */
  newParty: (options?: PartyOptions) => Promise<Party>;
  /**
   * A party in a Chromium of its own whose page can be frozen. Playwright emulates focus in the
   * pages it opens, which keeps Chromium from hiding (and so from freezing) them: this Chromium is
   * started here and driven through its default context without Playwright's page defaults
   * (`connectOverCDP` with `noDefaults`). The locale is English; `viewport` and `colorScheme` are the browser's.
   */
  newFreezableParty: (options?: Pick<PartyOptions, "fakeAudioWav">) => Promise<FreezableParty>;
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
    const platform = await startPlatform({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      logLevel: "silent",
      ...platformOptions,
    });
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
  // Every page records what its live region says, so a test can ask whether something was
  // announced after the region has moved on to the next announcement (expectAnnounced).
  context: async ({ context }, use) => {
    await context.addInitScript(recordAnnouncements);
    await use(context);
  },
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
      if (options.fakeAudioWav || options.browserArgs) {
        owner = await chromium.launch({
          ...launchOptions,
          args: [
            ...(launchOptions.args ?? []),
            ...(options.fakeAudioWav ? [`--use-file-for-fake-audio-capture=${options.fakeAudioWav}`] : []),
            ...(options.browserArgs ?? []),
          ],
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
      await context.addInitScript(recordAnnouncements);
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
  newFreezableParty: async ({ platform, launchOptions }, use) => {
    const opened: { close(): Promise<void> }[] = [];
    await use(async (options = {}) => {
      const profile = await mkdtemp(join(tmpdir(), "agentbar-freezable-"));
      const child = spawn(
        launchOptions.executablePath ?? "/usr/bin/chromium",
        [
          ...(launchOptions.args ?? []),
          ...(options.fakeAudioWav ? [`--use-file-for-fake-audio-capture=${options.fakeAudioWav}`] : []),
          "--headless",
          "--lang=en-US",
          "--remote-debugging-port=0",
          `--user-data-dir=${profile}`,
          "about:blank",
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      opened.push({
        close: async () => {
          child.kill();
          await exited;
          await rm(profile, { recursive: true, force: true });
        },
      });
      const endpoint = await new Promise<string>((resolve, reject) => {
        let said = "";
        child.stderr.on("data", (d: Buffer) => {
          said += String(d);
          const found = /DevTools listening on (ws:\S+)/.exec(said);
          if (found) resolve(found[1]!);
        });
        child.once("exit", () => reject(new Error(`Chromium ended before it listened: ${said}`)));
      });
      const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
      const context = browser.contexts()[0]!;
      await context.addInitScript(recordAnnouncements);
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      const { targetInfo } = await cdp.send("Target.getTargetInfo");
      return {
        page,
        context,
        open: async ({ layout } = {}) => {
          await page.goto(platform.url + (layout ? `/?layout=${layout}` : "/"));
        },
        freeze: async () => void (await cdp.send("Page.setWebLifecycleState", { state: "frozen" })),
        wake: async () => {
          await cdp.send("Page.setWebLifecycleState", { state: "active" });
          // Freezing hid the page and waking leaves it hidden (no frames are drawn): focus
          // emulation shows it again, as a user going back to the tab does.
          await cdp.send("Emulation.setFocusEmulationEnabled", { enabled: true });
        },
        tabTitle: async () =>
          (
            await browser
              .newBrowserCDPSession()
              .then((b) => b.send("Target.getTargetInfo", { targetId: targetInfo.targetId }))
          ).targetInfo.title,
      };
    });
    for (const o of opened) await o.close();
  },
});

/**
 * Runs in every page before the app: keeps each text the live region (`data-testid=announcer`)
 * takes, as a screen reader would hear them one after the other, in `window.agentbarAnnounced`.
 */
function recordAnnouncements() {
  const heard: string[] = [];
  Object.defineProperty(window, "agentbarAnnounced", { value: heard });
  let last: string | null = null;
  const read = () => {
    const text = document.querySelector('[data-testid="announcer"]')?.textContent ?? null;
    if (text === null || text === last) return;
    last = text;
    // A repeated announcement differs only by a trailing no-break space (see announcer.tsx).
    if (text.trim()) heard.push(text.replace(/\u00a0$/, ""));
  };
  new MutationObserver(read).observe(document, { subtree: true, childList: true, characterData: true });
}

/** Everything `page` has announced so far, oldest first. */
export function announcements(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { agentbarAnnounced?: string[] }).agentbarAnnounced ?? []);
}

/**
 * Waits until `page` has announced a text containing `text` (or matching it), at any moment since
 * the page loaded: the live region itself may already say something else.
 */
export async function expectAnnounced(page: Page, text: string | RegExp): Promise<void> {
  const matches = (said: string) => (typeof text === "string" ? said.includes(text) : text.test(said));
  await expect
    .poll(
      async () => {
        const heard = await announcements(page);
        return heard.find(matches) ?? heard;
      },
      { message: `announced: ${text}` },
    )
    .toEqual(expect.stringMatching(typeof text === "string" ? escapeRegExp(text) : text));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

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

/**
 * The characters a person reads in the captcha picture at this address. The picture draws them as
 * strokes; the platform runs in the test's process and tells its pending answer.
 */
export function captchaText(platform: Platform, pictureUrl: string): string {
  const id = /\/api\/captchas\/(\d+)$/.exec(pictureUrl)?.[1];
  const text = id === undefined ? undefined : platform.ctx.captchas.answerOf(Number(id));
  if (text === undefined) throw new Error(`no pending captcha at ${pictureUrl}`);
  return text;
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

/**
 * Writes a picture of the page (or of one element) as `<name>.png` to `test-results/screenshots/`
 * (ignored by git), or to the folder `AGENTBAR_SCREENSHOTS_DIR` names: `npm run screenshots`
 * refreshes `docs/screenshots/` so.
 */
export async function screenshot(target: Page | Locator, name: string): Promise<void> {
  const dir = process.env.AGENTBAR_SCREENSHOTS_DIR ?? join(import.meta.dirname, "..", "test-results", "screenshots");
  await mkdir(dir, { recursive: true });
  await target.screenshot({ animations: "disabled", path: join(dir, `${name}.png`) });
}

/** axe-core's WCAG 2.1 A and AA rules. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * What axe-core finds on the page as it is now, one text per rule broken with the elements that
 * break it. axe goes into each frame of the document once and runs there (`axe.run`, which
 * reaches same-origin frames itself): a runner that injects it afresh for every pass and merges
 * the frames' results in a blank page of its own (@axe-core/playwright) spends 2-3 s a pass on
 * that, several times what the rules take on these screens.
 */
export async function axeViolations(page: Page, options: axe.RunOptions): Promise<string[]> {
  for (const frame of page.frames()) {
    if (!(await frame.evaluate(() => "axe" in window))) await frame.evaluate(axe.source);
  }
  const { violations } = await page.evaluate(
    (o) => (window as unknown as { axe: typeof axe }).axe.run(document, o),
    options,
  );
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join("; ")}`).join("\n")}`,
  );
}

/** axe-core's WCAG 2.1 A and AA rules over the page as it is now. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  expect(
    await axeViolations(page, { runOnly: { type: "tag", values: WCAG_TAGS } }),
    `${what}: WCAG violations`,
  ).toEqual([]);
}
