import type { BrowserContext, FrameLocator, Page } from "@playwright/test";
import { startCrmDemo, type CrmDemo } from "../platform/crm-demo/crm-demo";
import type { Scope, Snapshot } from "../src/embed/host/protocol";
import { PASSWORD, expect, test as base, type Party, type PartyOptions } from "./fixtures";
import { expectSimHears, sim, simChannelOf } from "./phone-support";
import { toneWav } from "./tone-wav";
import { admin, hangUpCaller, queueCaller } from "./toolbar-support";

/**
 * The app embedded in a CRM on another origin, driven through the host SDK: the demo CRM page
 * (platform/crm-demo) served on its own port (http://localhost:<port>) frames the app of the
 * test's platform (http://127.0.0.1:<port>). Three such pages run: one whose origin the app allows
 * with every scope but diagnostics, one allowed only to follow the agent (status, caller data),
 * and one the app does not know. Calls are proven by tones the simulated parties hear.
 */

const FULL: Scope[] = ["dial", "call-control", "status", "caller-data"];
const LIMITED: Scope[] = ["status", "caller-data"];

interface Crms {
  full: CrmDemo;
  limited: CrmDemo;
  stranger: CrmDemo;
}

const test = base.extend<{ crms: Crms; appLinked: void }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern: none.
  crms: async ({}, use) => {
    const app = { url: "" };
    const start = () => startCrmDemo({ port: 0, host: "127.0.0.1", publicHost: "localhost", appUrl: () => app.url, platformUrl: () => app.url });
    const [full, limited, stranger] = await Promise.all([start(), start(), start()]);
    await use(Object.assign({ full, limited, stranger }, { app }));
    await Promise.all([full.close(), limited.close(), stranger.close()]);
  },
  platformOptions: async ({ crms }, use) => {
    await use({ embedHosts: [{ origin: crms.full.url, scopes: FULL }, { origin: crms.limited.url, scopes: LIMITED }] });
  },
  // The CRM pages frame the app of this test's platform.
  appLinked: [
    async ({ crms, platform }, use) => {
      (crms as Crms & { app: { url: string } }).app.url = platform.url;
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
 * A demo agent at a CRM page, in its own browser whose microphone says `tone`: it signs in inside
 * the frame, and the CRM hears that the agent's phone is registered.
 */
async function crmAgent(newParty: (o?: PartyOptions) => Promise<Party>, crm: CrmDemo, login: string, tone: number): Promise<CrmAgent> {
  const { page, context } = await newParty({ fakeAudioWav: toneWav(tone) });
  const secrets: string[] = [];
  page.on("response", async (r) => {
    if (!/\/api\/(sessions|users\/extn_token)$/.test(new URL(r.url()).pathname) || r.status() !== 200) return;
    const body = (await r.json().catch(() => ({}))) as { token?: string; refresh_token?: string; data?: { token?: string } };
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
  await expect.poll(async () => !!(found = (await hostEvents(page)).find((e) => e.name === name && match(e))), { message: `the CRM page receives ${name}` }).toBe(true);
  return found!;
}

/** Runs an SDK command in the CRM page: its result, or its typed error. */
function command(page: Page, script: string): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; name: string; code: string; message: string }> {
  return page.evaluate(
    `(async () => { const bar = window.crm.bar; try { return { ok: true, result: await (${script}) }; } catch (e) { return { ok: false, name: e.name, code: e.code, message: e.message }; } })()`,
  ) as never;
}

test("click-to-dial from a tel: link of the CRM page: the number rings through the call center and the party hears the agent; the CRM follows the call to its end", async ({ newParty, crms, platform }) => {
  const agent = await crmAgent(newParty, crms.full, "agent1", 1200);
  const world = sim(platform.url);

  // The opt-in link helper turns the CRM's tel: links into dial.
  await agent.page.getByRole("link", { name: "5551 0660" }).click();
  const dialling = await eventNamed(agent.page, "call.dialling");
  expect(dialling.data.call).toMatchObject({ direction: "outbound", state: "dialling", party: { number: "55510660" } });

  // The simulated party (it answers with 660 Hz) hears the agent's microphone; the agent hears it.
  const party = await simChannelOf(world, "55510660");
  await expectSimHears(world, party.uuid, 1200, "the party dialled from the CRM");
  await expect(agent.app.getByTestId("call")).toHaveAttribute("data-state", "active");
  const answered = await eventNamed(agent.page, "call.answered");
  const callId = (answered.data.call as { callId: string }).callId;
  expect(answered.data.call).toMatchObject({ callId, state: "connected", direction: "outbound", platformCallId: expect.any(String) });

  // Hung up from the CRM: the reply comes once the call is over; the ended event says why and who.
  const hangUp = await command(agent.page, "bar.hangUp()");
  expect(hangUp).toMatchObject({ ok: true, result: { call: { callId, state: "ended" } } });
  const ended = await eventNamed(agent.page, "call.ended");
  expect(ended.data).toMatchObject({ call: { callId }, cause: "NORMAL_CLEARING", hungUpBy: "agent" });
  await expect.poll(async () => (await world.channel(party.uuid)).hangupCause).toBe("NORMAL_CLEARING");
  // Nothing secret ever reached the host page: no token, key or recording address.
  const everything = JSON.stringify(await hostEvents(agent.page)) + JSON.stringify(await hostState(agent.page, (s) => s));
  expect(agent.secrets.length).toBeGreaterThanOrEqual(2);
  for (const secret of agent.secrets) expect(everything).not.toContain(secret);
  expect(everything).not.toMatch(/token|recording|media_files|dev_key/i);
});

test("a queue call pops the customer's card while it rings, before the agent answers; answered from the CRM; the ended event carries the cause and who hung up; after-call work comes back with its outcome and notes", async ({
  newParty,
  crms,
  platform,
}) => {
  const agent = await crmAgent(newParty, crms.full, "agent1", 1300);
  const ready = await command(agent.page, 'bar.setStatus("ready")');
  expect(ready).toMatchObject({ ok: true, result: { applied: "now", agent: { status: "ready" } } });

  const caller = await queueCaller(platform.url, { number: "55510770", name: "Deng Wei", toneHz: 770 });
  const ringing = await eventNamed(agent.page, "call.ringing");
  expect(ringing.data.call).toMatchObject({ direction: "inbound", state: "ringing", queue: "support", party: { number: "55510770", name: "Deng Wei" }, answeredAt: null });
  // The CRM found the customer by the number and shows the card, while the app still rings.
  await expect(agent.page.getByTestId("crm-card")).toContainText("Deng Wei, Lotus Tea House");
  await expect(agent.page.getByTestId("crm-card-call")).toHaveText("Ringing: Deng Wei (queue support)");
  await expect(agent.app.getByTestId("call")).toHaveAttribute("data-state", "ringing");
  expect((await hostEvents(agent.page)).some((e) => e.name === "call.answered")).toBe(false);

  const callId = (ringing.data.call as { callId: string }).callId;
  const answer = await command(agent.page, "bar.answer()");
  expect(answer).toMatchObject({ ok: true, result: { call: { callId, state: "connected" } } });
  const answered = await eventNamed(agent.page, "call.answered");
  expect(answered.at).toBeGreaterThan(ringing.at);
  // The customer hears the agent.
  await expect.poll(async () => (await (await fetch(`${platform.url}/sim/queue-callers/${caller.id}`)).json()).heard.tones.some((t: { frequency: number }) => Math.abs(t.frequency - 1300) < 15), { message: "the customer hears the agent" }).toBe(true);

  await hangUpCaller(platform.url, caller.id);
  const ended = await eventNamed(agent.page, "call.ended");
  expect(ended.data).toMatchObject({ call: { callId, queue: "support" }, cause: "NORMAL_CLEARING", hungUpBy: "remote" });

  // After-call work: started with the call, then outcome and notes from the CRM end it.
  const started = await eventNamed(agent.page, "wrapup.started");
  expect(started.data.wrapUp).toMatchObject({ callId, queue: "support" });
  const done = await command(agent.page, `bar.setDisposition(${JSON.stringify(callId)}, "Sold", "Two boxes of oolong", { done: true })`);
  expect(done).toMatchObject({ ok: true, result: { callId } });
  const wrapped = await eventNamed(agent.page, "wrapup.ended");
  expect(wrapped.data.wrapUp).toMatchObject({ callId, outcome: "Sold", notes: "Two boxes of oolong" });
  await expect(agent.page.getByTestId("crm-card")).toContainText("Sold, Two boxes of oolong");
});

test("setStatus(ready) resolves only once the platform confirmed it: a request the platform only seems to accept never resolves, and times out as such", async ({ newParty, crms, platform }) => {
  const agent = await crmAgent(newParty, crms.full, "agent1", 1400);
  const boss = await admin(platform.url);
  expect((await boss.agentState("1001")).status).toBe("On Break");

  // The platform's answer comes, but the platform never applied it (the request never reached it).
  await agent.context.route("**/api/cc/ccc/ccGoReady", (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ code: 200, message: "success" }) }));
  const pretended = await command(agent.page, 'bar.setStatus("ready")');
  expect(pretended).toMatchObject({ ok: false, name: "AgentbarError", code: "timeout" });
  expect((await boss.agentState("1001")).status).toBe("On Break");

  // Through to the platform, it resolves once the platform shows the agent Available.
  await agent.context.unroute("**/api/cc/ccc/ccGoReady");
  const ready = await command(agent.page, 'bar.setStatus("ready")');
  expect((await boss.agentState("1001")).status).toBe("Available");
  expect(ready).toMatchObject({ ok: true, result: { applied: "now", agent: { status: "ready", platformStatus: "Available", pending: null } } });
  expect(await hostState(agent.page, (s) => s.agent?.status)).toBe("ready");
});

