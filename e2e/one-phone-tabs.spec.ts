import { PASSWORD, expect, signIn, test } from "./fixtures";
import { addAudioProbe, agent, expectHears, expectSimHears, sim } from "./phone-support";
import { admin, goReady, queueCaller, statusOf } from "./toolbar-support";

/**
 * One phone per agent across the tabs of a browser: two tabs of agent1 in one browser profile
 * (one storage partition) share one registration; calls ring in both and are answered from either;
 * the call's sound is in the tab that has the phone; closing that tab hands the phone (and the
 * customer) to the other.
 */
test.use({ platformOptions: { simRingMs: 300 } });

test("two tabs of one agent: one registration, a queue call rings in both and is answered in the second; closing the first hands the phone and the call to the second, and the next call rings there", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const registrations = () => platform.ctx.sip.registrar.contactsOf("1001", "agentbar.local").length;
  // A short wrap-up, so that the next call comes soon after the first one's Done.
  await (await admin(platform.url)).setAgentInfo("agent1", { wrap_up_time: "5" });
  const first = await agent(newParty, "agent1", "1001", 440);
  const second = await first.context.newPage();
  await addAudioProbe(second);
  await second.goto("/");
  await signIn(second, "agent1", PASSWORD);

  // The second tab knows the first has the phone, and says so; the first shows that it has it.
  const chip = second.getByTestId("registration");
  await expect(chip).toHaveAttribute("data-status", "elsewhere");
  await expect(chip).toContainText("Phone in another tab");
  await expect(chip.getByRole("button", { name: "Use the phone here" })).toBeEnabled();
  await expect(first.page.getByTestId("phone-tab")).toHaveText("Phone in this tab");
  expect(registrations()).toBe(1);

  // Status from the second tab goes through the first, and both show what the platform reports.
  await goReady(second);
  await expect(statusOf(first.page)).toHaveAttribute("data-status", "Available");

  const customer = await queueCaller(platform.url, { number: "5550182", name: "Tara Tabs", toneHz: 660 });
  await expect(first.card("ringing")).toContainText("Tara Tabs");
  const ringing = second.locator("[data-testid=call][data-state=ringing]");
  await expect(ringing).toContainText("Tara Tabs");
  await ringing.getByRole("button", { name: "Answer" }).click();
  await expect(second.locator("[data-testid=call]").first()).toHaveAttribute("data-state", "active");
  // The sound is in the tab with the phone.
  await first.hears(660, "agent1's first tab hears the customer");
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  await expect(chip.getByRole("button", { name: "Use the phone here after the call" })).toBeDisabled();
  expect(registrations()).toBe(1);
  // Muted from the second tab (the phone is the first's): the tab taking the phone over keeps it so.
  const card = second.locator("[data-testid=call]").first();
  await card.getByRole("button", { name: "Mute" }).click();
  await expect(first.card().getByTestId("call-muted")).toBeVisible();
  await expect(card.getByTestId("call-muted")).toBeVisible();

  // The tab with the phone asks before it closes during a call (the second would not: it has no
  // call of its own); once the agent confirms, the second takes the phone, and the customer back.
  const asked = first.page.waitForEvent("dialog");
  await first.page.close({ runBeforeUnload: true });
  const dialog = await asked;
  expect(dialog.type()).toBe("beforeunload");
  await dialog.accept();
  await expect(chip).toHaveAttribute("data-status", "registered");
  await expect(card).toHaveAttribute("data-state", "active");
  await expect(card).toContainText("Tara Tabs");
  await expectHears(second, 660, "agent1's second tab hears the customer");
  await expect(card.getByTestId("call-muted")).toBeVisible();
  await expect(second).toHaveTitle(/^Muted · /);
  await card.getByRole("button", { name: "Unmute" }).click();
  await expectSimHears(s, customer.uuid, 440, "unmuted: the customer hears agent1 again");
  expect(registrations()).toBe(1);

  // The call ends in after-call work for its customer; after it the next call rings in the tab
  // that has the phone now.
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(second.getByTestId("wrap-up")).toContainText("Tara Tabs");
  await second.getByTestId("wrap-up").getByRole("button", { name: "Done" }).click();
  const next = await queueCaller(platform.url, { number: "5550183", name: "Nico Next", toneHz: 880 });
  const nextCard = second.locator("[data-testid=call][data-state=ringing]");
  await expect(nextCard).toContainText("Nico Next");
  await nextCard.getByRole("button", { name: "Answer" }).click();
  await expectHears(second, 880, "agent1's second tab hears the next customer");
  await expectSimHears(s, next.uuid, 440, "the next customer hears agent1");
});
