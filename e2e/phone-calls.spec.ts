import { expect, expectAnnounced, test } from "./fixtures";
import { agent, cdrs, expectSimHears, sim, simChannelOf } from "./phone-support";

/**
 * Calls through the local platform, each party in its own Chromium with its own tone as its
 * microphone. Audio is proven by what is received: the pages analyse their remote audio (FFT),
 * simulated parties report what they heard.
 */
test.use({ platformOptions: { simRingMs: 300 } });

test("two agents call each other through the platform and each hears the other's tone", async ({ newParty }) => {
  const [alice, bob] = await Promise.all([
    agent(newParty, "agent1", "1001", 440),
    agent(newParty, "agent2", "1002", 1000),
  ]);

  await alice.dial("1002");
  const ringing = bob.card("ringing");
  await expect(ringing).toBeVisible();
  await expect(ringing).toHaveAccessibleName(/^Incoming call from /);
  await expect(ringing).toContainText("1001");
  // The caller sees the far end ringing.
  await expect(alice.card()).toHaveAttribute("data-state", "early");
  await ringing.getByRole("button", { name: "Answer" }).click();

  await expect(alice.card()).toHaveAttribute("data-state", "active");
  await expect(bob.card()).toHaveAttribute("data-state", "active");
  await alice.hears(1000, "alice hears bob");
  await bob.hears(440, "bob hears alice");

  await bob.card().getByRole("button", { name: "Hang up" }).click();
  await expect(alice.card()).toHaveAttribute("data-state", "ended");
  await expect(alice.card()).toContainText("Call ended");
  await expectAnnounced(alice.page, "Call ended");
});

test("an agent calls a simulated number that hears the agent's tone (not while muted) and keypad digits; hold gives it music instead, resume brings the agent back", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await alice.dial("55510700");
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  const far = await simChannelOf(s, "55510700");
  await alice.hears(700, "alice hears the simulated party");
  await expectSimHears(s, far.uuid, 440, "the simulated party hears alice");

  // Muted, the party stops hearing alice: in several analyses in a row, not one gap between two.
  await card.getByRole("button", { name: "Mute" }).click();
  let quiet = 0;
  await expect
    .poll(
      async () => {
        const hearsAlice = (await s.channel(far.uuid)).hearing.some((f) => Math.abs(f - 440) <= 15);
        quiet = hearsAlice ? 0 : quiet + 1;
        return quiet >= 5;
      },
      { message: "muted: the simulated party stops hearing alice", timeout: 15_000, intervals: [200] },
    )
    .toBe(true);
  await card.getByRole("button", { name: "Unmute" }).click();
  await expectSimHears(s, far.uuid, 440, "unmuted: the simulated party hears alice again");

  // Keypad tones go in the audio (RFC 4733 by default); the party's detector hears them.
  await card.getByRole("button", { name: "Keypad" }).click();
  for (const digit of ["1", "5", "9", "#"]) await card.getByRole("button", { name: digit, exact: true }).click();
  await expect
    .poll(async () => (await s.channel(far.uuid)).digits.inband, { message: "digits heard by the simulated party" })
    .toBe("159#");

  await card.getByRole("button", { name: "Hold" }).click();
  await expect(card).toHaveAttribute("data-state", "held");
  await expectAnnounced(alice.page, "on hold");
  await expect
    .poll(
      async () => {
        const r = await s.channel(far.uuid);
        return r.hearingMusic && !r.hearing.some((f) => Math.abs(f - 440) <= 15);
      },
      { message: "held: the far side hears music and not alice", timeout: 15_000 },
    )
    .toBe(true);

  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card).toHaveAttribute("data-state", "active");
  await expectSimHears(s, far.uuid, 440, "resumed: the simulated party hears alice again");
  await alice.hears(700, "resumed: alice hears the simulated party again");
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(card).toHaveAttribute("data-state", "ended");
});

test("while a dialled number rings, the agent hears the platform's ringback sent as early media", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  // 5553xxxx rings and never answers.
  await alice.dial("55530450");
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "early");
  await simChannelOf(s, "55530450");
  // What the page receives over the call's connection (not a tone it plays itself): the
  // platform's 450 Hz ringback.
  await alice.hears(450, "alice hears the platform's ringback");
  await expect(card).toHaveAttribute("data-state", "early");
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(card).toHaveAttribute("data-state", "ended");
  await expect
    .poll(async () => (await s.channels("55530450")).length, { message: "the ringing leg is cancelled" })
    .toBe(0);
});

