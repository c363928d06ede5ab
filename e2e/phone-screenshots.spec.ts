import { expect, screenshot, screenshotViewports, test } from "./fixtures";
import { agent, sim } from "./phone-support";

/**
 * Pictures of the phone in every layout and its main states, for review and for the docs
 * (`npm run screenshots` writes them to docs/screenshots/phone-*.png). The bar gets a taller window where a popover is open, as a CRM
 * gives its iframe room for it.
 */
const viewports = screenshotViewports;
const shot = screenshot;

test.use({ platformOptions: { simRingMs: 300 } });

const words = {
  en: {
    dismiss: "Dismiss",
    answer: "Answer",
    hold: "Hold",
    keypad: "Keypad",
    transfer: "Transfer",
    transferTo: "Transfer to",
    consult: "Consult first",
    devices: "Audio devices",
    settings: "Phone settings",
    hangup: "Hang up",
  },
  "zh-CN": {
    dismiss: "关闭",
    answer: "接听",
    hold: "保持",
    keypad: "按键",
    transfer: "转接",
    transferTo: "转接给",
    consult: "先咨询",
    devices: "音频设备",
    settings: "电话设置",
    hangup: "挂断",
  },
} as const;

for (const language of ["en", "zh-CN"] as const) {
  for (const layout of ["full", "side", "bar"] as const) {
    test(`${language} ${layout}: the phone idle, ringing, in a call, with call waiting and consulting`, async ({
      newParty,
      platform,
    }) => {
      const w = words[language];
      const s = sim(platform.url);
      const p = `phone-${language}-${layout}`;
      const locale = language === "en" ? "en-US" : "zh-CN";
      const alice = await agent(newParty, "agent1", "1001", 440, { layout, locale, viewport: viewports[layout] });
      const page = alice.page;

      // A few calls first, so that the history has something to show.
      await alice.dial("55510700");
      await expect(alice.card()).toHaveAttribute("data-state", "active");
      await alice.card().getByRole("button", { name: w.hangup }).click();
      await alice.dial("55520100");
      await expect(alice.card()).toHaveAttribute("data-state", "ended");
      if (layout !== "bar") await expect(page.getByTestId("history-row")).not.toHaveCount(0);
      while ((await alice.calls.count()) > 0)
        await alice.calls.first().getByRole("button", { name: w.dismiss }).click();
      await shot(page, `${p}-idle`);

      const first = await s.call("1001", 700, "5550301", language === "en" ? "Casey Customer" : "王小明");
      await expect(alice.card("ringing")).toBeVisible();
      await shot(page, `${p}-incoming`);
      await alice.card("ringing").getByRole("button", { name: w.answer }).click();
      const card = alice.card("active");
      await expect(card).toBeVisible();
      if (layout !== "bar") {
        await card.getByRole("button", { name: w.keypad }).click();
        for (const d of ["1", "2", "3"]) await card.getByRole("button", { name: d, exact: true }).click();
      }
      await shot(page, `${p}-active`);
      if (layout !== "bar") await card.getByRole("button", { name: w.keypad }).click();

      const second = await s.call("1001", 1300, "5550302", language === "en" ? "Dana Second" : "李四");
      await expect(alice.card("ringing")).toBeVisible();
      await shot(page, `${p}-waiting`);
      await s.hangup(second.uuid);
      await expect(alice.page.locator("[data-testid=call][data-state=ringing]")).toHaveCount(0);

      if (language === "en" && layout !== "side") {
        if (layout === "bar") await page.setViewportSize({ width: 1280, height: 360 });
        await card.getByRole("button", { name: w.transfer }).click();
        await card.getByLabel(w.transferTo).fill("1002");
        await shot(page, `${p}-transfer`);
        await card.getByLabel(w.transferTo).press("Escape");
        if (layout === "bar") await page.setViewportSize(viewports.bar);
      }
      await card.getByRole("button", { name: w.hold }).click();
      await expect(alice.card("held")).toBeVisible();
      await shot(page, `${p}-held`);
      await s.hangup(first.uuid);
      await expect(alice.page.locator("[data-testid=call]:not([data-state=ended])")).toHaveCount(0);
    });
  }
}

for (const layout of ["full", "bar"] as const) {
  test(`en ${layout}: consulting before a transfer, devices, settings, reconnecting`, async ({
    newParty,
    platform,
  }) => {
    const s = sim(platform.url);
    const p = `phone-en-${layout}`;
    const tall = layout === "bar" ? { width: 1280, height: 420 } : viewports.full;
    const alice = await agent(newParty, "agent1", "1001", 440, { layout, viewport: viewports[layout] });
    const bob = await agent(newParty, "agent2", "1002", 1000);
    const page = alice.page;
    const customer = await s.call("1001", 700, "5550311", "Casey Customer");
    await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
    const original = page.getByRole("article", { name: /Casey Customer/ });
    await expect(original).toHaveAttribute("data-state", "active");
    if (layout === "bar") await page.setViewportSize(tall);
    await original.getByRole("button", { name: "Transfer" }).click();
    await original.getByLabel("Transfer to").fill("1002");
    await original.getByRole("button", { name: "Consult first" }).click();
    await bob.card("ringing").getByRole("button", { name: "Answer" }).click();
    await expect(page.locator("[data-testid=call][data-state=active]")).toHaveCount(1);
    await expect(original).toHaveAttribute("data-state", "held");
    if (layout === "bar") await page.setViewportSize(viewports.bar);
    await shot(page, `${p}-consult`);
    await page.getByRole("button", { name: "Cancel transfer" }).click();
    await expect(original).toHaveAttribute("data-state", "active");
    await s.hangup(customer.uuid);
    await expect(page.locator("[data-testid=call]:not([data-state=ended])")).toHaveCount(0);

    if (layout === "bar") await page.setViewportSize(tall);
    await page.getByRole("button", { name: "Audio devices" }).click();
    await expect(page.getByLabel("Microphone")).toBeVisible();
    await shot(page, `${p}-devices`);
    await page.getByRole("button", { name: "Audio devices" }).click();
    await page.getByRole("button", { name: "Phone settings" }).click();
    await page.getByLabel("STUN/TURN servers").fill("turn:turn.example.com:3478 alice");
    await page.getByRole("form", { name: "Phone settings" }).getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText("Line 1: a TURN server needs a user name and a password.")).toBeVisible();
    await shot(page, `${p}-settings`);
    await page.getByRole("button", { name: "Phone settings" }).click();
    if (layout === "bar") await page.setViewportSize(viewports.bar);

    // The platform stops taking the phone's connections for a while: the phone keeps trying.
    const sip = platform.ctx.sip;
    platform.upgrades.onSip((ws) => ws.terminate());
    for (const b of sip.registrar.contactsOf("1001", "agentbar.local")) b.connection.kill();
    await expect(page.getByTestId("registration")).toHaveAttribute("data-status", "reconnecting");
    await shot(page, `${p}-reconnecting`);
    platform.upgrades.onSip(sip.attach);
    await page.getByRole("button", { name: "Retry now" }).click();
    await expect(page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  });
}

test("en full, dark: in a call", async ({ newParty, platform }) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440, { viewport: viewports.full });
  await alice.page.emulateMedia({ colorScheme: "dark" });
  const caller = await s.call("1001", 700, "5550321", "Casey Customer");
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await expect(alice.card("active")).toBeVisible();
  await shot(alice.page, "phone-en-dark-full-active");
  await s.hangup(caller.uuid);
});
