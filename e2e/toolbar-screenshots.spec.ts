import { expect, screenshot, screenshotViewports, test } from "./fixtures";
import { agent } from "./phone-support";
import { queueCaller, statusOf } from "./toolbar-support";

/**
 * Pictures of the call-center toolbar in the three layouts and both languages
 * (`npm run screenshots` writes them to docs/screenshots/toolbar-*.png): Ready with the queues, a queue call ringing, in the call,
 * after-call work, the same customer again with its story on the ringing card, notes during the call and
 * the agent's day. The bar gets a taller window where a panel hangs under it, as a CRM gives its
 * iframe room for it.
 */
const viewports = screenshotViewports;
const shot = screenshot;

test.use({ platformOptions: { simRingMs: 300 } });

const words = {
  en: {
    answer: "Answer",
    hangup: "Hang up",
    notes: "Notes",
    outcome: "Outcome",
    resolved: "Resolved",
    customer: "Carla Customer",
    note: "Wants the March invoice again, by post.",
    status: /^Status/,
    transfer: "Transfer",
    done: "Done",
    callNotes: "Call notes",
    callNote: "Invoice arrived; asks about the April one.",
  },
  "zh-CN": {
    answer: "接听",
    hangup: "挂断",
    notes: "备注",
    outcome: "处理结果",
    resolved: "已解决",
    customer: "王小明",
    note: "需要重新邮寄三月份的发票。",
    status: /^状态/,
    transfer: "转接",
    done: "完成",
    callNotes: "通话备注",
    callNote: "发票已收到；询问四月份的发票。",
  },
} as const;

for (const language of ["en", "zh-CN"] as const) {
  for (const layout of ["full", "side", "bar"] as const) {
    test(`${language} ${layout}: ready, a queue call ringing, in the call, after-call work`, async ({
      newParty,
      platform,
    }) => {
      const w = words[language];
      const p = `toolbar-${language}-${layout}`;
      const locale = language === "en" ? "en-US" : "zh-CN";
      const alice = await agent(newParty, "agent1", "1001", 440, { layout, locale, viewport: viewports[layout] });
      const page = alice.page;
      await expect(statusOf(page)).toHaveAttribute("data-phase", "on");
      await page.keyboard.press("Alt+R");
      await expect(statusOf(page)).toHaveAttribute("data-status", "Available");
      await shot(page, `${p}-ready`);

      await queueCaller(platform.url, { number: "5550142", name: w.customer, toneHz: 660 });
      await expect(alice.card("ringing")).toBeVisible();
      await shot(page, `${p}-ringing`);
      await alice.card("ringing").getByRole("button", { name: w.answer }).click();
      await expect(alice.card("active")).toBeVisible();
      await alice.hears(660, "the customer");
      await shot(page, `${p}-call`);

      if (layout === "full") {
        await alice.card().getByRole("button", { name: w.transfer }).click();
        // The kind of target, then the agents of the queues once they have been looked up.
        await expect(alice.card().getByRole("combobox")).toHaveCount(2);
        await shot(page, `${p}-transfer`);
        await page.keyboard.press("Escape");
      }
      await alice.card().getByRole("button", { name: w.hangup }).click();
      const wrapUp = page.getByTestId("wrap-up");
      await expect(wrapUp).toBeVisible();
      if (layout === "bar") {
        await page.setViewportSize({ width: 1280, height: 420 });
        await wrapUp.getByRole("button", { name: w.notes }).click();
      }
      await page.getByLabel(w.outcome).selectOption(w.resolved);
      await page.getByRole("textbox", { name: w.notes }).fill(w.note);
      // The history shows the call once the platform has written its record.
      if (layout !== "bar") await expect(page.getByTestId("history-row").first()).toBeVisible();
      await shot(page, `${p}-wrap-up`);
      if (layout === "bar") {
        await page.keyboard.press("Escape");
        await page.setViewportSize(viewports.bar);
      }

      if (layout !== "side") {
        if (layout === "bar") await page.setViewportSize({ width: 1280, height: 420 });
        await page.getByRole("button", { name: w.status }).click();
        await shot(page, `${p}-menu`);
      }

      // The same customer calls again: the ringing card tells the earlier call, its outcome and
      // notes; notes typed during the call; the agent's day (full and side) counts the calls.
      if (layout !== "side") await page.keyboard.press("Escape");
      await page.getByTestId("wrap-up").getByRole("button", { name: w.done }).click();
      await expect(page.getByTestId("wrap-up")).toHaveCount(0);
      if (layout === "bar") await page.setViewportSize(viewports.bar);
      await queueCaller(platform.url, { number: "5550142", name: w.customer, toneHz: 660 });
      await expect(alice.card("ringing").getByTestId("caller-story")).toHaveAttribute("data-status", "ready");
      await shot(page, `${p}-story`);
      await alice.card("ringing").getByRole("button", { name: w.answer }).click();
      await expect(alice.card("active")).toBeVisible();
      if (layout !== "bar") {
        await alice.card().getByLabel(w.callNotes).fill(w.callNote);
        await expect(page.getByTestId("my-day-calls")).toHaveText("1");
        await shot(page, `${p}-notes-day`);
      }
    });
  }
}
