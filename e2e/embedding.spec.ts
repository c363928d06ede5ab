import type { BrowserContext, FrameLocator, Page } from "@playwright/test";
import { startCrmDemo, type CrmDemo } from "../platform/crm-demo/crm-demo";
import type { Agentbar } from "../src/embed/host/embed";
import type { Scope, Snapshot } from "../src/embed/host/protocol";
import { examplePath, htmlExamplesOf, serveDocExamples, type DocExamples } from "./doc-examples";
import { PASSWORD, expect, test as base, type Party, type PartyOptions } from "./fixtures";
import { expectSimHears, sim, simChannelOf } from "./phone-support";
import { toneWav } from "./tone-wav";
import { admin, expectCustomerHeld, hangUpCaller, queueCaller } from "./toolbar-support";

/**
 * The app embedded in a CRM on another origin, driven through the host SDK: the demo CRM page
 * (platform/crm-demo) served on its own port (http://localhost:<port>) frames the app of the
 * test's platform (http://127.0.0.1:<port>). Three such pages run: one whose origin the app allows
 * with every scope but diagnostics, one allowed only to follow the agent (status, caller data),
 * and one the app does not know. Calls are proven by tones the simulated parties hear. Two
 * stories, the trusted page's and the untrusted ones'; the details of the protocol are proven in
 * src/embed/protocol.test.ts and src/embed/bridge.test.ts.
 */

const FULL: Scope[] = ["dial", "call-control", "status", "caller-data", "diagnostics"];
const LIMITED: Scope[] = ["status"];
/** What a caller keyed in at the IVR before the queue: the call's data (docs/embedding.md, "A call's data"). */
const IVR = { "X-IVR-Account": "100770", "X-IVR-Choice": "billing" };

interface Crms {
  full: CrmDemo;
  limited: CrmDemo;
  stranger: CrmDemo;
  /** The app's address, known once the platform runs (the pages start first, so that it can allow them). */
  app: { url: string };
}

const test = base.extend<{ crms: Crms; docs: DocExamples; appLinked: void }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern: none.
  crms: async ({}, use) => {
    const app = { url: "" };
    const start = () =>
      startCrmDemo({
        port: 0,
        host: "127.0.0.1",
        publicHost: "localhost",
        appUrl: () => app.url,
        platformUrl: () => app.url,
      });
    const [full, limited, stranger] = await Promise.all([start(), start(), start()]);
    await use({ full, limited, stranger, app });
    await Promise.all([full.close(), limited.close(), stranger.close()]);
  },
  docs: async ({ crms }, use) => {
    const docs = await serveDocExamples(() => crms.app.url);
    await use(docs);
    await docs.close();
  },
  platformOptions: async ({ crms, docs }, use) => {
    await use({
      embedHosts: [
        { origin: crms.full.url, scopes: FULL },
        { origin: crms.limited.url, scopes: LIMITED },
        { origin: docs.url, scopes: ["dial", "call-control", "status", "caller-data"] },
      ],
    });
  },
  // The CRM pages frame the app of this test's platform.
  appLinked: [
    async ({ crms, platform }, use) => {
      crms.app.url = platform.url;
      await use();
    },
    { auto: true },
  ],
});

/** The app inside a CRM page. */
function appIn(page: Page): FrameLocator {
  return page.frameLocator("#agentbar iframe");
}

interface CrmAgent {
  page: Page;
  context: BrowserContext;
  app: FrameLocator;
  /** The tokens the platform gave the app (the user's, the extension's), as seen on the wire. */
  secrets: string[];
}

/**
 * A demo agent at a CRM page (in its own browser whose microphone says `tone`, when given): it
 * signs in inside the frame, and the CRM hears that the agent's phone is registered.
 */
