import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { agent, sim } from "./phone-support";
import { goReady, queueCaller, statusOf } from "./toolbar-support";

/**
 * The bar and the side panel in the narrowest frames they are made for, worked by mouse through a
 * queue call: a click lands only on a control nothing covers. A file of its own, so that no
 * earlier test's call holds the agent's next offer back.
 */
test.use({ platformOptions: { simRingMs: 300 } });

/**
 * Every control shown lies within the window, shows its whole label, in the bar none reaches under
 * the language and Sign out, and no two of them (nor a call's quality mark, measuring or not) overlap, unless one is
 * in an open panel drawn over the rest: what a narrow frame must keep true.
 */
async function expectNothingCut(page: Page, what: string): Promise<void> {
  const cut = await page.evaluate(() => {
    const edge =
      document.querySelector(".layout-bar .shell-actions")?.getBoundingClientRect().left ?? window.innerWidth;
    const shown = [
      ...document.querySelectorAll<HTMLElement>("button, input, select, [data-testid=quality-mark]"),
    ].filter((el) => el.offsetParent !== null && el.getBoundingClientRect().width > 1);
    const nameOf = (el: HTMLElement) =>
      el.getAttribute("aria-label") || el.textContent || el.getAttribute("placeholder") || el.tagName;
    const problems = shown.map((el) => {
      const box = el.getBoundingClientRect();
      const limit = el.closest(".bar-regions") ? edge : window.innerWidth;
      if (box.right > limit + 0.5)
        return `${nameOf(el)}: ends at ${Math.round(box.right)} px, past ${Math.round(limit)} px`;
      if (el.tagName === "BUTTON" && el.scrollWidth > el.clientWidth + 1)
        return `${nameOf(el)}: label ${el.scrollWidth} px in ${el.clientWidth} px`;
      return "";
    });
    shown.forEach((el, i) => {
      const a = el.getBoundingClientRect();
      for (const other of shown.slice(i + 1)) {
        if (el.contains(other) || other.contains(el)) continue;
        if (el.closest(".popover-panel") !== other.closest(".popover-panel")) continue;
        const b = other.getBoundingClientRect();
        const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (across > 0.5 && down > 0.5)
          problems.push(
            `${nameOf(el)} (${Math.round(a.left)}-${Math.round(a.right)} px) and ${nameOf(other)} (${Math.round(b.left)}-${Math.round(b.right)} px) overlap`,
          );
      }
    });
    return problems.filter(Boolean);
  });
  expect(cut, `${what}: controls cut off or covered`).toEqual([]);
}

/**
 * Watches the call card from the moment its quality mark holds its place ("measuring") until the
 * first figures fill it; resolves with every control that moved then (and a word if the mark came
 * without its place held first). Started before the call is answered.
 */
