import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Locator, Page } from "@playwright/test";
import { PASSWORD, expect, screenshot, signIn, test } from "./fixtures";
import { hangUpCaller, queueCaller } from "./toolbar-support";

/**
 * Pictures of the supervisor's board and of the wall screen at 1920x1080, with today's figures, an
 * alert and the intraday charts, in both languages (`npm run screenshots` writes them to
 * docs/screenshots/). Callers who gave up and callers still waiting (no agent is ready) give the
 * charts their bars and the board its alerts; the supervisor story (supervisor.spec.ts) checks
 * what these pictures show.
 */
const FULL_HD = { width: 1920, height: 1080 };

async function supervisorKey(baseUrl: string): Promise<string> {
  const post = async (path: string, body: unknown, token?: string) =>
    (
      await fetch(baseUrl + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { "X-XTRA-AUTH-ID": token } : {}) },
        body: JSON.stringify(body),
      })
    ).json() as Promise<Record<string, unknown>>;
  const session = (await post("/api/sessions", { login: "supervisor", password: PASSWORD })) as {
    token: string;
    user_id: number;
  };
  return (
    (await post(`/api/users/${session.user_id}/dev_keys`, { description: "wall" }, session.token)) as {
      data: { k: string };
    }
  ).data.k;
}

test("the board and the wall screen at 1920x1080, en and zh-CN", async ({ newParty, platform }) => {
  test.setTimeout(120_000);
  for (const [i, queue] of ["support", "support", "sales"].entries()) {
    const c = await queueCaller(platform.url, { queue, number: `555020${i}`, name: `Gave Up ${i}`, toneHz: 440 });
    await hangUpCaller(platform.url, c.id);
  }
  await queueCaller(platform.url, { number: "5550210", name: "Wendy Waiting", toneHz: 440 });
  await queueCaller(platform.url, { number: "5550211", name: "Walt Waiting", toneHz: 440 });

  const sam = await newParty({ viewport: FULL_HD });
  await sam.open({ layout: "full" });
  await signIn(sam.page, "supervisor");
  const tv = await newParty({ viewport: FULL_HD });
  await tv.page.goto(`/wall#key=${encodeURIComponent(await supervisorKey(platform.url))}`);
  for (const language of ["en", "zh-CN"] as const) {
    if (language !== "en") {
      for (const page of [sam.page, tv.page]) {
        await inLanguage(page, language);
        await page.reload();
      }
    }
    const support = sam.page.locator(".queue-tile[data-queue=support]");
    await expect(support.getByTestId("queue-waiting")).toHaveText("2");
    await expect(support.getByTestId("intraday").locator("tbody tr")).toHaveCount(1);
    await expect(sam.page.getByTestId("alerts").locator("li").first()).toBeVisible();
    await screenshot(sam.page, `supervisor-${language}-board-1920`);
    await elementShot(support.getByTestId("intraday"), `supervisor-${language}-chart`);

    await expect(tv.page.locator(".wall-queue[data-queue=support]").getByTestId("wall-waiting")).toHaveText("2");
    await expect(tv.page.getByTestId("wall-alerts").locator("li").first()).toBeVisible();
    await screenshot(tv.page, `wall-${language}`);
  }
});

async function inLanguage(page: Page, language: string): Promise<void> {
  await page.evaluate((lang) => {
    const settings = JSON.parse(localStorage.getItem("agentbar.settings") ?? "{}") as Record<string, unknown>;
    localStorage.setItem("agentbar.settings", JSON.stringify({ ...settings, language: lang }));
  }, language);
}

/** A picture of one element, where `screenshot` writes the page's. */
async function elementShot(element: Locator, name: string): Promise<void> {
  const dir = process.env.AGENTBAR_SCREENSHOTS_DIR ?? join(import.meta.dirname, "..", "test-results", "screenshots");
  await mkdir(dir, { recursive: true });
  await element.screenshot({ animations: "disabled", path: join(dir, `${name}.png`) });
}
