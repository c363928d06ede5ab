import type { Page } from "@playwright/test";
import { WCAG_TAGS, axeViolations, expect, screenshotViewports, signInForm, test, type Layout } from "./fixtures";
import { agent } from "./phone-support";
import { admin, goReady, queueCaller, statusOf } from "./toolbar-support";

/**
 * axe-core's WCAG 2.1 A and AA rules over every screen an agent works in, in each layout and in
 * both colour schemes: names, roles, contrast, focus order, landmarks. A failure lists each rule
 * broken with the elements that break it. Each screen is checked light and dark in turn (the
 * scheme changes colours only), so the calls behind the screens are made once per layout.
 */

test.use({ platformOptions: { simRingMs: 300 } });

// The bar gets room below it for the panels that hang from it, as a CRM gives its iframe: axe
// passes over what the window cuts off.
const viewports = { ...screenshotViewports, bar: { width: 1280, height: 420 } };

// The dark scheme changes colours only, so its pass runs the rules that read colours.
const colourRules = ["color-contrast", "link-in-text-block"];

async function expectAccessible(page: Page, what: string): Promise<void> {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const found = await axeViolations(page, {
      runOnly: colorScheme === "dark" ? { type: "rule", values: colourRules } : { type: "tag", values: WCAG_TAGS },
    });
    expect(found, `${what}, ${colorScheme}: WCAG violations`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

for (const layout of ["full", "side", "bar"] as const satisfies Layout[]) {
  test(`${layout}, light and dark: sign-in, ready, status menu, ringing, in a call, keypad, transfer, after-call work`, async ({
    newParty,
    platform,
    page,
  }) => {
    // Sixteen axe passes (about 2 s each on a busy 2-core machine) besides the calls.
    test.setTimeout(240_000);
    // The sign-in screen, with an error shown.
    await page.setViewportSize(viewports[layout]);
    await page.goto(`/?layout=${layout}`);
    const form = signInForm(page);
    await form.login.fill("nobody");
    await form.password.fill("wrong");
    await form.submit.click();
    await expect(form.message).toBeVisible();
    await expectAccessible(page, "sign-in with an error");

    // After-call work must outlast its two axe passes, however slow the machine.
    const platformView = await admin(platform.url);
    const before = await platformView.setAgentInfo("agent1", { wrap_up_time: "600" });
    const alice = await agent(newParty, "agent1", "1001", 440, { layout, viewport: viewports[layout] });
    const p = alice.page;
    await expect(statusOf(p)).toHaveAttribute("data-phase", "on");
    await goReady(p);
    await expectAccessible(p, "ready");
    await p.getByRole("button", { name: /^Status/ }).click();
    await expectAccessible(p, "status menu open");
    await p.keyboard.press("Escape");

    await queueCaller(platform.url, { number: "5550142", name: "Carla Customer", toneHz: 660 });
    await expect(alice.card("ringing")).toBeVisible();
    await expectAccessible(p, "a queue call ringing");
    await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
    await expect(alice.card("active")).toBeVisible();
    // Muted, said loudly: on the card (a badge in the bar) and in the tab's title.
    await alice.card().getByRole("button", { name: "Mute" }).click();
    await expect(alice.card().getByTestId("call-muted")).toHaveText(
      layout === "bar" ? "Muted" : "Muted: the other side cannot hear you",
    );
    await expect(p).toHaveTitle(/^Muted · /);
    await expectAccessible(p, "in a call, muted");
    await alice.card().getByRole("button", { name: "Keypad" }).click();
    await expectAccessible(p, "keypad open");
    await p.keyboard.press("Escape");
    await alice.card().getByRole("button", { name: "Transfer" }).click();
    await expectAccessible(p, "transfer panel open");
    await p.keyboard.press("Escape");
    await alice.card().getByRole("button", { name: "Hang up" }).click();
    await expect(p.getByTestId("wrap-up")).toBeVisible();
    await expectAccessible(p, "after-call work");
    await p.getByTestId("wrap-up").getByRole("button", { name: "Done" }).click();
    await expect(p.getByTestId("wrap-up")).toBeHidden();

    await p.getByRole("button", { name: "Audio devices" }).click();
    await expect(p.getByRole("combobox", { name: "Microphone" })).toBeVisible();
    await expectAccessible(p, "audio devices");
    await p.keyboard.press("Escape");
    await p.getByRole("button", { name: "Phone settings" }).click();
    await expect(p.getByRole("heading", { name: "Toolbar settings" })).toBeVisible();
    await expectAccessible(p, "phone and toolbar settings");
    await platformView.setAgentInfo("agent1", before);
  });
}
