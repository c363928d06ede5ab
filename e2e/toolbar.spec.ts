import type { WebSocketRoute } from "@playwright/test";
import { expect, expectAnnounced, test, type Party, type PartyOptions } from "./fixtures";
import { agent, expectHearsAmong, expectSimHears, seconds, sim, simChannelOf } from "./phone-support";
import {
  admin,
  chooseStatus,
  expectCustomerHeld,
  goReady,
  hangUpCaller,
  menuItem,
  queueCaller,
  statusOf,
} from "./toolbar-support";

/**
 * The call-center toolbar against the local platform: agents in their own Chromium with their
 * own tone as microphone, simulated customers in the queues. Audio is proven by what is heard:
 * the pages analyse their remote audio, the customers report what they hear.
 */
test.use({ platformOptions: { simRingMs: 300 } });

/** `newParty` whose page's WebSockets to the platform pass through `route` from its first load on. */
function throughRoute(newParty: (options?: PartyOptions) => Promise<Party>, route: (ws: WebSocketRoute) => void) {
  return async (options?: PartyOptions) => {
    const party = await newParty(options);
    await party.page.routeWebSocket(/\/ws$/, route);
    return party;
  };
}

/** The customer's channel hears `hz` (or music) now. */
const hearing = async (s: ReturnType<typeof sim>, uuid: string) => (await s.channel(uuid)).hearing;

test("agent1 goes Ready, takes a queue call with the customer's number and queue on the card, both hear each other; hold gives the customer music", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const platformView = await admin(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");

  // The phone's registration is not the agent's status: it never says "Ready".
  await expect(alice.page.getByTestId("registration")).toHaveText("Phone connected");

  await goReady(alice.page);
  const label = alice.page.getByTestId("agent-status-label");
  await expect(label).toHaveText("Ready");
  // The status shown is the platform's.
  expect((await platformView.agentState("1001")).status).toBe("Available");
  await expectAnnounced(alice.page, "Status: Ready.");

  const customer = await queueCaller(platform.url, { number: "5550142", name: "Carla Customer", toneHz: 660 });
  const ringing = alice.card("ringing");
  await expect(ringing).toContainText("5550142");
  await expect(ringing).toContainText("Carla Customer");
  await expect(ringing.getByTestId("call-queue")).toContainText("Queue support");
  await expect(ringing.getByTestId("call-queue")).toContainText("waited");
  await expect(label).toHaveText("Call offered");

  // Safe hands: a double-click on Answer answers, and its second click does not mute the call
  // whose Mute has taken Answer's place under the pointer by then.
  const answer = (await ringing.getByRole("button", { name: "Answer" }).boundingBox())!;
  const [x, y] = [answer.x + answer.width / 2, answer.y + answer.height / 2];
  await alice.page.mouse.move(x, y);
  await alice.page.mouse.down();
  await alice.page.mouse.up();
  const card = alice.card();
  await expect(card.getByRole("button", { name: "Mute" })).toBeVisible();
  const underPointer = await alice.page.evaluate(
    ([x, y]) => document.elementFromPoint(x!, y!)?.closest("button")?.getAttribute("aria-label"),
    [x, y],
  );
  expect(underPointer, "Mute sits where Answer was").toBe("Mute");
  await alice.page.mouse.down({ clickCount: 2 });
  await alice.page.mouse.up({ clickCount: 2 });
  await expect(card).toHaveAttribute("data-state", "active");
  await alice.hears(660, "agent1 hears the customer");
  await expectSimHears(s, customer.uuid, 440, "double-clicked Answer: the customer hears agent1");
  await expect(card.getByRole("button", { name: "Mute" })).toBeVisible();
  await expect(card.getByTestId("call-muted")).toHaveCount(0);
  // The agent answered it: nothing says otherwise; the status says what the agent is doing.
  await expect(card).not.toContainText("Answered automatically");
  await expect(label).toHaveText("In a queue call");

  await card.getByRole("button", { name: "Hold" }).click();
  await expect(card.getByTestId("cc-held")).toBeVisible();
  await expect(card).toHaveAttribute("data-state", "remote-held");
  await expectCustomerHeld(s, customer.uuid, 440, "held: the customer hears music and not agent1");
  expect((await platformView.agentState("1001")).callstate).toBe("HOLD");

  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card.getByTestId("cc-held")).toHaveCount(0);
  await expectSimHears(s, customer.uuid, 440, "resumed: the customer hears agent1 again");
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(alice.page.getByTestId("wrap-up")).toBeVisible();
  await expect(label).toHaveText("After-call work");
  // Done within the platform's wrap_up_time (10 s): Ready, and the status says when a call can come.
  await alice.page.getByTestId("wrap-up").getByRole("button", { name: "Done" }).click();
  await expect(label).toHaveText("Ready");
  await expect(alice.page.locator(".status-detail")).toContainText(/Next call possible in 0:0\d/);
});

