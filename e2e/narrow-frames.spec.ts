import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { agent } from "./phone-support";
import { goReady, queueCaller, statusOf } from "./toolbar-support";

/**
 * The bar and the side panel in the narrowest frames they are made for, worked by mouse through a
 * queue call: a click lands only on a control nothing covers. A file of its own, so that no
 * earlier test's call holds the agent's next offer back.
 */
test.use({ platformOptions: { simRingMs: 300 } });

/**
 * Every control shown lies within the window, shows its whole label, and in the bar none reaches
 * under the language and Sign out: what a narrow frame must keep true.
 */
async function expectNothingCut(page: Page, what: string): Promise<void> {
  const cut = await page.evaluate(() => {
    const edge = document.querySelector(".layout-bar .shell-actions")?.getBoundingClientRect().left ?? window.innerWidth;
    return [...document.querySelectorAll<HTMLElement>("button, input, select")]
      .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().width > 1)
      .map((el) => {
        const box = el.getBoundingClientRect();
        const limit = el.closest(".bar-regions") ? edge : window.innerWidth;
        const name = el.getAttribute("aria-label") || el.textContent || el.getAttribute("placeholder") || el.tagName;
        if (box.right > limit + 0.5) return `${name}: ends at ${Math.round(box.right)} px, past ${Math.round(limit)} px`;
        if (el.tagName === "BUTTON" && el.scrollWidth > el.clientWidth + 1) return `${name}: label ${el.scrollWidth} px in ${el.clientWidth} px`;
        return "";
      })
      .filter(Boolean);
  });
  expect(cut, `${what}: controls cut off or covered`).toEqual([]);
}

const narrowFrames = [
  { layout: "bar", viewport: { width: 800, height: 56 } },
  { layout: "side", viewport: { width: 320, height: 800 } },
] as const;

for (const { layout, viewport } of narrowFrames) {
  test(`in the ${layout} ${viewport.width} px wide, no control is cut or covered: answer, transfer panel, hang up, after-call work by mouse`, async ({ newParty, platform }) => {
    const alice = await agent(newParty, "agent1", "1001", 440, { layout, viewport });
    const page = alice.page;
    await goReady(page);
    await expectNothingCut(page, "ready");
    await queueCaller(platform.url, { number: "5550188", name: "Nora Narrow", toneHz: 660 });
    await expect(alice.card("ringing")).toBeVisible();
    await expectNothingCut(page, "ringing");
    // A click lands only on a control nothing covers.
    await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
    await alice.hears(660, "agent1 hears the customer");
    await expectNothingCut(page, "in the call");
    await alice.card().getByRole("button", { name: "Transfer" }).click();
    await expect(page.getByRole("button", { name: "Three-way" })).toBeVisible();
    await expectNothingCut(page, "transfer panel");
    await page.keyboard.press("Escape");
    await alice.card().getByRole("button", { name: "Hang up" }).click();
    const wrapUp = page.getByTestId("wrap-up");
    await expect(wrapUp).toBeVisible();
    await expectNothingCut(page, "after-call work");
    await wrapUp.getByRole("button", { name: "Done" }).click();
    await expect(wrapUp).toBeHidden();
    await expect(statusOf(page)).toHaveAttribute("data-status", "Available");
  });
}