test("an allowed origin without the dial scope is refused with a typed error, and sees the agent and who calls", async ({ newParty, crms, platform }) => {
  const agent = await crmAgent(newParty, crms.limited, "agent1", 1500);
  expect(await agent.page.evaluate(() => (window as unknown as { crm: { bar: { scopes: string[] } } }).crm.bar.scopes)).toEqual(LIMITED);

  await agent.page.getByRole("button", { name: "Call Carla Jones" }).click();
  await expect(agent.page.getByTestId("crm-message")).toHaveText(/^not-permitted: dial needs the 'dial' scope/);
  const refused = await command(agent.page, 'bar.dial("55510660")');
  expect(refused).toMatchObject({ ok: false, name: "AgentbarError", code: "not-permitted" });
  // What it may do, it does.
  expect(await command(agent.page, 'bar.setStatus("ready")')).toMatchObject({ ok: true, result: { applied: "now" } });
  // No call was placed.
  expect(await sim(platform.url).channels("55510660")).toEqual([]);
  await expect(agent.app.getByTestId("call")).toHaveCount(0);
});

test("a message of a forged shape from the host page is refused with an error and changes nothing", async ({ newParty, crms, platform }) => {
  const agent = await crmAgent(newParty, crms.full, "agent1", 1600);
  const world = sim(platform.url);
  // A script of the allowed page talking to the app by hand, past the SDK.
  const got = (await agent.page.evaluate(async (appOrigin) => {
    const frame = document.querySelector<HTMLIFrameElement>("#agentbar iframe")!;
    const channel = new MessageChannel();
    const received: { type: string; re?: number; ok?: boolean; event?: string; data?: { error?: { code: string } }; error?: { code: string } }[] = [];
    const arrived = (test: (m: (typeof received)[number]) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (received.some(test) ? resolve() : setTimeout(check, 20));
        check();
      });
    channel.port1.onmessage = (e) => received.push(e.data);
    frame.contentWindow!.postMessage({ type: "agentbar:connect", versions: [1], instance: "by-hand" }, appOrigin, [channel.port2]);
    await arrived((m) => m.type === "hello");
    const port = channel.port1;
    port.postMessage({ type: "command", id: 1, command: "dial", args: { number: "55510660", sipUrl: "wss://evil.example/sip" } });
    port.postMessage({ type: "command", id: 2, command: "setStatus", args: { status: "ready", reason: 7 } });
    port.postMessage({ type: "command", id: 3, command: "setSettings", args: { autoAnswer: "always" } });
    port.postMessage({ type: "command", id: 4, command: "dial", args: [] });
    port.postMessage("dial 55510660");
    // A good command after them: once it is answered, the forged ones have been dealt with.
    port.postMessage({ type: "command", id: 5, command: "dial", args: { number: "55510880" } });
    await arrived((m) => m.type === "reply" && m.re === 5);
    return received;
  }, new URL(platform.url).origin)) as { type: string; re?: number; ok?: boolean; event?: string; data?: { error?: { code: string } }; error?: { code: string } }[];

  const replies = got.filter((m) => m.type === "reply");
  expect(replies.filter((m) => m.re !== 5)).toEqual([1, 2, 3, 4].map((re) => expect.objectContaining({ re, ok: false, error: expect.objectContaining({ code: "invalid-message" }) })));
  expect(got.filter((m) => m.type === "event" && m.event === "error")).toHaveLength(5);
  expect(replies.find((m) => m.re === 5)).toMatchObject({ ok: true });

  // The good dial went through; the forged one, sent before it, placed nothing.
  const good = await simChannelOf(world, "55510880");
  expect(await world.channels("55510660")).toEqual([]);
  expect((await admin(platform.url).then((a) => a.agentState("1001"))).status).toBe("On Break");
  await world.hangup(good.uuid);
});