test("consult agent2 while the customer hears music, cancel, consult again and complete: the customer and agent2 talk, agent1's call ends", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const [alice, bob] = await Promise.all([
    agent(newParty, "agent1", "1001", 440),
    agent(newParty, "agent2", "1002", 1000),
  ]);
  await goReady(alice.page);
  const customer = await queueCaller(platform.url, { number: "5550143", name: "Casey Customer", toneHz: 660 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(660, "agent1 hears the customer");

  const consult = async () => {
    const card = alice.card();
    await card.getByRole("button", { name: "Transfer" }).click();
    await card.getByLabel("To", { exact: true }).selectOption("agent");
    await card.getByLabel("Agent", { exact: true }).selectOption("1002");
    await card.getByRole("button", { name: "Consult", exact: true }).click();
    const ringing = bob.card("ringing");
    await expect(ringing).toContainText("Alice Agent");
    await ringing.getByRole("button", { name: "Answer" }).click();
    await expect(alice.card().getByTestId("cc-consult")).toContainText("Consulting 1002");
    await alice.hears(1000, "consulting: agent1 hears agent2");
    await bob.hears(440, "consulting: agent2 hears agent1");
    await expect
      .poll(
        async () => {
          const c = await s.channel(customer.uuid);
          return c.hearingMusic && !c.hearing.some((f) => Math.abs(f - 440) <= 15 || Math.abs(f - 1000) <= 15);
        },
        { message: "consulting: the customer hears music, neither agent" },
      )
      .toBe(true);
  };

  await consult();
  await alice.card().getByRole("button", { name: "Cancel consultation" }).click();
  await expect(bob.card()).toHaveAttribute("data-state", "ended");
  await expect(alice.card().getByTestId("cc-consult")).toHaveCount(0);
  await alice.hears(660, "cancelled: agent1 hears the customer again");
  await expectSimHears(s, customer.uuid, 440, "cancelled: the customer hears agent1 again");

  await consult();
  await alice.card().getByRole("button", { name: "Complete transfer" }).click();
  await expect(alice.card()).toHaveAttribute("data-state", "ended");
  await expectSimHears(s, customer.uuid, 1000, "transferred: the customer hears agent2");
  await bob.hears(660, "transferred: agent2 hears the customer");
  // agent2's card names the customer, as the platform sees it, not agent1 who called it.
  await expect(bob.card()).toContainText("5550143");
  expect(await hearing(s, customer.uuid)).not.toContain(440);
  // The customer handed over is agent2's queue call: hanging up opens its after-call work for the customer.
  await bob.card().getByRole("button", { name: "Hang up" }).click();
  await expect(bob.page.getByTestId("wrap-up")).toContainText("Casey Customer");
});

test("three-way: the agent adds a number to the queue call, and all three hear each other", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await goReady(alice.page);
  const customer = await queueCaller(platform.url, { number: "5550144", name: "Tess Three", toneHz: 660 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(660, "agent1 hears the customer");

  const card = alice.card();
  await card.getByRole("button", { name: "Transfer" }).click();
  await card.getByLabel("To", { exact: true }).selectOption("number");
  await card.getByLabel("Number", { exact: true }).fill("5551 0900");
  await card.getByRole("button", { name: "Three-way" }).click();
  const third = await simChannelOf(s, "55510900");
  await expectSimHears(s, third.uuid, 440, "the third party hears agent1");
  await expectSimHears(s, third.uuid, 660, "the third party hears the customer");
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  await expectSimHears(s, customer.uuid, 900, "the customer hears the third party");
  // agent1 still talks with the customer, and hears the third party too.
  await expect(card).toHaveAttribute("data-state", "active");
  await expectHearsAmong(alice.page, 660, "agent1 hears the customer");
  await expectHearsAmong(alice.page, 900, "agent1 hears the third party");
});

test("three rejects with 480 put the agent On Break by max-no-answer; rejects with 603 do not", async ({
  newParty,
  platform,
}) => {
  const platformView = await admin(platform.url);
  const before = await platformView.setAgentInfo("agent1", {
    reject_delay_time: "1",
    no_answer_delay_time: "1",
    max_no_answer: "3",
  });
  // A phone that answers 480 (Temporarily Unavailable): the browser's Reject (603) rewritten on
  // its way to the platform, as a proxy or another phone of the extension would answer.
  let as480 = false;
  const alice = await agent(
    throughRoute(newParty, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) =>
        server.send(
          as480 && typeof m === "string"
            ? m.replace(/^SIP\/2\.0 603 Decline/, "SIP/2.0 480 Temporarily Unavailable")
            : m,
        ),
      );
      server.onMessage((m) => ws.send(m));
    }),
    "agent1",
    "1001",
    440,
  );
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await goReady(alice.page);

  const rejectThreeOffers = async (name: string) => {
    const customer = await queueCaller(platform.url, { number: "5550150", name, toneHz: 660 });
    for (let i = 0; i < 3; i++) {
      const ringing = alice.card("ringing");
      await expect(ringing).toContainText(name);
      await ringing.getByRole("button", { name: "Reject" }).click();
      await expect(alice.card("ringing")).toHaveCount(0);
    }
    return customer;
  };

  const declined = await rejectThreeOffers("Rita Rejected");
  // A fourth offer comes: the agent is still Ready, with no unanswered offer counted.
  await expect(alice.card("ringing")).toContainText("Rita Rejected");
  await hangUpCaller(platform.url, declined.id);
  expect(await platformView.agentState("1001")).toMatchObject({ status: "Available", no_answer_count: 0 });
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Available");

  as480 = true;
  const unanswered = await rejectThreeOffers("Una Unavailable");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  await expect(alice.page.getByTestId("agent-status-label")).toHaveText("On break · calls not answered");
  expect(await platformView.agentState("1001")).toMatchObject({ status: "On Break", reason: "max-no-answer" });
  await hangUpCaller(platform.url, unanswered.id);
  await platformView.setAgentInfo("agent1", before);
});

