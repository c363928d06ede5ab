import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { RestAgent, bigSipMessages, registerFlood, signIn, unreadBatches, type Flood } from "./floods";
import { DEMO_DOMAIN, demo } from "./harness";
import { PlatformProcess } from "./platform-process";
import { RpcClient } from "./rpc-client";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";

/**
 * Floods from the LAN, without signing in, change nothing for the agents: the platform (in a
 * process of its own, so that its memory and its event loop are its alone) keeps its memory while
 * sockets that never read send it batches, and keeps serving other agents and ringing their
 * phones while big SIP messages and a REGISTER flood arrive. Figures: `npm run bench -- floods`.
 */
let platform: PlatformProcess | undefined;
let floods: Flood[] = [];
const clients: RpcClient[] = [];
const phones: TestPhone[] = [];

afterEach(async () => {
  for (const f of floods) f.stop();
  floods = [];
  for (const c of clients.splice(0)) c.close();
  for (const p of phones.splice(0)) await p.stop();
  await platform?.close();
  platform = undefined;
});
afterAll(async () => {
  await closePhoneMedia();
});

/** Another address of this machine: the attacker's. */
const ATTACKER = "127.0.0.2";

describe("the event channel (/ws)", () => {
  it("keeps the platform's memory while sockets that never read send batches, and serves a signed-in agent throughout", async () => {
    platform = await PlatformProcess.start();
    const { url } = platform;
    const token = await signIn(url, "agent1");
    const agent = await RpcClient.connect(url);
    clients.push(agent);
    expect((await agent.login(token, `1001@${DEMO_DOMAIN}`)).result).toMatchObject({ message: "logged in" });
    await agent.subscribe("cc.agent.1001");
    const rest = new RestAgent(url, token);
    for (let i = 0; i < 10; i++) await rest.request();

    const before = platform.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, platform!.rss())), 50);
    // Two sockets never log in, two log in as agents; none reads, all send 62 KiB frames of
    // 21,000 empty requests as fast as they may. Before the platform bounded its batches, each
    // frame became 2 MB of refusals in its memory.
    const tokens = [undefined, undefined, await signIn(url, "agent2"), await signIn(url, "agent3")];
    const flood = unreadBatches(url, {
      sockets: 4,
      frames: Infinity,
      token: (i) => tokens[i],
      login: (i) => `${1000 + i}@${DEMO_DOMAIN}`,
    });
    floods.push(flood);
    await until("the flood is under way", () => flood.sent > 0);

    // The agent works on meanwhile: every status change is answered and pushed to its channel,
    // every read of its state answered.
    for (let changes = 1; changes <= 10; changes++) {
      const status = changes % 2 ? "ccGoReady" : "ccGoBreak";
      expect((await agent.ccc(status, { agent: "1001" })).result).toMatchObject({ code: 200 });
      await agent.until(
        () => agent.ccLog("cc.agent.1001").filter((l) => l.startsWith("agent-status-change")).length >= changes,
      );
      await rest.request();
    }
    const sent = flood.sent;
    flood.stop();
    clearInterval(sampler);
    peak = Math.max(peak, platform.rss());

    // The flood was real (at least 1.2 MB), the agent kept its channel, the memory stayed.
    expect(sent).toBeGreaterThanOrEqual(20);
    expect(agent.closed).toBe(false);
    expect(peak - before).toBeLessThan(100 * 1024 ** 2);
  });
});

describe("SIP (/sip)", () => {
  it("serves another agent's REST and rings a registered phone while big messages and a REGISTER flood arrive", async () => {
    platform = await PlatformProcess.start({ simRingMs: 300 });
    const { url } = platform;
    const phone = await TestPhone.start({
      url,
      extension: "1001",
      password: demo.extensionPassword,
      domain: DEMO_DOMAIN,
      tone: 440,
    });
    phones.push(phone);
    expect(phone.lastRegisterStatus).toBe(200);
    phone.incomingPolicy = "ring";
    const rest = new RestAgent(url, await signIn(url, "agent2"));
    await rest.request();

    // Six 250 KB REGISTERs of 9,000 Contacts each, and 20 sockets of 200 REGISTERs each, all
    // from one other machine, no credentials. Before the platform bounded what it parses, they
    // held its event loop for tens of seconds.
    const big = bigSipMessages(url, { sockets: 6, bytes: 250_000, count: 1, localAddress: ATTACKER });
    const registers = registerFlood(url, { sockets: 20, perSocket: 200, localAddress: ATTACKER });
    floods.push(big, registers);
    const floodOver = () => big.finished && registers.finished;
    await until("the flood is under way", () => registers.answers > 0 || big.answers > 0 || big.closedByPlatform > 0);

    // A customer calls the agent: the phone rings, the agent answers, the call is up.
    const caller = await fetch(`${url}/sim/calls`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ destination: "1001", frequency: 660 }),
    });
    expect(caller.status).toBe(200);
    const { uuid } = (await caller.json()) as { uuid: string };
    const call = await phone.incoming();
    expect(floodOver()).toBe(false);
    await call.answer();
    await call.waitState(SessionState.Established);
    let state = "";
    while (state !== "answered") {
      const res = await fetch(`${url}/sim/channels/${uuid}`);
      state = ((await res.json()) as { state: string }).state;
    }
    expect(floodOver()).toBe(false);

    // The other agent's reads of its state are answered one after another meanwhile.
    for (let i = 0; i < 20; i++) await rest.request();
    expect(floodOver()).toBe(false);

    // The flood is refused meanwhile, not lost in the platform: the big messages close their
    // connections, the REGISTERs are answered (401 or 503).
    await until("the flood is answered", () => big.closedByPlatform === 6 && registers.answers >= 200);
  });
});
