import { expect, expectAnnounced, test } from "./fixtures";
import { agent, cdrs, expectSimHears, seconds, sim } from "./phone-support";
import { admin, expectCustomerHeld, goReady, queueCaller } from "./toolbar-support";

/**
 * One phone per agent: a page reload during a call does not lose the customer. Agents in their own
 * Chromium with their own tone as microphone, simulated customers in the queues; who hears whom is
 * measured on both sides.
 */
test.use({ platformOptions: { simRingMs: 300 } });

/** The notes of the platform's hold music (and the overtones the analysis may report). */
const HOLD_NOTES = [349.23, 392, 523.25, 587.33];
const near = (hz: number, target: number) => Math.abs(hz - target) <= Math.max(3, target * 0.01);

test("a reload during a muted queue call: the customer hears music meanwhile, then nothing until the agent unmutes; the card goes on, says muted, and the records show one customer call", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await goReady(alice.page);
  const customer = await queueCaller(platform.url, { number: "5550181", name: "Rita Reload", toneHz: 660 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(660, "agent1 hears the customer");
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  const card = alice.card();
  // Some talk time, so that a timer started afresh would show.
  await expect(card.locator(".call-timer")).toHaveText(/^0:0[3-9]$/);
  // Notes while talking, kept with the call through the reload.
  await card.getByLabel("Call notes").fill("Asked for a callback");
  // The agent mutes on purpose: the reload must not put them live to the customer unawares.
  await card.getByRole("button", { name: "Mute" }).click();
  await expect(card.getByTestId("call-muted")).toBeVisible();
  await expect
    .poll(async () => (await s.channel(customer.uuid)).hearing.some((f) => Math.abs(f - 440) <= 15), {
      message: "muted: the customer no longer hears agent1",
    })
    .toBe(false);

  // The reloaded page asks for its call back within a second or two; its request waits here until
  // the customer was heard to get music meanwhile, so that the check does not race the take-back.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await alice.page.route("**/api/cc/ccc/ccIntercept", async (route) => {
    await released;
    await route.continue();
  });
  const leaving = Date.now();
  await alice.page.reload();
  await expect
    .poll(
      async () => {
        // A note of the hold melody: neither party's tone is near one.
        const heard = (await s.channel(customer.uuid)).heard;
        return heard.some((t) => Date.parse(t.to) >= leaving && HOLD_NOTES.some((n) => near(t.frequency, n)));
      },
      { message: "the customer hears music on hold while the page is away", intervals: [200] },
    )
    .toBe(true);
  release();

  // The reloaded page takes the call back by itself: a card as before, the timer going on.
  await expect(card).toHaveAttribute("data-state", "active");
  await expect(card).toContainText("Rita Reload");
  await expect(card).toContainText("5550181");
  await expect(card.getByTestId("call-queue")).toContainText("Queue support");
  await expect(card.locator(".call-timer")).toHaveText(/^0:(0[5-9]|[1-5]\d)$/);
  // Still muted, and said: on the card, in the tab's title, to a screen reader; answered by hand as before.
  await expect(card.getByTestId("call-muted")).toHaveText("Muted: the other side cannot hear you");
  await expect(alice.page).toHaveTitle(/^Muted · /);
  await expectAnnounced(alice.page, "Microphone muted.");
  await expect(card).not.toContainText("Answered automatically");
  await expect(card.getByLabel("Call notes")).toHaveValue("Asked for a callback");
  await alice.hears(660, "agent1 hears the customer again");
  // The customer hears nothing of agent1 (nor music: the call is back) for longer than an unmuted
  // take-back took to be heard (under 2 s).
  let silentReadings = 0;
  await expect
    .poll(
      async () => {
        const c = await s.channel(customer.uuid);
        if (c.hearing.some((f) => Math.abs(f - 440) <= 15)) return "hears agent1";
        silentReadings = c.hearingMusic ? 0 : silentReadings + 1;
        return silentReadings;
      },
      { message: "taken back muted: the customer hears nothing of agent1", intervals: [250] },
    )
    .toBe(12);
  await card.getByRole("button", { name: "Unmute" }).click();
  await expectSimHears(s, customer.uuid, 440, "unmuted: the customer hears agent1 again");
  await expect(alice.page.getByTestId("agent-error")).toHaveCount(0);
  expect((await admin(platform.url).then((a) => a.agentState("1001"))).call).toMatchObject({ kind: "queue" });

  // The call ends in after-call work for this customer, as it would have without the reload.
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(card).toHaveAttribute("data-state", "ended");
  const talked = seconds(await card.locator(".call-timer").textContent());
  await expect(alice.page.getByTestId("wrap-up")).toContainText("Rita Reload");
  await expect(alice.page.getByTestId("wrap-up").getByLabel("Notes", { exact: true })).toHaveValue(
    "Asked for a callback",
  );
  // One customer call: the customer's leg once, into the queue.
  const records = await cdrs(platform.url, { cidNumber: "5550181" });
  expect(records.filter((r) => r.destination_number === "support")).toHaveLength(1);
  // The history shows it as one conversation (its three legs folded), as long as the card said
  // (the records keep whole seconds: a second either way).
  const history = alice.page.getByRole("button", { name: "Refresh" });
  await history.click();
  const rows = alice.page.getByTestId("history-row").filter({ hasText: "5550181" });
  await expect(rows.getByTestId("history-duration")).toHaveText(/^\d+:\d\d$/);
  await expect(rows).toHaveCount(1);
  expect(Math.abs(seconds(await rows.getByTestId("history-duration").textContent()) - talked)).toBeLessThanOrEqual(1);
});