test("after-call work never loses work: notes typed during the call come along, typing slowly past wrap_up_time with a caller waiting brings no call, a reload keeps every character, Done brings the caller at once, the history shows it all, and the same number calling again has it on its ringing card; the agent's day counts the call", async ({
  newParty,
  platform,
}) => {
  const platformView = await admin(platform.url);
  const before = await platformView.setAgentInfo("agent1", { wrap_up_time: "6" });
  const alice = await agent(newParty, "agent1", "1001", 440);
  const page = alice.page;
  await goReady(page);
  await queueCaller(platform.url, { number: "5550160", name: "Wendy Wrapup", toneHz: 660 });
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(660, "agent1 hears the customer");
  // Notes while talking, on the card.
  const card = alice.card();
  await card.getByLabel("Call notes").fill("Refund promised");
  await card.getByRole("button", { name: "Hang up" }).click();

  const wrapUp = page.getByTestId("wrap-up");
  await expect(wrapUp).toContainText("Wendy Wrapup");
  // The notes came along, and the keyboard is in them.
  const notes = wrapUp.getByLabel("Notes", { exact: true });
  await expect(notes).toHaveValue("Refund promised");
  await expect(notes).toBeFocused();
  // The warning, counting down, before the platform's wrap-up would end.
  await expect(wrapUp.getByTestId("wrap-up-hold")).toContainText(/The platform holds calls for 0:0\d more/);
  await wrapUp.getByLabel("Outcome").selectOption("Resolved");
  // A caller waits in the queue while the agent writes, slowly, for longer than wrap_up_time.
  const waiting = await queueCaller(platform.url, { number: "5550161", name: "Walter Waiting", toneHz: 880 });
  const sentence = " for the March invoice; customer will call back on Friday.";
  const started = Date.now();
  await notes.press("End");
  await notes.pressSequentially(sentence, { delay: 150 });
  expect(Date.now() - started, "typed for longer than wrap_up_time").toBeGreaterThan(6_000);
  const typed = `Refund promised${sentence}`;
  await expect(notes).toHaveValue(typed);
  // Held back by the break the agent did not ask for, said as after-call work; no call offered.
  // (The settings' maximum, 5 minutes by default, is said too.)
  await expect(wrapUp.getByTestId("wrap-up-hold")).toHaveText(
    /^No calls come until you press Done\. Ends by itself in 4:\d\d\.$/,
  );
  await expect(page.getByTestId("agent-status-label")).toHaveText("After-call work");
  expect(await platformView.agentState("1001")).toMatchObject({ status: "On Break", reason: "After-call work" });
  await expect(alice.calls).toHaveCount(1);
  await expect(alice.card("ringing")).toHaveCount(0);

  await page.reload();
  await expect(wrapUp).toBeVisible();
  await expect(wrapUp.getByLabel("Notes", { exact: true })).toHaveValue(typed);
  await expect(wrapUp.getByLabel("Outcome")).toHaveValue("Resolved");
  await expect(alice.card("ringing")).toHaveCount(0);

  // Done: Ready again at once, and the waiting caller rings.
  await wrapUp.getByRole("button", { name: "Done" }).click();
  await expect(wrapUp).toHaveCount(0);
  await expect(alice.card("ringing")).toContainText("Walter Waiting");
  await hangUpCaller(platform.url, waiting.id);
  // The outcome and every character of the notes stay with the call in the history, after a reload too.
  await page.reload();
  const row = page.getByTestId("history-row").filter({ hasText: "5550160" });
  await expect(row.getByTestId("history-disposition")).toContainText("Resolved");
  await expect(row.getByTestId("history-disposition")).toContainText(typed);
  await expect(page.getByTestId("history-row").filter({ hasText: "5550161" })).toHaveCount(1);
  // The agent's own day, read again after the reload: one call handled (the waiting caller's rang
  // unanswered), its talk time, and the time in after-call work apart from breaks.
  const day = page.getByTestId("my-day");
  await expect(day.getByTestId("my-day-calls")).toHaveText("1");
  await expect(day.getByTestId("my-day-handle")).toHaveText(/^\d+:\d\d$/);
  await expect(day.getByTestId("my-day-break")).toHaveText("0:00");
  await day.getByText("Time in each status").click();
  await expect(day.getByRole("listitem").filter({ hasText: "After-call work" })).toContainText(/0:(0[6-9]|[1-5]\d)/);

  // The same number calls again: while it rings, its card tells the earlier call, its outcome and
  // notes; one click shows that number's calls in the history.
  const again = await queueCaller(platform.url, { number: "5550160", name: "Wendy Wrapup", toneHz: 660 });
  const story = alice.card("ringing").getByTestId("caller-story");
  await expect(story).toHaveAttribute("data-status", "ready");
  await expect(story).toContainText(/^Called once before · last .+, answered/);
  await expect(story).toContainText(`Outcome: Resolved · Notes: ${typed}`);
  await story.getByRole("button", { name: "Show earlier calls" }).click();
  await expect(page.getByLabel("Caller number")).toHaveValue("5550160");
  await expect(page.getByTestId("history-row").filter({ hasText: "5550161" })).toHaveCount(0);
  await expect(page.getByTestId("history-row")).toHaveCount(1);
  await hangUpCaller(platform.url, again.id);
  await platformView.setAgentInfo("agent1", before);
});