test("a rejected call is CALL_REJECTED in its call record, a busy one USER_BUSY; the answer made while it rang leaves nothing open", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  type Probe = { __agentbarTest: { connections(): { open: number }; liveMicrophones(): number } };
  const media = () =>
    alice.page.evaluate(() => ({
      pcs: (window as unknown as Probe).__agentbarTest.connections().open,
      mics: (window as unknown as Probe).__agentbarTest.liveMicrophones(),
    }));

  // Callers' names arrive exactly as typed, whatever they hold (the platform escapes them in From).
  const declined = await s.call("1001", 700, "5550171", "张伟 😀");
  const ringing = alice.card("ringing");
  await expect(ringing.locator(".call-name")).toHaveText("张伟 😀");
  await expect(ringing).toContainText("5550171");
  // While it rings the phone makes its answer: a microphone and a peer connection, nothing sent.
  await expect.poll(media, { message: "the answer is made while the call rings" }).toEqual({ pcs: 1, mics: 1 });
  await ringing.getByRole("button", { name: "Reject" }).click();
  await expect
    .poll(() => alice.sip.flat().some((f) => f.sent && f.text.startsWith("SIP/2.0 603 ")), {
      message: "the phone answers 603",
    })
    .toBe(true);
  await expect.poll(media, { message: "no microphone live, no peer connection open" }).toEqual({ pcs: 0, mics: 0 });
  await expect.poll(async () => (await s.channel(declined.uuid)).hangupCause).toBe("CALL_REJECTED");
  await expect
    .poll(async () => (await cdrs(platform.url, { cidNumber: "5550171" })).map((r) => r.hangup_cause))
    .toContain("CALL_REJECTED");
  expect((await cdrs(platform.url, { cidNumber: "5550171" })).every((r) => r.hangup_cause === "CALL_REJECTED")).toBe(
    true,
  );

  const busy = await s.call("1001", 700, "5550172", "C:\\Temp <x>");
  await expect(alice.card("ringing").locator(".call-name")).toHaveText("C:\\Temp <x>");
  await alice.card("ringing").getByRole("button", { name: "Busy" }).click();
  await expect.poll(async () => (await s.channel(busy.uuid)).hangupCause).toBe("USER_BUSY");
  await expect
    .poll(async () => (await cdrs(platform.url, { cidNumber: "5550172" })).map((r) => r.hangup_cause))
    .toContain("USER_BUSY");
});

test("a call the platform marks answer-after=0 is answered without a click", async ({ newParty, platform }) => {
  const alice = await agent(newParty, "agent1", "1001", 440);
  const sw = platform.ctx.switch;
  const leg = sw.originate(
    { extension: "1001" },
    { callerIdName: "Intercom", callerIdNumber: "9000", autoAnswer: true },
  );
  leg.once("answer", () => sw.playTone(leg, { frequency: 900 }));
  // Nobody clicks: the call is answered and its audio plays.
  await expect(alice.card()).toHaveAttribute("data-state", "active");
  await alice.hears(900, "alice hears the intercom");
  await expectAnnounced(alice.page, "automatically");
  leg.hangup();
  await expect(alice.card()).toHaveAttribute("data-state", "ended");
});

test("call waiting: a second call rings during a call, answering it holds the first, swap goes back", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  const first = await s.call("1001", 700, "5550181", 'Anna "Annie" Smith');
  await expect(alice.card("ringing").locator(".call-name")).toHaveText('Anna "Annie" Smith');
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(700, "alice hears the first caller");

  const second = await s.call("1001", 1300, "5550182", "Second Caller");
  const waiting = alice.card("ringing");
  await expect(waiting).toContainText("Call waiting");
  await waiting.getByRole("button", { name: "Answer" }).click();
  const firstCard = alice.page.getByRole("article", { name: 'Anna "Annie" Smith' });
  await expect(firstCard).toHaveAttribute("data-state", "held");
  await alice.hears(1300, "alice hears the second caller");
  await expect.poll(async () => (await s.channel(first.uuid)).hearingMusic, { timeout: 15_000 }).toBe(true);

  await firstCard.getByRole("button", { name: "Swap" }).click();
  await expect(firstCard).toHaveAttribute("data-state", "active");
  await expect(alice.page.getByRole("article", { name: /Second Caller/ })).toHaveAttribute("data-state", "held");
  await alice.hears(700, "alice is back with the first caller");
  await expectSimHears(s, first.uuid, 440, "the first caller hears alice again");
  await s.hangup(first.uuid);
  await s.hangup(second.uuid);
});