async function watchMarkFilling(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { markFilled?: string[] };
    const boxes = () =>
      new Map(
        [...document.querySelectorAll("[data-testid=call] button")].map((el) => [el, el.getBoundingClientRect()]),
      );
    let measuring: Map<Element, DOMRect> | undefined;
    new MutationObserver((_, observer) => {
      const mark = document.querySelector("[data-testid=call] [data-testid=quality-mark]");
      if (!mark) return;
      // Every change while measuring (the timer, the language) is taken as the card's place.
      if (mark.getAttribute("data-mark") === "measuring") {
        measuring = boxes();
        return;
      }
      observer.disconnect();
      if (!measuring) {
        w.markFilled = ["the mark came with its figures: its place was not held"];
        return;
      }
      const moved: string[] = [];
      for (const [el, now] of boxes()) {
        const was = measuring.get(el);
        if (!was) continue;
        const by = Math.max(...(["left", "top", "width", "height"] as const).map((k) => Math.abs(now[k] - was[k])));
        if (by > 0.5)
          moved.push(
            `${el.getAttribute("aria-label") || el.textContent}: moved ${Math.round(by)} px as the figures came`,
          );
      }
      w.markFilled = moved;
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return async () => {
    const moved = await page.waitForFunction(() => (window as unknown as { markFilled?: string[] }).markFilled);
    return (await moved.jsonValue()) as string[];
  };
}

const narrowFrames = [
  { layout: "bar", viewport: { width: 800, height: 56 } },
  { layout: "side", viewport: { width: 320, height: 800 } },
] as const;

for (const { layout, viewport } of narrowFrames) {
  test(`in the ${layout} ${viewport.width} px wide, no control is cut or covered: answer with the queue in view, transfer panel, hang up, after-call work by mouse`, async ({
    newParty,
    platform,
  }) => {
    const alice = await agent(newParty, "agent1", "1001", 440, { layout, viewport });
    const page = alice.page;
    await goReady(page);
    await expectNothingCut(page, "ready");
    await queueCaller(platform.url, { number: "5550188", name: "Nora Narrow", toneHz: 660 });
    const ringing = alice.card("ringing");
    await expect(ringing).toBeVisible();
    // Who calls, from which queue, and how long they waited, in every layout.
    await expect(ringing).toContainText("Nora Narrow");
    await expect(ringing).toContainText("5550188");
    await expect(ringing.getByTestId("call-queue")).toContainText("Queue support");
    await expect(ringing.getByTestId("call-queue")).toContainText(/waited \d+:\d\d/);
    await expectNothingCut(page, "ringing");
    const markFilled = await watchMarkFilling(page);
    // A click lands only on a control nothing covers.
    await ringing.getByRole("button", { name: "Answer" }).click();
    await alice.hears(660, "agent1 hears the customer");
    // The call's quality mark holds its room from the answer on (measuring until the first
    // figures): the check covers its box at once.
    await expect(alice.card().getByTestId("quality-mark")).toBeVisible();
    await expectNothingCut(page, "in the call");
    // Chinese words take other widths: the call keeps every control whole and apart in both.
    if (layout === "bar") {
      await page.getByLabel("Language").selectOption("zh-CN");
      await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
      await expectNothingCut(page, "in the call, in Chinese");
      await page.locator(".language-switch select").selectOption("en");
      await expect(page.locator("html")).toHaveAttribute("lang", "en");
    }
    await alice.card().getByRole("button", { name: "Transfer" }).click();
    await expect(page.getByRole("button", { name: "Three-way" })).toBeVisible();
    await expectNothingCut(page, "transfer panel");
    // Escape from the panel's first control (the keyboard is there) closes it and goes back to Transfer.
    await expect(page.getByLabel("To", { exact: true })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("button", { name: "Three-way" })).toHaveCount(0);
    await expect(alice.card().getByRole("button", { name: "Transfer" })).toBeFocused();
    // The figures came meanwhile (a second into the call) and moved no control.
    expect(await markFilled(), "the quality mark's figures coming").toEqual([]);
    await alice.card().getByRole("button", { name: "Hang up" }).click();
    const wrapUp = page.getByTestId("wrap-up");
    await expect(wrapUp).toBeVisible();
    await expectNothingCut(page, "after-call work");
    await wrapUp.getByRole("button", { name: "Done" }).click();
    await expect(wrapUp).toBeHidden();
    await expect(statusOf(page)).toHaveAttribute("data-status", "Available");
  });
}

test("in the bar 800 px wide a second call rings in brief with Answer, Reject and Busy beside the call, none cut; Busy turns it away", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  // Another agent than the tests above: no wrap-up of theirs in the way.
  const bob = await agent(newParty, "agent2", "1002", 440, { layout: "bar", viewport: { width: 800, height: 56 } });
  const first = await s.call("1002", 700, "5550191", "Fay First");
  await bob.card("ringing").getByRole("button", { name: "Answer" }).click();
  await expect(bob.card()).toHaveAttribute("data-state", "active");
  const second = await s.call("1002", 900, "5550192", "Wes Waiting");
  const waiting = bob.card("ringing");
  await expect(waiting).toContainText("Wes Waiting");
  // Icon buttons, each named and with a tooltip (Answer's says its shortcut too).
  const tooltips: [string, string][] = [
    ["Answer", "Answer (Alt+A)"],
    ["Reject", "Reject"],
    ["Busy", "Busy"],
  ];
  for (const [name, title] of tooltips)
    await expect(waiting.getByRole("button", { name, exact: true })).toHaveAttribute("title", title);
  // The call talking keeps every control beside it.
  for (const name of ["Mute", "Hold", "Keypad", "Transfer", "Hang up"])
    await expect(bob.card("active").getByRole("button", { name, exact: true })).toBeVisible();
  await expect(bob.card("active").getByTestId("quality-mark")).toBeVisible();
  await expectNothingCut(bob.page, "a second call ringing");
  await waiting.getByRole("button", { name: "Busy", exact: true }).click();
  await expect.poll(async () => (await s.channel(second.uuid)).hangupCause).toBe("USER_BUSY");
  await expect(bob.card("ringing")).toHaveCount(0);
  await s.hangup(first.uuid);
});