test("click-to-dial: progress shows until the agent's phone rings and answers by itself, then the number rings and hears the agent; a busy number says so", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const platformView = await admin(platform.url);
  // The platform's INVITEs to the phone wait on the wire until the test lets them through, so
  // that the progress before the phone rings can be seen.
  let holdInvites = true;
  const held: (() => void)[] = [];
  const alice = await agent(
    throughRoute(newParty, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => {
        if (holdInvites && typeof m === "string" && m.startsWith("INVITE ")) held.push(() => ws.send(m));
        else ws.send(m);
      });
    }),
    "agent1",
    "1001",
    440,
    { outboundCalls: "call-center" },
  );
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await expect(statusOf(alice.page)).toHaveAttribute("data-phase", "on");

  await alice.dial("55510700");
  const progress = alice.page.getByTestId("dialling");
  await expect(progress).toContainText("55510700");
  await expect(progress).toContainText("your phone will ring first");
  await expect(progress.getByRole("button", { name: "Cancel call" })).toBeVisible();
  await expectAnnounced(alice.page, "Calling 55510700: your phone will ring first");
  await expect.poll(() => held.length, { message: "the platform's INVITE to the phone" }).toBe(1);
  holdInvites = false;
  held.splice(0).forEach((send) => send());
  await expect(progress).toHaveCount(0);
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  await expect(card).toContainText("55510700");
  const far = await simChannelOf(s, "55510700");
  await alice.hears(700, "agent1 hears the dialled number");
  await expectSimHears(s, far.uuid, 440, "the dialled number hears agent1");
  // The agent's own call: its leg answered by itself, which is no news to the agent.
  await expect(alice.page.getByTestId("agent-status-label")).toHaveText("In an outbound call");
  await expect(card).not.toContainText("Answered automatically");
  // The call is the call center's: the platform knows it as the agent's outbound call.
  expect((await platformView.agentState("1001")).call).toMatchObject({ kind: "dial", cid_number: "55510700" });
  await card.getByRole("button", { name: "Hang up" }).click();
  await expect(card).toHaveAttribute("data-state", "ended");
  const talked = seconds(await card.locator(".call-timer").textContent());
  await card.getByRole("button", { name: "Dismiss" }).click();
  // One outgoing row in the history, the agent's own phone leg folded in, as long as the card said
  // (the records keep whole seconds: a second either way).
  await alice.page.getByRole("button", { name: "Refresh" }).click();
  const rows = alice.page.getByTestId("history-row").filter({ hasText: "55510700" });
  await expect(rows.getByTestId("history-duration")).toHaveText(/^\d+:\d\d$/);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText("Outgoing");
  expect(Math.abs(seconds(await rows.getByTestId("history-duration").textContent()) - talked)).toBeLessThanOrEqual(1);

  await alice.dial("55520100");
  await expect(alice.card()).toHaveAttribute("data-state", "ended");
  await expect(alice.card().getByTestId("call-state")).toHaveText("Busy");
});

