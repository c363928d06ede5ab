import { expect, screenshot, signIn, test } from "./fixtures";
import { hangUpCaller, keepLanguage, queueCaller, supervisorKey } from "./toolbar-support";

/**
 * Pictures of the supervisor's board and of the wall screen at 1920x1080, with today's figures, an
 * alert and the intraday charts, in both languages (`npm run screenshots` writes them to
 * docs/screenshots/). Callers who gave up and callers still waiting (no agent is ready) give the
 * charts their bars and the board its alerts; the supervisor story (supervisor.spec.ts) checks
 * what these pictures show.
 */
const FULL_HD = { width: 1920, height: 1080 };

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
        await keepLanguage(page, language);
        await page.reload();
      }
    }
    const support = sam.page.locator(".queue-tile[data-queue=support]");
    await expect(support.getByTestId("queue-waiting")).toHaveText("2");
    await expect(support.getByTestId("intraday").locator("tbody tr")).toHaveCount(1);
    await expect(sam.page.getByTestId("alerts").locator("li").first()).toBeVisible();
    await screenshot(sam.page, `supervisor-${language}-board-1920`);
    await screenshot(support.getByTestId("intraday"), `supervisor-${language}-chart`);

    await expect(tv.page.locator(".wall-queue[data-queue=support]").getByTestId("wall-waiting")).toHaveText("2");
    await expect(tv.page.getByTestId("wall-alerts").locator("li").first()).toBeVisible();
    await screenshot(tv.page, `wall-${language}`);
  }
});
