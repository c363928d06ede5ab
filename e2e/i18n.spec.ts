import { PASSWORD, expect, expectAnnounced, test } from "./fixtures";

test("switching to Chinese re-words the whole UI, and the choice is remembered", async ({ openApp }) => {
  const page = await openApp();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await page.getByLabel("Language").selectOption("zh-CN");

  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("heading", { name: "登录" })).toBeVisible();
  await page.getByLabel("登录名").fill("agent1");
  await page.getByLabel("密码", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "登录" }).click();

  const identity = page.getByTestId("identity");
  await expect(identity.getByRole("heading", { name: "Alice Agent" })).toBeVisible();
  await expect(identity).toContainText("坐席");
  await expect(identity).toContainText("分机");
  await expect(page.getByRole("button", { name: "退出登录" })).toBeVisible();
  await expectAnnounced(page, "已登录：Alice Agent。");

  await page.reload();
  await expect(page.getByRole("button", { name: "退出登录" })).toBeVisible();
  await page.getByLabel("语言").selectOption("en");
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
});

test("a browser set to Chinese gets the Chinese UI without asking", async ({ newParty }) => {
  const { page, open } = await newParty({ locale: "zh-CN" });
  await open({ layout: "bar" });
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("button", { name: "登录" })).toBeVisible();
  await expect(page.getByRole("button", { name: "平台地址" })).toBeVisible();

  await page.getByLabel("登录名").fill("agent2");
  await page.getByLabel("密码", { exact: true }).fill("wrong");
  await page.getByRole("button", { name: "登录" }).click();
  await expect(page.getByTestId("sign-in-message")).toHaveText("登录名或密码错误。再错 4 次，账号将被锁定 2 小时。");
});
