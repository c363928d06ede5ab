import { PASSWORD, captchaText, expect, signIn, signInForm, test } from "./fixtures";

// The platform's default options: the captcha is on, as `npm start` serves it.

test("after two failures the captcha picture appears; answering it signs in", async ({ openApp, platform }) => {
  const page = await openApp();
  const form = signInForm(page);

  await signIn(page, "agent1", "wrong-1");
  await expect(form.message).toContainText("4 attempts left");
  await expect(form.captchaPicture).toHaveCount(0);

  await form.password.fill("wrong-2");
  await form.submit.click();
  await expect(form.message).toContainText("3 attempts left");
  await expect(form.captchaPicture).toBeVisible();
  await expect(form.captcha).toHaveValue("");

  // Right password, wrong characters: the platform refuses and a new picture replaces the old one.
  const first = (await form.captchaPicture.getAttribute("src"))!;
  await form.password.fill(PASSWORD);
  await form.captcha.fill("WRONG");
  await form.submit.click();
  await expect(form.message).toHaveText("The characters did not match the picture. Type the ones in the new picture.");
  await expect(form.captcha).toBeFocused();
  await expect(form.captchaPicture).not.toHaveAttribute("src", first);

  // Submitting without the characters is caught before sending.
  await form.submit.click();
  await expect(form.captcha).toHaveAccessibleDescription("Type the characters shown in the picture.");

  const picture = (await form.captchaPicture.getAttribute("src"))!;
  await form.captcha.fill(captchaText(platform, picture));
  await form.submit.click();
  await expect(page.getByTestId("identity")).toContainText("Alice Agent");
});

test("a new picture can be asked for", async ({ openApp }) => {
  const page = await openApp();
  const form = signInForm(page);
  await signIn(page, "agent2", "wrong-1");
  await form.password.fill("wrong-2");
  await form.submit.click();
  await expect(form.captchaPicture).toBeVisible();
  const first = await form.captchaPicture.getAttribute("src");
  await page.getByRole("button", { name: "New picture" }).click();
  await expect(form.captchaPicture).not.toHaveAttribute("src", first!);
});
