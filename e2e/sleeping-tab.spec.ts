import { PASSWORD, expect, expectAnnounced, signIn, test } from "./fixtures";
import { addAudioProbe, agent, expectHears, expectSimHears, sim } from "./phone-support";
import { admin, goReady, queueCaller, statusOf } from "./toolbar-support";

/**
 * A sleeping tab never rings unheard: a Ready agent's tab that Chromium freezes sets the agent On
 * Break ("Phone unreachable") on its way to sleep, so the platform offers it no call; woken, the tab
 * says so and the agent goes Ready when it chooses, and takes the customer who waited.
 */
test.use({ platformOptions: { simRingMs: 300 } });

test("a Ready agent's frozen tab: On Break with the reason before it stops, no queue call rings into it; woken, it says so and the agent takes the next call", async ({
  newFreezableParty,
  platform,
}) => {
  let party!: Awaited<ReturnType<typeof newFreezableParty>>;
  const alice = await agent(async (options) => (party = await newFreezableParty(options)), "agent1", "1001", 440);
  await goReady(alice.page);
  const platformAdmin = await admin(platform.url);

  await party.freeze();
  // The break left the page with its `freeze` event: the platform has it, with its reason.
  await expect
    .poll(async () => (({ status, reason }) => `${status} · ${reason}`)(await platformAdmin.agentState("1001")))
    .toBe("On Break · Phone unreachable");
  // The browser's tab says it too, while the page sleeps.
  expect(await party.tabTitle()).toMatch(/^Phone unreachable · /);
  // Its phone unregistered on the way too: a direct call to the agent's extension fails at once
  // instead of ringing into the sleeping page.
  const contacts = () => platform.ctx.sip.registrar.contactsOf("1001", "agentbar.local").length;
  await expect.poll(contacts).toBe(0);
  const s = sim(platform.url);
  const direct = await s.call("1001", 550, "5550191", "Dee Direct");
  await expect.poll(async () => (await s.channel(direct.uuid)).hangupCause).toBe("USER_NOT_REGISTERED");

  // A customer calls meanwhile. The platform offers a caller to a Ready agent as the caller joins
  // the queue: the customer waits in the queue, and no offer went to the sleeping tab.
  const customer = await queueCaller(platform.url, { number: "5550190", name: "Sam Sleeper", toneHz: 660 });
  const members = () => platform.callCenter.engine.waiting("support").filter((m) => m.cidNumber === "5550190");
  await expect
    .poll(() => members().map((m) => `${m.state}, offered to ${m.offers.size}`))
    .toEqual(["Waiting, offered to 0"]);
  expect(await platformAdmin.agentState("1001")).toMatchObject({
    status: "On Break",
    callstate: "IDLE",
    no_answer_count: 0,
  });

  await party.wake();
  const line = alice.page.getByTestId("phone-watch");
  await expect(line).toContainText("This tab was asleep; you were set On break · Phone unreachable.");
  await expectAnnounced(alice.page, "This tab was asleep");
  await expect(statusOf(alice.page)).toHaveAttribute("data-status", "On Break");
  expect(await alice.page.title()).not.toMatch(/Phone unreachable/);
  // Woken, the phone registered again by itself.
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  expect(contacts()).toBe(1);

  // The agent chooses when to go Ready: the customer who waited rings here, and they hear each other.
  await line.getByRole("button", { name: "Go Ready" }).click();
  await expect(line).toHaveCount(0);
  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await alice.hears(660, "agent1 hears the customer who waited");
  await expectSimHears(s, customer.uuid, 440, "the customer hears agent1");
  // Nothing rang unanswered: the platform counted no missed offer.
  expect(await platformAdmin.agentState("1001")).toMatchObject({ no_answer_count: 0 });
});

test("the frozen tab had the phone and the agent has another tab: that tab takes the phone at once, shows the break, and the next queue call rings there", async ({
  newFreezableParty,
  platform,
}) => {
  let party!: Awaited<ReturnType<typeof newFreezableParty>>;
  const phoneTab = await agent(async (options) => (party = await newFreezableParty(options)), "agent1", "1001", 440);
  const contacts = () => platform.ctx.sip.registrar.contactsOf("1001", "agentbar.local").map((c) => c.contactUri);
  const second = await party.context.newPage();
  // The agent looks at the second tab (it is drawn).
  await (await party.context.newCDPSession(second)).send("Emulation.setFocusEmulationEnabled", { enabled: true });
  await addAudioProbe(second);
  await second.goto(platform.url + "/");
  await signIn(second, "agent1", PASSWORD);
  const chip = second.getByTestId("registration");
  await expect(chip).toHaveAttribute("data-status", "elsewhere");
  await goReady(second);
  const before = contacts();
  expect(before).toHaveLength(1);
  // The tab with the phone made the change: it is done with it (a status command still under way
  // there when the page freezes turns the break away as "busy"), as it is long before a browser
  // freezes a tab.
  const phoneStatus = statusOf(phoneTab.page);
  await expect(phoneStatus).toHaveAttribute("data-status", "Available");
  await expect(phoneStatus.locator(".status-button:not([aria-busy=true])")).toHaveCount(1);

  await party.freeze();
  // The frozen tab said so on its way: the second has the phone now, registered with its own contact.
  await expect(chip).toHaveAttribute("data-status", "registered");
  await expect.poll(() => contacts().filter((c) => c !== before[0])).toHaveLength(1);
  expect(contacts()).toHaveLength(1);
  const platformAdmin = await admin(platform.url);
  // The break left the frozen tab in a keep-alive request, which may reach the platform after the
  // second tab's registration did.
  await expect
    .poll(() => platformAdmin.agentState("1001"))
    .toMatchObject({ status: "On Break", reason: "Phone unreachable" });
  const line = second.getByTestId("phone-watch");
  await expect(line).toContainText("while calls could not reach your phone; now they can.");
  await line.getByRole("button", { name: "Go Ready" }).click();
  await expect(statusOf(second)).toHaveAttribute("data-status", "Available");

  const customer = await queueCaller(platform.url, { number: "5550192", name: "Tom Twotabs", toneHz: 660 });
  const ringing = second.locator("[data-testid=call][data-state=ringing]");
  await expect(ringing).toContainText("Tom Twotabs");
  await ringing.getByRole("button", { name: "Answer" }).click();
  await expectHears(second, 660, "the second tab hears the customer");
  await expectSimHears(sim(platform.url), customer.uuid, 440, "the customer hears agent1");
});