async function crmAgent(
  newParty: (o?: PartyOptions) => Promise<Party>,
  crm: CrmDemo,
  login: string,
  tone?: number,
): Promise<CrmAgent> {
  const { page, context } = await newParty(tone ? { fakeAudioWav: toneWav(tone) } : {});
  const secrets: string[] = [];
  page.on("response", async (r) => {
    if (!/\/api\/(sessions|users\/extn_token)$/.test(new URL(r.url()).pathname) || r.status() !== 200) return;
    const body = (await r.json().catch(() => ({}))) as {
      token?: string;
      refresh_token?: string;
      data?: { token?: string };
    };
    secrets.push(...[body.token, body.refresh_token, body.data?.token].filter((t): t is string => !!t));
  });
  await page.goto(crm.url);
  const app = appIn(page);
  await app.getByLabel("Login name").fill(login);
  await app.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await app.getByRole("button", { name: "Sign in" }).click();
  await expect(app.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  await expect.poll(() => hostState(page, (s) => s.registration.state)).toBe("registered");
  return { page, context, app, secrets };
}

type HostEvent = { name: string; data: Record<string, unknown>; at: number };

/** Reads the host SDK's state in the CRM page. */
function hostState<T>(page: Page, read: (s: Snapshot) => T): Promise<T> {
  return page.evaluate(`(${read.toString()})(window.crm.bar.state)`) as Promise<T>;
}

/** The events the CRM page received so far. */
function hostEvents(page: Page): Promise<HostEvent[]> {
  return page.evaluate(() => (window as unknown as { crm: { events: HostEvent[] } }).crm.events);
}

async function eventNamed(page: Page, name: string, match: (e: HostEvent) => boolean = () => true): Promise<HostEvent> {
  let found: HostEvent | undefined;
  await expect
    .poll(async () => !!(found = (await hostEvents(page)).find((e) => e.name === name && match(e))), {
      message: `the CRM page receives ${name}`,
    })
    .toBe(true);
  return found!;
}

/** Runs an SDK command in the CRM page: its result, or its typed error. */
function command(
  page: Page,
  script: string,
): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; name: string; code: string; message: string }> {
  return page.evaluate(
    `(async () => { const bar = window.crm.bar; try { return { ok: true, result: await (${script}) }; } catch (e) { return { ok: false, name: e.name, code: e.code, message: e.message }; } })()`,
  ) as never;
}

type CallOf = { call: { callId: string } };
const callIdOf = (e: HostEvent) => (e.data as CallOf).call.callId;

