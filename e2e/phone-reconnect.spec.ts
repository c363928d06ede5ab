import { expect, test } from "./fixtures";
import { agent, expectSimHears, sim, simChannelOf } from "./phone-support";

test.use({ platformOptions: { simRingMs: 300 } });

test("the platform drops the agent's WebSocket mid-call: the phone re-registers, keeps the call, and its audio flows again", async ({ newParty, platform }) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await alice.dial("55510700");
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  const far = await simChannelOf(s, "55510700");
  await alice.hears(700, "alice hears the simulated party");

  const registrar = platform.ctx.sip.registrar;
  const [binding] = registrar.contactsOf("1001", "agentbar.local");
  const dropped = binding!.connection;
  dropped.kill();

  // The phone notices, says so, reconnects and registers again over a new connection.
  await expect(alice.page.getByTestId("announcer")).toContainText("Phone connection lost");
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await expect.poll(() => registrar.contactsOf("1001", "agentbar.local").some((b) => b.connection !== dropped && b.connection.open)).toBe(true);
  // The call card stayed, and the call's audio flows both ways.
  await expect(card).toHaveAttribute("data-state", "active");
  const reconnectedAt = Date.now();
  await alice.hears(700, "alice hears the simulated party after the reconnection");
  await expectSimHears(s, far.uuid, 440, "the simulated party hears alice after the reconnection");
  await expect
    .poll(async () => (await s.channel(far.uuid)).heard.some((t) => Math.abs(t.frequency - 440) <= 15 && Date.parse(t.to) > reconnectedAt))
    .toBe(true);
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect.poll(async () => (await s.channel(far.uuid)).hangupCause).toBe("NORMAL_CLEARING");
});