test("a page of an origin the app does not allow cannot frame it; framed anyway (no CSP sent) its handshake and commands get no answer and dial nothing", async ({ newParty, crms, platform }) => {
  // The browser refuses the frame: the platform sends frame-ancestors with the allowed origins only.
  const stranger = await newParty();
  const refused = stranger.page.waitForEvent("console", (m) => /frame-ancestors/.test(m.text()));
  await stranger.page.goto(crms.stranger.url);
  expect((await refused).text()).toContain(`frame-ancestors 'self' ${crms.full.url} ${crms.limited.url}`);
  await expect(appIn(stranger.page).getByLabel("Login name")).toHaveCount(0);

  // Served without frame-ancestors (a web server left unconfigured, say), the app itself still
  // ignores the stranger: the agent signs in inside the frame, and the page's handshake, repeated
  // for five seconds (an allowed page is answered within the first), gets nothing back.
  const { page, context } = await newParty();
  await context.route(
    (url) => url.origin === new URL(platform.url).origin && url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-security-policy"];
      await route.fulfill({ response, headers });
    },
  );
  await page.goto(crms.stranger.url);
  const app = appIn(page);
  await app.getByLabel("Login name").fill("agent1");
  await app.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await app.getByRole("button", { name: "Sign in" }).click();
  await expect(app.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  const answers = await page.evaluate(async (appOrigin) => {
    const frame = document.querySelector<HTMLIFrameElement>("#agentbar iframe")!;
    const received: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => received.push(e.data);
      frame.contentWindow!.postMessage({ type: "agentbar:connect", versions: [1], instance: `stranger-${i}` }, appOrigin, [channel.port2]);
      channel.port1.postMessage({ type: "command", id: 1, command: "dial", args: { number: "55510660" } });
      await new Promise((r) => setTimeout(r, 250));
    }
    return received;
  }, new URL(platform.url).origin);
  expect(answers).toEqual([]);
  await expect(page.getByTestId("crm-message")).toHaveText(/no-answer/, { timeout: 20_000 });
  expect(await sim(platform.url).channels("55510660")).toEqual([]);
  await expect(app.getByTestId("call")).toHaveCount(0);
});
