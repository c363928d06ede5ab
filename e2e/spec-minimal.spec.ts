import { PASSWORD, captchaText, expect, signIn, signInForm, test } from "./fixtures";
import { agent, expectSimHears, sim, simChannelOf } from "./phone-support";
import { expectCustomerHeld, goReady, queueCaller } from "./toolbar-support";

/**
 * The agent's story against a platform that offers only what the spec shows (the local platform's
 * `spec-minimal` profile: sign-in refusals without counts, no X-CC headers, agent_state's seven
 * fields, ccDial without data, no events on /ws). One test walks it all, each step degraded only
 * where the platform says less; the full platform's stories are the other files'.
 */
test.use({ platformOptions: { profile: "spec-minimal", simRingMs: 300 } });

test("against a spec-minimal platform an agent signs in through the captcha, goes Ready, takes a queue call (tones both ways), holds, transfers, wraps up and finds the call in the history", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440, {
    signIn: async (page) => {
      const form = signInForm(page);
      await signIn(page, "agent1", "wrong-1");
      await expect(form.message).toHaveText("Wrong login name or password. Check both and try again.");
      await expect(form.captchaPicture).toHaveCount(0);
      // The refusal says nothing of a captcha: the spec's rule (from the second failure on) brings the picture.
      await form.password.fill("wrong-2");
      await form.submit.click();
      await expect(form.captchaPicture).toBeVisible();
      await form.password.fill(PASSWORD);
      await form.captcha.fill(captchaText(platform, (await form.captchaPicture.getAttribute("src"))!));
      await form.submit.click();
    },
  });
  const page = alice.page;

  await goReady(page);
  // No event ever comes: the toolbar reads the platform every few seconds, and says so.
  await expect(page.getByTestId("queues")).toContainText("Updated every few seconds");

  const customer = await queueCaller(platform.url, { number: "5550142", name: "Carla Customer", toneHz: 660 });
  const ringing = alice.card("ringing");
  await expect(ringing).toContainText("Carla Customer");
  await ringing.getByRole("button", { name: "Answer" }).click();
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  await alice.hears(660, "agent1 hears the customer");
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  // The platform names no queue: the card says it is a queue call, and that it does not know which.
  await expect(card.getByTestId("call-queue")).toHaveText("Queue call (the platform does not say which queue)");

  // Hold through the platform (ccHold on agent_state's agent_uuid): the customer hears music, not the agent.
  await card.getByRole("button", { name: "Hold" }).click();
  await expect(card.getByTestId("cc-held")).toBeVisible();
  await expectCustomerHeld(s, customer.uuid, 440, "held: the customer hears music and not agent1");
  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card.getByTestId("cc-held")).toHaveCount(0);
  await expectSimHears(s, customer.uuid, 440, "resumed: the customer hears agent1 again");

  // Transfer to a number (ccTransfer): the customer talks to it, the agent's call ends.
  await card.getByRole("button", { name: "Transfer" }).click();
  await card.getByLabel("To", { exact: true }).selectOption("number");
  await card.getByLabel("Number", { exact: true }).fill("55510900");
  await card.getByLabel("Number", { exact: true }).press("Enter");
  await expect(card).toHaveAttribute("data-state", "ended");
  const third = await simChannelOf(s, "55510900");
  await expectSimHears(s, customer.uuid, 900, "transferred: the customer hears the number");
  await expectSimHears(s, third.uuid, 660, "transferred: the number hears the customer");

  // After-call work for the customer, then the call in the history with its outcome.
  const wrapUp = page.getByTestId("wrap-up");
  await expect(wrapUp).toContainText("Carla Customer");
  await wrapUp.getByLabel("Outcome").selectOption("Resolved");
  await wrapUp.getByRole("button", { name: "Done" }).click();
  await expect(wrapUp).toHaveCount(0);
  const row = page.getByTestId("history-row").filter({ hasText: "5550142" }).first();
  await expect(row).toBeVisible();
  await expect(row.getByTestId("history-disposition")).toContainText("Resolved");
});