test("a CRM on another origin: the agent's status confirmed by the platform, a queue call that pops the customer's card before it is answered, its end with the cause and who hung up, after-call work, click-to-dial from a tel: link heard by the party; consult, cancel, three-way and a completed transfer from the CRM heard by tones; a forged message changes nothing; no secret reaches the page; a hung frame is reported and its return brings a fresh state", async ({
  newParty,
  crms,
  platform,
}) => {
  const agent = await crmAgent(newParty, crms.full, "agent1", 1300);
  const boss = await admin(platform.url);
  const world = sim(platform.url);

  // setStatus resolves once the platform shows the agent Available (an answer without the change
  // times out: src/embed/bridge.test.ts).
  expect((await boss.agentState("1001")).status).toBe("On Break");
  const ready = await command(agent.page, 'bar.setStatus("ready")');
  expect((await boss.agentState("1001")).status).toBe("Available");
  expect(ready).toMatchObject({
    ok: true,
    result: { applied: "now", agent: { status: "ready", platformStatus: "Available", pending: null } },
  });

  // The screen-pop: the ringing event with who calls and what the caller keyed in at the IVR, the
  // customer's card, while the app still rings.
  const queuedAt = Date.now();
  const caller = await queueCaller(platform.url, { number: "55510770", name: "Deng Wei", toneHz: 770, data: IVR });
  const ringing = await eventNamed(agent.page, "call.ringing");
  console.log(`embedding: the screen-pop with the call's data ${ringing.at - queuedAt} ms after the caller was sent`);
  expect(ringing.data.call).toMatchObject({
    direction: "inbound",
    state: "ringing",
    queue: "support",
    party: { number: "55510770", name: "Deng Wei" },
    data: IVR,
    answeredAt: null,
  });
  await expect(agent.page.getByTestId("crm-card")).toContainText("Deng Wei, Lotus Tea House");
  await expect(agent.page.getByTestId("crm-card")).toContainText("IVR Account100770");
  await expect(agent.page.getByTestId("crm-card-call")).toHaveText("Ringing: Deng Wei (queue support)");
  await expect(agent.app.getByTestId("call")).toHaveAttribute("data-state", "ringing");
  expect((await hostEvents(agent.page)).some((e) => e.name === "call.answered")).toBe(false);

  // Answered from the CRM: the reply comes once the call is connected, and the customer hears the agent.
  const queueCallId = callIdOf(ringing);
  expect(await command(agent.page, "bar.answer()")).toMatchObject({
    ok: true,
    result: { call: { callId: queueCallId, state: "connected" } },
  });
  expect((await eventNamed(agent.page, "call.answered")).at).toBeGreaterThan(ringing.at);
  await expect
    .poll(
      async () =>
        (await (await fetch(`${platform.url}/sim/queue-callers/${caller.id}`)).json()).heard.tones.some(
          (t: { frequency: number }) => Math.abs(t.frequency - 1300) < 15,
        ),
      { message: "the customer hears the agent" },
    )
    .toBe(true);

  // The customer hangs up: the ended event says why and who; after-call work follows, ended from the CRM with its outcome and notes.
  await hangUpCaller(platform.url, caller.id);
  const queueEnd = await eventNamed(agent.page, "call.ended", (e) => callIdOf(e) === queueCallId);
  expect(queueEnd.data).toMatchObject({ call: { queue: "support" }, cause: "NORMAL_CLEARING", hungUpBy: "remote" });
  expect((await eventNamed(agent.page, "wrapup.started")).data.wrapUp).toMatchObject({
    callId: queueCallId,
    queue: "support",
  });
  const done = await command(
    agent.page,
    `bar.setDisposition(${JSON.stringify(queueCallId)}, "Sold", "Two boxes of oolong", { done: true })`,
  );
  expect(done).toMatchObject({ ok: true, result: { callId: queueCallId } });
  expect((await eventNamed(agent.page, "wrapup.ended")).data.wrapUp).toMatchObject({
    callId: queueCallId,
    outcome: "Sold",
    notes: "Two boxes of oolong",
  });
  await expect(agent.page.getByTestId("crm-card")).toContainText("Sold, Two boxes of oolong");

  // Click-to-dial from a tel: link (the SDK's opt-in link helper): through the call center, and
  // the simulated party hears the agent's microphone.
  await agent.page.getByRole("link", { name: "5551 0660" }).click();
  const dialling = await eventNamed(agent.page, "call.dialling");
  expect(dialling.data.call).toMatchObject({ direction: "outbound", state: "dialling", party: { number: "55510660" } });
  const party = await simChannelOf(world, "55510660");
  await expectSimHears(world, party.uuid, 1300, "the party dialled from the CRM");
  const answered = await eventNamed(agent.page, "call.answered", (e) => callIdOf(e) !== queueCallId);
  const callId = callIdOf(answered);
  expect(answered.data.call).toMatchObject({
    state: "connected",
    direction: "outbound",
    platformCallId: expect.any(String),
  });

  // Hung up from the CRM: the reply comes once the call is over; the ended event says the agent did.
  expect(await command(agent.page, "bar.hangUp()")).toMatchObject({
    ok: true,
    result: { call: { callId, state: "ended" } },
  });
  expect((await eventNamed(agent.page, "call.ended", (e) => callIdOf(e) === callId)).data).toMatchObject({
    cause: "NORMAL_CLEARING",
    hungUpBy: "agent",
  });
  await expect.poll(async () => (await world.channel(party.uuid)).hangupCause).toBe("NORMAL_CLEARING");

  // A second customer, answered from the CRM, and the transfer steps from the CRM, each heard:
  // a consultation (the customer hears music, the consulted party the agent) taken back; a
  // three-way (everyone hears everyone); an attended transfer completed (the customer and the
  // consulted party talk, the agent's call ends).
  const second = await queueCaller(platform.url, { number: "55510550", name: "Ana Silva", toneHz: 550 });
  const secondId = callIdOf(await eventNamed(agent.page, "call.ringing", (e) => callIdOf(e) !== queueCallId));
  expect(await command(agent.page, "bar.answer()")).toMatchObject({ ok: true, result: { call: { callId: secondId } } });
  await expectSimHears(world, second.uuid, 1300, "the second customer hears the agent");
  expect(await command(agent.page, 'bar.consult("5551 0660")')).toMatchObject({
    ok: true,
    result: { call: { callId: secondId } },
  });
  const consulted = await simChannelOf(world, "55510660");
  await expectSimHears(world, consulted.uuid, 1300, "the consulted party hears the agent");
  await expectCustomerHeld(world, second.uuid, 1300, "the customer hears music while the agent consults");
  expect(await command(agent.page, "bar.cancelConsultation()")).toMatchObject({ ok: true });
  await expect.poll(async () => (await world.channel(consulted.uuid)).hangupCause).not.toBeNull();
  await expectSimHears(world, second.uuid, 1300, "the customer hears the agent again");

  expect(await command(agent.page, 'bar.threeWay("55510990")')).toMatchObject({ ok: true });
  const third = await simChannelOf(world, "55510990");
  await expectSimHears(world, third.uuid, 1300, "the third party hears the agent");
  await expectSimHears(world, third.uuid, 550, "the third party hears the customer");
  await expectSimHears(world, second.uuid, 990, "the customer hears the third party");
  await world.hangup(third.uuid);

  expect(await command(agent.page, 'bar.consult("55510330")')).toMatchObject({ ok: true });
  const takes = await simChannelOf(world, "55510330");
  await expectSimHears(world, takes.uuid, 1300, "the party consulted hears the agent");
  expect(await command(agent.page, "bar.completeTransfer()")).toMatchObject({
    ok: true,
    result: { call: { callId: secondId, state: "ended" } },
  });
  await expectSimHears(world, takes.uuid, 550, "the party the customer was handed to hears the customer");
  await expectSimHears(world, second.uuid, 330, "the customer hears the party they were handed to");
  expect((await eventNamed(agent.page, "call.ended", (e) => callIdOf(e) === secondId)).data).toMatchObject({
    hungUpBy: "agent",
  });
  await hangUpCaller(platform.url, second.id);
  await eventNamed(
    agent.page,
    "wrapup.started",
    (e) => (e.data as { wrapUp: { callId: string } }).wrapUp.callId === secondId,
  );
  expect(
    await command(agent.page, `bar.setDisposition(${JSON.stringify(secondId)}, "Transferred", "", { done: true })`),
  ).toMatchObject({ ok: true });

  // Nothing secret ever reached the host page: no token, key or recording address.
  const everything =
    JSON.stringify(await hostEvents(agent.page)) + JSON.stringify(await hostState(agent.page, (s) => s));
  expect(agent.secrets.length).toBeGreaterThanOrEqual(2);
  for (const secret of agent.secrets) expect(everything).not.toContain(secret);
  expect(everything).not.toMatch(/token|recording|media_files|dev_key/i);

  // The diagnostics file support asks the CRM for: the SIP of the call just made, no secret.
  const file = await command(agent.page, "bar.getDiagnosticsFile()");
  expect(file).toMatchObject({
    ok: true,
    result: { name: expect.stringMatching(/^agentbar-diagnostics-1001-\d{8}-\d{6}Z\.json$/), type: "application/json" },
  });
  const text = file.ok ? String(file.result.text) : "";
  const trace = (JSON.parse(text) as { phone: { sipTrace: { summary: string }[] } }).phone.sipTrace.map(
    (m) => m.summary,
  );
  expect(trace).toEqual(expect.arrayContaining([expect.stringMatching(/^REGISTER /), expect.stringMatching(/^BYE /)]));
  for (const secret of agent.secrets) expect(text).not.toContain(secret);

  // A script of the page talking to the app by hand, past the SDK, with forged shapes: each is
  // refused as invalid, and none dials or changes the status.
  type Received = { type: string; re?: number; ok?: boolean; event?: string; error?: { code: string } };
  const got = (await agent.page.evaluate(async (appOrigin) => {
    const frame = document.querySelector<HTMLIFrameElement>("#agentbar iframe")!;
    const channel = new MessageChannel();
    const received: Received[] = [];
    const arrived = (test: (m: Received) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (received.some(test) ? resolve() : setTimeout(check, 20));
        check();
      });
    channel.port1.onmessage = (e) => received.push(e.data);
    frame.contentWindow!.postMessage({ type: "agentbar:connect", versions: [1], instance: "by-hand" }, appOrigin, [
      channel.port2,
    ]);
    await arrived((m) => m.type === "hello");
    const port = channel.port1;
    port.postMessage({
      type: "command",
      id: 1,
      command: "dial",
      args: { number: "55510880", sipUrl: "wss://evil.example/sip" },
    });
    port.postMessage({ type: "command", id: 2, command: "setStatus", args: { status: "break", reason: 7 } });
    port.postMessage({ type: "command", id: 3, command: "setSettings", args: { autoAnswer: "always" } });
    port.postMessage({ type: "command", id: 4, command: "dial", args: [] });
    port.postMessage("dial 55510880");
    // A good command after them: once it is answered, the forged ones have been dealt with.
    port.postMessage({ type: "command", id: 5, command: "getState", args: {} });
    await arrived((m) => m.type === "reply" && m.re === 5);
    return received;
  }, new URL(platform.url).origin)) as Received[];
  const replies = got.filter((m) => m.type === "reply");
  expect(replies.filter((m) => m.re !== 5)).toEqual(
    [1, 2, 3, 4].map((re) =>
      expect.objectContaining({ re, ok: false, error: expect.objectContaining({ code: "invalid-message" }) }),
    ),
  );
  expect(got.filter((m) => m.type === "event" && m.event === "error")).toHaveLength(5);
  expect(replies.find((m) => m.re === 5)).toMatchObject({ ok: true });
  expect(await world.channels("55510880")).toEqual([]);
  expect((await boss.agentState("1001")).status).toBe("Available");
  await expect(agent.app.locator('[data-testid="call"]:not([data-state="ended"])')).toHaveCount(0);

  // The app in the frame hangs for six seconds (as a crashed one, it answers nothing): the CRM is
  // told by the heartbeat (within 3.5 s of its last answer: src/embed/protocol.test.ts), a command
  // then rejects at once; when the app answers again, the CRM hears it is back, with a fresh state.
  const frame = agent.page.frames().find((f) => f.url().startsWith(platform.url))!;
  // What a command gets when sent at the moment the CRM hears of it.
  const whenLost = agent.page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const bar = (window as unknown as { crm: { bar: Agentbar } }).crm.bar;
        const stop = bar.on("disconnected", () => {
          stop();
          bar.getState().then(
            () => resolve("answered"),
            (e: { code: string }) => resolve(e.code),
          );
        });
      }),
  );
  const hungAt = await agent.page.evaluate(() => Date.now());
  void frame.evaluate(() => {
    const until = Date.now() + 6000;
    while (Date.now() < until);
  });
  const lost = await eventNamed(agent.page, "disconnected");
  console.log(`embedding: a hung frame reported ${lost.at - hungAt} ms after it stopped answering`);
  expect(await whenLost).toBe("disconnected");
  const back = await eventNamed(agent.page, "reconnected");
  expect(back.at).toBeGreaterThan(lost.at);
  expect((back.data as { state: Snapshot }).state).toMatchObject({ user: { login: "agent1" }, calls: [] });
  await expect(agent.page.getByTestId("crm-message")).toHaveText("Agentbar is back.");
});

