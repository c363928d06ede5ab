import { PASSWORD, expect, signIn, signInForm, test } from "./fixtures";

// The lock the spec describes, reached without captchas (they are on by default; captcha.spec.ts).
test.use({ platformOptions: { captcha: false } });

test("five failures lock the account; the message says until when, in the agent's time format", async ({
  openApp,
  platform,
}) => {
  const page = await openApp();
  const form = signInForm(page);
  await signIn(page, "agent4", "wrong-1");
  for (const left of [4, 3, 2, 1]) {
    await expect(form.message).toContainText(left === 1 ? "1 attempt left" : `${left} attempts left`);
    if (left === 1) break;
    await form.password.fill(`wrong-${6 - left}`);
    await form.submit.click();
  }
  await form.password.fill("wrong-5");
  await form.submit.click();

  // The refusal on screen means the platform has written the lock.
  await expect(form.message).toContainText("This account is locked after too many failed sign-ins. Try again after");
  const lockedUntil = platform.ctx.users.byLogin("agent4")!.locked_until;
  const [, hh, mm] = /(\d{2}):(\d{2}):\d{2}$/.exec(lockedUntil)!;
  const hour12 = Number(hh) % 12 || 12;
  await expect(form.message).toContainText(new RegExp(`\\b${hour12}:${mm}\\s?(AM|PM)`));

  // Even the right password is refused until then.
  await form.password.fill(PASSWORD);
  await form.submit.click();
  await expect(form.message).toContainText(`${hour12}:${mm}`);
  await expect(page.getByTestId("identity")).toHaveCount(0);
});
