import { expect, test } from "./fixtures";
import { agent, expectSimHears, sim } from "./phone-support";

/**
 * Transfers end with the right people hearing each other: a simulated customer (saying 700 Hz)
 * calls agent1 (440 Hz), who passes the call to agent2 (1000 Hz), blind or after consulting.
 */
test.use({ platformOptions: { simRingMs: 300 } });

test("blind transfer: the customer ends up talking with agent2, agent1's call ends", async ({ newParty, platform }) => {
  const s = sim(platform.url);
  const [alice, bob] = await Promise.all([
    agent(newParty, "agent1", "1001", 440),
    agent(newParty, "agent2", "1002", 1000),
  ]);
  const customer = await s.call("1001", 700, "5550191", "Casey Customer");
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  const card = alice.card();
  await alice.hears(700, "alice hears the customer");

  await card.getByRole("button", { name: "Transfer" }).click();
  await card.getByLabel("Transfer to").fill("1002");
  await card.getByRole("button", { name: "Transfer now" }).click();
  const ringing = bob.card("ringing");
  await expect(ringing).toContainText("5550191");
  await ringing.getByRole("button", { name: "Answer" }).click();

  await bob.hears(700, "bob hears the customer");
  await expectSimHears(s, customer.uuid, 1000, "the customer hears bob");
  await expect(card).toHaveAttribute("data-state", "ended");
  await expect(card).toContainText("Transferred");
});

test("attended transfer: agent1 consults agent2 on a second line and cancels, which returns agent1 to the customer; consults again, then connects the customer to agent2", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const [alice, bob] = await Promise.all([
    agent(newParty, "agent1", "1001", 440),
    agent(newParty, "agent2", "1002", 1000),
  ]);
  const customer = await s.call("1001", 700, "5550192", "Casey Customer");
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  const original = alice.page.getByRole("article", { name: /Casey Customer/ });
  const consult = alice.page.getByRole("article", { name: /Call with .*(Bob|1002)/ });
  await alice.hears(700, "alice hears the customer");
  const consultBob = async () => {
    await original.getByRole("button", { name: "Transfer" }).click();
    await original.getByLabel("Transfer to").fill("1002");
    await original.getByRole("button", { name: "Consult first" }).click();
    await expect(original).toHaveAttribute("data-state", "held");
    await bob.card("ringing").getByRole("button", { name: "Answer" }).click();
    await alice.hears(1000, "alice hears bob while consulting");
  };

  // A cancelled consultation returns agent1 to the customer.
  await consultBob();
  await consult.getByRole("button", { name: "Cancel transfer" }).click();
  await expect(bob.card()).toHaveAttribute("data-state", "ended");
  await expect(original).toHaveAttribute("data-state", "active");
  await alice.hears(700, "alice hears the customer again");
  await expectSimHears(s, customer.uuid, 440, "the customer hears alice again");
  // The ended consultation's cards are put away before the next one.
  await consult.getByRole("button", { name: "Dismiss" }).click();
  await bob.card().getByRole("button", { name: "Dismiss" }).click();

  // Consulting: agent1 and agent2 talk; the customer waits with music and does not hear them.
  await consultBob();
  await bob.hears(440, "bob hears alice while consulting");
  await expect
    .poll(
      async () => {
        const r = await s.channel(customer.uuid);
        return r.hearingMusic && !r.hearing.some((f) => Math.abs(f - 440) <= 15 || Math.abs(f - 1000) <= 15);
      },
      { message: "the customer waits with music", timeout: 15_000 },
    )
    .toBe(true);

  await consult.getByRole("button", { name: "Complete transfer" }).click();
  await bob.hears(700, "bob hears the customer");
  await expectSimHears(s, customer.uuid, 1000, "the customer hears bob");
  await expect(alice.page.locator("[data-testid=call]:not([data-state=ended])")).toHaveCount(0);
  await expect(original).toContainText("Transferred");
});