test("pages the app does not trust: a foreign origin cannot frame it (CSP), and framed anyway its handshake and commands get no answer and dial nothing; an allowed origin without the dial scope is refused with a typed error", async ({
  newParty,
  crms,
  platform,
}) => {
  // The browser refuses the frame: the platform sends frame-ancestors with the allowed origins only.
  const stranger = await newParty();
  const console: string[] = [];
  stranger.page.on("console", (m) => void console.push(m.text()));
  stranger.page.on("pageerror", (e) => void console.push(`uncaught: ${e.message}`));
  const refused = stranger.page.waitForEvent("console", (m) => /frame-ancestors/.test(m.text()));
  await stranger.page.goto(crms.stranger.url);
  expect((await refused).text()).toContain(`frame-ancestors 'self' ${crms.full.url} ${crms.limited.url}`);
  await expect(appIn(stranger.page).getByLabel("Login name")).toHaveCount(0);

  // Served without frame-ancestors (a web server left unconfigured, say), the app itself still
  // ignores the stranger: the agent signs in inside the frame, and the page's handshake, repeated
  // for five seconds (an allowed page is answered within the first), gets nothing back. (The test
  // serves that frame itself; Chromium then no longer sees it come from this machine and would
  // refuse it the platform's WebSocket on 127.0.0.1, hence the switch.)
  const { page, context } = await newParty({ browserArgs: ["--disable-features=LocalNetworkAccessChecks"] });
  await context.route(
    (url) => url.origin === new URL(platform.url).origin && url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-security-policy"];
      await route.fulfill({ response, headers });
    },
  );
  // The page's own frame of the app (the demo's SDK gives up on it after its connect timeout and
  // removes its frame, so the test frames the app by hand).
  await page.goto(crms.stranger.url);
  await page.evaluate((src) => {
    const frame = document.createElement("iframe");
    frame.id = "by-hand";
    frame.src = src;
    frame.allow = "microphone; autoplay";
    frame.style.cssText = "width: 400px; height: 640px";
    document.body.prepend(frame);
  }, `${platform.url}/?layout=side`);
  const app = page.frameLocator("#by-hand");
  await app.getByLabel("Login name").fill("agent1");
  await app.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await app.getByRole("button", { name: "Sign in" }).click();
  await expect(app.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  const answers = await page.evaluate(async (appOrigin) => {
    const frame = document.querySelector<HTMLIFrameElement>("#by-hand")!;
    const received: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => received.push(e.data);
      frame.contentWindow!.postMessage(
        { type: "agentbar:connect", versions: [1], instance: `stranger-${i}` },
        appOrigin,
        [channel.port2],
      );
      channel.port1.postMessage({ type: "command", id: 1, command: "dial", args: { number: "55510660" } });
      await new Promise((r) => setTimeout(r, 250));
    }
    return received;
  }, new URL(platform.url).origin);
  expect(answers).toEqual([]);
  expect(await sim(platform.url).channels("55510660")).toEqual([]);
  await expect(app.getByTestId("call")).toHaveCount(0);

  // A page allowed only to follow the agent (status): connected, but dial is refused with a typed
  // error before anything is done, while what it may do, it does.
  const limited = await crmAgent(newParty, crms.limited, "agent2");
  expect(
    await limited.page.evaluate(() => (window as unknown as { crm: { bar: { scopes: string[] } } }).crm.bar.scopes),
  ).toEqual(LIMITED);
  await limited.page.getByRole("button", { name: "Call Carla Jones" }).click();
  // The demo CRM says so in words, as an error (its informational lines are not).
  await expect(limited.page.getByTestId("crm-message")).toHaveText(
    /^This page is not allowed to do that in Agentbar's configuration\. \(dial needs the 'dial' scope/,
  );
  await expect(limited.page.getByTestId("crm-message")).toHaveAttribute("data-kind", "error");
  expect(await command(limited.page, 'bar.dial("55510660")')).toMatchObject({
    ok: false,
    name: "AgentbarError",
    code: "not-permitted",
  });
  expect(await command(limited.page, 'bar.setStatus("ready")')).toMatchObject({ ok: true, result: { applied: "now" } });
  expect(await sim(platform.url).channels("55510660")).toEqual([]);
  await expect(limited.app.getByTestId("call")).toHaveCount(0);
  // It sees that a call rings and ends, but neither who calls nor what they keyed in at the IVR.
  const caller = await queueCaller(platform.url, { number: "55510770", name: "Deng Wei", toneHz: 770, data: IVR });
  const ringing = await eventNamed(limited.page, "call.ringing");
  expect(ringing.data.call).toMatchObject({ state: "ringing", queue: "support" });
  await hangUpCaller(platform.url, caller.id);
  await eventNamed(limited.page, "call.ended", (e) => callIdOf(e) === callIdOf(ringing));
  const calls = (await hostEvents(limited.page)).flatMap((e) => (e.data as Partial<CallOf>).call ?? []);
  expect(calls.length).toBeGreaterThanOrEqual(2);
  for (const call of calls) {
    expect(call).not.toHaveProperty("party");
    expect(call).not.toHaveProperty("data");
  }
  const seen = JSON.stringify(await hostEvents(limited.page)) + JSON.stringify(await hostState(limited.page, (s) => s));
  for (const hidden of ["55510770", "Deng Wei", "100770", "billing"]) expect(seen).not.toContain(hidden);

  // The stranger's own page, meanwhile: its embed() gave up once (the SDK's connect time-out,
  // 15 s from its load, long past by now) and says why in place of the frame.
  await expect(stranger.page.locator("#agentbar [role=alert]")).toHaveText(
    `This page's origin (${crms.stranger.url}) is not allowed by Agentbar's configuration at ${new URL(platform.url).origin}`,
    { timeout: 20_000 },
  );
  await expect(stranger.page.locator("#agentbar iframe")).toHaveCount(0);
  // Without flooding the console: a few handshakes the browser could not deliver to the refused
  // frame, less and less often, and nothing uncaught.
  expect(console.filter((m) => /postMessage/.test(m)).length).toBeLessThanOrEqual(10);
  expect(console.filter((m) => /^uncaught|agentbar:/.test(m))).toEqual([]);
  // The SDK itself is any page's: the stranger imports the ES module from the app's server.
  expect(
    await stranger.page.evaluate(async (url) => {
      const sdk = (await import(url)) as { embed: unknown; AgentbarError: unknown };
      return [typeof sdk.embed, typeof sdk.AgentbarError];
    }, `${platform.url}/embed/agentbar-host.js`),
  ).toEqual(["function", "function"]);
});

