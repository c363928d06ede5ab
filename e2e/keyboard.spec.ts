import type { Page } from "@playwright/test";
import { PASSWORD, expect, test, type Layout } from "./fixtures";

/** Every button, field and menu on the page has a name a screen reader can say. */
async function expectNamedControls(page: Page) {
  const controls = page.locator("button:visible, input:visible, select:visible");
  const count = await controls.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) await expect(controls.nth(i)).toHaveAccessibleName(/\S/);
}

async function expectVisibleFocus(page: Page) {
  const outline = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  expect(outline.style).not.toBe("none");
  expect(outline.width).toBeGreaterThanOrEqual(2);
}

const viewports: Record<Layout, { width: number; height: number }> = {
  bar: { width: 1280, height: 56 },
  side: { width: 360, height: 720 },
  full: { width: 1280, height: 800 },
};

for (const layout of ["bar", "side", "full"] as const) {
  test(`${layout}: signing in and out with the keyboard only`, async ({ newParty }) => {
    const { page, open } = await newParty({ viewport: viewports[layout] });
    await open({ layout });
    // The sign-in screen comes in its own file after the page's first: counted once it is there.
    await expect(page.getByLabel("Login name")).toBeFocused();
    await expectNamedControls(page);

    await page.keyboard.type("agent1");
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");

    // Focus lands on who is signed in, so a screen reader says it.
    const identity = page.getByTestId("identity");
    await expect(identity.getByText("Alice Agent")).toBeFocused();
    await expectNamedControls(page);

    const signOut = page.getByRole("button", { name: "Sign out" });
    // The bar puts the phone's controls (status, number, Call, devices, settings) between who is
    // signed in and Sign out; the other layouts keep Sign out next to the identity.
    for (
      let i = 0;
      i < (layout === "bar" ? 14 : 6) && !(await signOut.evaluate((el) => el === document.activeElement));
      i++
    ) {
      await page.keyboard.press(layout === "full" ? "Shift+Tab" : "Tab");
    }
    await expect(signOut).toBeFocused();
    await expectVisibleFocus(page);
    await page.keyboard.press("Enter");
    await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
    await expectVisibleFocus(page);
  });
}

test("the platform address opens and closes from the keyboard", async ({ openApp }) => {
  const page = await openApp();
  const toggle = page.getByRole("button", { name: "Platform address" });
  await toggle.focus();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByRole("textbox", { name: "Platform address" })).toBeFocused();
  await expect(page.getByRole("textbox", { name: "Platform address" })).toHaveAccessibleDescription(
    /Leave empty to use this site/,
  );
  await toggle.focus();
  await page.keyboard.press("Space");
  await expect(page.getByRole("textbox", { name: "Platform address" })).toBeHidden();
});
