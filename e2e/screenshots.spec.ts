import { PASSWORD, expect, screenshot, test, type Layout } from "./fixtures";

/**
 * Pictures of the sign-in screen and the shell in every layout and language, for review and for
 * the docs (`npm run screenshots` writes them to docs/screenshots/). Each layout gets the size it has when embedded.
 */
const viewports: Record<Layout, { width: number; height: number }> = {
  bar: { width: 1280, height: 56 },
  side: { width: 360, height: 720 },
  full: { width: 1280, height: 800 },
};
const words = {
  en: { login: "Login name", password: "Password", signIn: "Sign in", signOut: "Sign out" },
  "zh-CN": { login: "登录名", password: "密码", signIn: "登录", signOut: "退出登录" },
} as const;

test.beforeAll(async () => {});

for (const language of ["en", "zh-CN"] as const) {
  for (const layout of ["full", "side", "bar"] as const) {
    test(`${language} ${layout}: sign-in screen and shell`, async ({ newParty }) => {
      const w = words[language];
      const { page, open } = await newParty({ locale: language, viewport: viewports[layout] });
      await open({ layout });
      await expect(page.getByRole("button", { name: w.signIn })).toBeVisible();
      await screenshot(page, `${language}-sign-in-${layout}`);

      await page.getByLabel(w.login).fill("agent1");
      await page.getByLabel(w.password, { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: w.signIn }).click();
      await expect(page.getByRole("button", { name: w.signOut })).toBeVisible();
      await screenshot(page, `${language}-shell-${layout}`);
    });
  }
}

for (const layout of ["full", "side", "bar"] as const) {
  test(`en ${layout}: a refused sign-in`, async ({ newParty }) => {
    const { page, open } = await newParty({ viewport: viewports[layout] });
    await open({ layout });
    await page.getByLabel("Login name").fill("agent2");
    await page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("sign-in-message")).toContainText("attempts left");
    await screenshot(page, `en-sign-in-error-${layout}`);
    // Success resets the count, so the next layout starts from the same message.
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  });
}

test("en full, dark: sign-in screen and shell", async ({ newParty }) => {
  const { page, open } = await newParty({ colorScheme: "dark", viewport: viewports.full });
  await open();
  await page.getByLabel("Login name").fill("agent2");
  await page.getByLabel("Password", { exact: true }).fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("sign-in-message")).toContainText("attempts left");
  await screenshot(page, "en-dark-sign-in-full");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await screenshot(page, "en-dark-shell-full");
});

test.describe("with captchas", () => {
  test.use({ platformOptions: { captcha: true } });

  for (const layout of ["full", "bar"] as const) {
    test(`en ${layout}: the captcha and the platform address`, async ({ newParty, platform }) => {
      const { page, open } = await newParty({ viewport: viewports[layout] });
      await open({ layout });
      const login = layout === "full" ? "agent3" : "agent4";
      await page.getByLabel("Login name").fill(login);
      for (const attempt of [1, 2]) {
        await page.getByLabel("Password", { exact: true }).fill(`wrong-${attempt}`);
        await page.getByRole("button", { name: "Sign in" }).click();
        await expect(page.getByTestId("sign-in-message")).toContainText(`${5 - attempt} attempts left`);
      }
      await expect(page.getByRole("img", { name: "Picture of the characters to type" })).toBeVisible();
      await page.getByRole("button", { name: /Platform address/ }).click();
      await page.getByRole("textbox", { name: "Platform address" }).fill(platform.url);
      await page.getByLabel("Password", { exact: true }).focus();
      await screenshot(page, `en-sign-in-captcha-${layout}`);
    });
  }
});