test("the documentation's examples run as written, changed only in the app's address: the README's page and the kiosk page with a credential connect; the whole example imports the ES module, shows the agent's status, pops the caller's number while the call rings, logs its end and dials from its button", async ({
  newParty,
  docs,
  platform,
}) => {
  expect(htmlExamplesOf("docs/embedding.md")).toHaveLength(2);
  expect(htmlExamplesOf("README.md")).toHaveLength(1);
  const { page } = await newParty();
  const uncaught: string[] = [];
  page.on("pageerror", (e) => void uncaught.push(e.message));

  // The README's page: the global script, connected, nobody signed in yet.
  await page.goto(docs.url + examplePath("README.md", 0));
  await expect(page.locator("#agent-status")).toHaveText("signed out");

  // The kiosk page (in a browser of its own): its server's token signs the app in.
  const kiosk = await newParty();
  await kiosk.page.goto(docs.url + examplePath("docs/embedding.md", 1));
  await expect(kiosk.page.locator("#agent-status")).toHaveText("Dave Agent");

  // The whole example: the agent signs in inside the frame and goes Ready there.
  await page.goto(docs.url + examplePath("docs/embedding.md", 0));
  await expect(page.locator("#agent-status")).toHaveText("not signed in");
  const app = appIn(page);
  await app.getByLabel("Login name").fill("agent1");
  await app.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await app.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("#agent-status")).toHaveText("break");
  await app.getByRole("button", { name: /^Status/ }).click();
  await app.getByRole("menu").getByRole("menuitemradio", { name: "Ready", exact: true }).click();
  await expect(page.locator("#agent-status")).toHaveText("ready");

  // The screen-pop while the call rings, and the call's end in the page's log.
  const caller = await queueCaller(platform.url, { number: "55510770", name: "Deng Wei", toneHz: 770, data: IVR });
  await expect(page.locator("#customer")).toHaveText("Customer 55510770, queue support, account 100770");
  await expect(app.getByTestId("call")).toHaveAttribute("data-state", "ringing");
  await hangUpCaller(platform.url, caller.id);
  await expect(page.locator("#log")).toContainText(/Call \S+ ended: \w+, hung up by remote/);

  // Click-to-dial from the page's button: the number's party is called.
  await page.locator("#call").click();
  await expect(page.locator("#log")).toContainText("Calling +15550100200");
  await simChannelOf(sim(platform.url), "+15550100200");
  expect(uncaught).toEqual([]);
});