test("keyboard only: shortcuts go ready, answer, hold and hang up, shown on the controls; the focus follows the call into after-call work; the break shortcut opens the reasons", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440, { layout: "side" });
  await expect(statusOf(alice.page)).toHaveAttribute("data-phase", "on");
  await alice.page.keyboard.press("Alt+R");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Available");

  const longName = "Kimberly Alexandra Keys-Montgomery of the Northern Accounts Department";
  const customer = await queueCaller(platform.url, { number: "5550170", name: longName, toneHz: 660 });
  await expect(alice.card("ringing")).toBeVisible();
  // Shortcuts are said where the controls are; a long name is readable whole in its tooltip.
  const answer = alice.card("ringing").getByRole("button", { name: "Answer" });
  await expect(answer).toHaveAttribute("aria-keyshortcuts", "Alt+A");
  await expect(answer).toHaveAttribute("title", "Answer (Alt+A)");
  await expect(alice.card("ringing").locator(".call-name")).toHaveAttribute("title", longName);
  await alice.page.keyboard.press("Alt+A");
  await expect(alice.card()).toHaveAttribute("data-state", "active");
  // The keyboard is on the call, not the page: the next Tab reaches its first control.
  await expect(alice.card()).toBeFocused();
  await alice.page.keyboard.press("Tab");
  await expect(alice.card().locator("button:focus")).toHaveCount(1);
  await expect(alice.card().getByRole("button", { name: "Hang up" })).toHaveAttribute("aria-keyshortcuts", "Alt+H");
  await expectSimHears(s, customer.uuid, 440, "answered by keyboard: the customer hears agent1");
  await alice.page.keyboard.press("Alt+O");
  await expect(alice.card().getByTestId("cc-held")).toBeVisible();
  await alice.page.keyboard.press("Alt+O");
  await expect(alice.card().getByTestId("cc-held")).toHaveCount(0);
  await alice.page.keyboard.press("Alt+H");
  await expect(alice.card()).toHaveAttribute("data-state", "ended");
  // After hang-up the keyboard is in after-call work's notes.
  await expect(alice.page.getByTestId("wrap-up").getByLabel("Notes", { exact: true })).toBeFocused();

  await alice.page.getByRole("button", { name: "Done" }).click();
  await alice.page.keyboard.press("Alt+B");
  await expect(menuItem(alice.page, "Ready")).toBeFocused();
  for (let i = 0; i < 3; i++) await alice.page.keyboard.press("ArrowDown");
  await expect(menuItem(alice.page, "Break: Meeting")).toBeFocused();
  await alice.page.keyboard.press("Enter");
  await expect(alice.page.getByTestId("agent-status-label")).toHaveText("On break · Meeting");
});

test("a sign-out made elsewhere shows at once; the menu then offers to sign in to the queues again", async ({
  newParty,
  platform,
}) => {
  const platformView = await admin(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  // A supervisor (or the agent's other device) signs the agent out of the queues.
  await platformView.cc("ccLogout", { agent: "1001" });
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "Logged Out");
  await expect(alice.page.getByTestId("agent-status-label")).toHaveText("Signed out of queues");
  await chooseStatus(alice.page, "Sign in to queues");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  expect((await platformView.agentState("1001")).status).toBe("On Break");
});