test("a held call reloaded twice, the second time while the first one's take-back rings, stays held: music and never the agent until Resume; still one customer call", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await goReady(alice.page);
  const customer = await queueCaller(platform.url, { number: "5550182", name: "Rita Twice", toneHz: 660 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  const card = alice.card();
  await card.getByRole("button", { name: "Hold" }).click();
  await expect(card.getByTestId("cc-held")).toBeVisible();
  await expectCustomerHeld(s, customer.uuid, 440, "held: the customer hears music and not agent1");

  // The first reloaded page's take-back leg is on its way (its INVITE has reached the page) when
  // the agent reloads again.
  const page = alice.page;
  const takeBackRings = new Promise<void>((resolve) =>
    page.on("websocket", (ws) =>
      ws.on("framereceived", (frame) => String(frame.payload).startsWith("INVITE ") && resolve()),
    ),
  );
  await page.reload();
  await takeBackRings;
  await page.reload();

  // The third page has the call back, still held, as the platform says too.
  await expect(card).toHaveAttribute("data-state", "remote-held");
  await expect(card).toContainText("Rita Twice");
  await expect(card.getByTestId("cc-held")).toBeVisible();
  const platformView = await admin(platform.url);
  await expect.poll(async () => (await platformView.agentState("1001")).callstate).toBe("HOLD");
  // Held for longer than the customer took to hear agent1 again after an unheld take-back (under 2 s).
  let heldReadings = 0;
  await expect
    .poll(
      async () => {
        const c = await s.channel(customer.uuid);
        if (c.hearing.some((f) => Math.abs(f - 440) <= 15)) return "hears agent1";
        heldReadings = c.hearingMusic ? heldReadings + 1 : 0;
        return heldReadings;
      },
      { message: "the customer hears music and never agent1 while the call is held", intervals: [250] },
    )
    .toBe(12);

  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card.getByTestId("cc-held")).toHaveCount(0);
  await expectSimHears(s, customer.uuid, 440, "resumed: the customer hears agent1 again");
  await alice.hears(660, "agent1 hears the customer again");
  await expect(page.getByTestId("agent-error")).toHaveCount(0);

  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(page.getByTestId("wrap-up")).toContainText("Rita Twice");
  const records = await cdrs(platform.url, { cidNumber: "5550182" });
  expect(records.filter((r) => r.destination_number === "support")).toHaveLength(1);
});
