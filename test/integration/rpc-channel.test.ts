import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeSwitch } from "../../platform/cc/testing/fake-switch";
import { DEMO_DOMAIN, TestPlatform } from "./harness";
import { RpcClient } from "./rpc-client";

/**
 * The JSON-RPC channel on /ws over a real WebSocket. The soft-switch is the call center's
 * in-memory one here, so that queue calls (and the state changes they cause) can be made without
 * phones; tests with real phones and media are in cc-*.test.ts.
 */
let p: TestPlatform;
let sw: FakeSwitch;
const clients: RpcClient[] = [];

beforeAll(async () => {
  sw = new FakeSwitch();
  for (const extn of ["1001", "1002", "1003", "1004", "1010"]) sw.registered.add(extn);
  p = await TestPlatform.start({ rpcPingSeconds: 1 }, { switch: sw });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await p.close();
});

async function connect(): Promise<RpcClient> {
  const c = await RpcClient.connect(p.url);
  clients.push(c);
  return c;
}

/** A client signed in with the user's token as `<extn>@<domain>`. */
async function signedIn(login: string, extn: string): Promise<RpcClient> {
  const c = await connect();
  const res = await c.login(await p.token(login), `${extn}@${DEMO_DOMAIN}`);
  expect(res.result).toMatchObject({ message: "logged in" });
  return c;
}

async function rest(login: string, func: string, body: Record<string, unknown>) {
  const res = await p.call<{ code: number; message: string }>("POST", `/api/cc/ccc/${func}`, {
    token: await p.token(login),
    body,
  });
  return res.body;
}

describe("login", () => {
  it("signs in with a user token: 'logged in' with the session id, then verto.clientReady", async () => {
    const c = await connect();
    const res = await c.login(await p.token("agent1"), `1001@${DEMO_DOMAIN}`);
    expect(res).toEqual({ jsonrpc: "2.0", id: expect.any(Number), result: { message: "logged in", sessid: c.sessid } });
    const ready = await c.until(() => c.received.find((m) => m.method === "verto.clientReady"));
    expect(ready.params).toEqual({ reattached_sessions: [] });
  });

  it("signs in with an extension token", async () => {
    const token = await p.call<{ token: string }>("POST", "/api/users/extn_token", {
      token: await p.token("agent2"),
      body: { extn: "1002", domain: DEMO_DOMAIN },
    });
    const c = await connect();
    expect((await c.login(token.body.token, `1002@${DEMO_DOMAIN}`)).result).toMatchObject({ message: "logged in" });
  });

  it("refuses a bad token with -32001 and keeps refusing other methods with -32000", async () => {
    const c = await connect();
    expect((await c.login("not-a-token", `1001@${DEMO_DOMAIN}`)).error).toEqual({
      code: -32001,
      message: "Authentication Failure",
    });
    expect((await c.subscribe("cc.agent.1001")).error).toEqual({ code: -32000, message: "Authentication Required" });
  });

  it("refuses an empty passwd, a wrong domain and another user's extension", async () => {
    const token = await p.token("agent1");
    const c = await connect();
    expect((await c.login(token, `1001@${DEMO_DOMAIN}`, "")).error).toEqual({
      code: -32001,
      message: "Missing passwd",
    });
    expect((await c.login(token, "1001@elsewhere.example")).error).toEqual({
      code: -32001,
      message: "Authentication Failure",
    });
    expect((await c.login(token, `1002@${DEMO_DOMAIN}`)).error).toEqual({
      code: -32001,
      message: "Authentication Failure",
    });
  });

  it("does not let another user take over a session id", async () => {
    const first = await signedIn("agent1", "1001");
    const other = await connect();
    const res = await other.call("login", {
      login: `1002@${DEMO_DOMAIN}`,
      passwd: "x",
      loginParams: { xui_sessid: await p.token("agent2") },
      sessid: first.sessid,
    });
    expect(res.error).toEqual({ code: -32001, message: "Session in use" });
    expect((await first.call("echo", { hello: 1 })).result).toMatchObject({ hello: 1 });
  });
});

describe("subscriptions", () => {
  it("answers subscribedChannels, then alreadySubscribedChannels, and refuses channels the user may not see", async () => {
    const c = await signedIn("agent1", "1001");
    expect((await c.subscribe("cc.agent.1001", "cc.queue.support")).result).toMatchObject({
      subscribedChannels: ["cc.agent.1001", "cc.queue.support"],
    });
    expect((await c.subscribe("cc.agent.1001")).result).toMatchObject({
      subscribedChannels: [],
      alreadySubscribedChannels: ["cc.agent.1001"],
    });
    const refused = await c.subscribe("cc.agent.1002", "cc.queue.sales", "no.such.channel");
    expect(refused.error).toMatchObject({
      code: -32602,
      unauthorizedChannels: ["cc.agent.1002", "cc.queue.sales", "no.such.channel"],
    });
    expect((await c.call("verto.unsubscribe", { eventChannel: "cc.queue.support" })).result).toMatchObject({
      unsubscribedChannels: ["cc.queue.support"],
    });
  });

  it("lets a supervisor subscribe to any agent and queue", async () => {
    const c = await signedIn("supervisor", "1010");
    expect((await c.subscribe("cc.agent.1002", "cc.queue.sales")).result).toMatchObject({
      subscribedChannels: ["cc.agent.1002", "cc.queue.sales"],
    });
  });
});

describe("call-center events", () => {
  it("pushes an event for every status and state change of the agent, in order, with rising serial numbers", async () => {
    const c = await signedIn("agent3", "1003");
    await c.subscribe("cc.agent.1003");
    expect(await rest("agent3", "ccLogin", { agent: "1003", extn: "1003", queue: "support" })).toEqual({
      code: 200,
      message: "success",
    });
    await rest("agent3", "ccGoReady", { agent: "1003", queue: "support" });
    // Nobody else in support is ready: the caller goes to 1003.
    const customer = await sw.dial("support", { name: "Carla Customer", number: "5550100" });
    const leg = await c.until(() => sw.all.find((ch) => ch.extension === "1003" && ch.state === "ringing"));
    leg.remoteAnswer();
    customer.hangup();
    await rest("agent3", "ccGoBreak", { agent: "1003", queue: "support", reason: "lunch" });
    await rest("agent3", "ccLogout", { agent: "1003", queue: "support" });

    expect(await c.ccLogOf(10, "cc.agent.1003")).toEqual([
      "agent-status-change 1003 Available",
      "agent-state-change 1003 Receiving",
      "agent-offering 1003",
      "bridge-agent-start 1003",
      "agent-state-change 1003 In a queue call",
      "bridge-agent-end 1003 NORMAL_CLEARING",
      "member-queue-end 1003 NORMAL_CLEARING",
      "agent-state-change 1003 Waiting",
      "agent-status-change 1003 On Break",
      "agent-status-change 1003 Logged Out",
    ]);
    const events = c.events();
    expect(events.map((e) => e.eventSerno)).toEqual(events.map((_, i) => events[0]!.eventSerno + i));
    expect(events.find((e) => e.data["CC-Agent-Status"] === "On Break")!.data).toMatchObject({
      "Event-Name": "CUSTOM",
      "Event-Subclass": "callcenter::info",
      "CC-Action": "agent-status-change",
      "CC-Agent": "1003",
      "CC-Agent-Break-Reason": "lunch",
    });
    const offering = events.find((e) => e.data["CC-Action"] === "agent-offering")!;
    expect(offering).toMatchObject({ eventChannel: "cc.agent.1003", subscribedChannel: "cc.agent.1003" });
    expect(offering.data).toMatchObject({
      "CC-Queue": "support",
      "CC-Member-CID-Name": "Carla Customer",
      "CC-Member-CID-Number": "5550100",
    });
  });

  it("shows an agent only its own events and its queues', a supervisor everything", async () => {
    const bob = await signedIn("agent2", "1002");
    const dave = await signedIn("agent4", "1004");
    const sam = await signedIn("supervisor", "1010");
    for (const c of [bob, dave, sam]) await c.subscribe("FSevent.custom::callcenter::info");

    await rest("agent1", "ccGoBreak", { agent: "1001", reason: "coffee" });
    const caller = await sw.dial("support", { name: "Quiet Caller", number: "5550111" });
    caller.hangup();
    // A marker the agents may see, so that "nothing else came" is a fact, not a wait.
    await rest("agent2", "ccGoBreak", { agent: "1002", reason: "marker" });
    await rest("agent4", "ccGoBreak", { agent: "1004", reason: "marker" });

    const samLog = await sam.ccLogOf(7);
    expect(samLog).toEqual(
      expect.arrayContaining([
        "agent-status-change 1001 On Break",
        "member-queue-start support",
        "agent-status-change 1002 On Break",
        "agent-status-change 1004 On Break",
      ]),
    );
    await bob.until(() => bob.ccLog().includes("agent-status-change 1002 On Break"));
    expect(bob.ccLog()).toEqual([
      "member-queue-start support",
      "members-count support 1",
      "member-queue-end support Cancel",
      "members-count support 0",
      "agent-status-change 1002 On Break",
    ]);
    await dave.until(() => dave.ccLog().includes("agent-status-change 1004 On Break"));
    expect(dave.ccLog()).toEqual(["agent-status-change 1004 On Break"]);
  });

  it("runs the call-center functions through jsapi, with the REST envelopes as results", async () => {
    const c = await signedIn("agent1", "1001");
    await c.subscribe("cc.agent.1001");
    const ok = await c.ccc("ccGoBreak", { queue: "support", agent: "1001", reason: "lunch" });
    expect(ok.result).toEqual({ code: 200, message: "success", sessid: c.sessid });
    expect(await c.ccLogOf(1, "cc.agent.1001")).toEqual(["agent-status-change 1001 On Break"]);

    await c.ccc("ccLogout", { agent: "1001", queue: "support" });
    expect((await c.ccc("ccDial", { agent: "1001", extn: "1001", destNumber: "5550199" })).result).toEqual({
      code: 500,
      message: "can not find group?",
      sessid: c.sessid,
    });
    expect((await c.ccc("ccGoReady", { agent: "1002" })).result).toMatchObject({ code: 403 });
    expect((await c.call("jsapi", { command: "fsapi", data: {} })).error).toMatchObject({ code: -32601 });
    await c.ccc("ccLogin", { agent: "1001", extn: "1001", queue: "support" });
  });

  it("tells an agent handed a queue's customer at once: bridge-agent-start with the member's headers, bridge-agent-end when it ends", async () => {
    const bob = await signedIn("agent2", "1002");
    await bob.subscribe("cc.agent.1002");
    await rest("agent1", "ccGoReady", { agent: "1001" });
    const customer = await sw.dial("support", { name: "Hanna Handover", number: "5550333" });
    const leg = await bob.until(() => sw.all.find((ch) => ch.extension === "1001" && ch.state === "ringing"));
    leg.remoteAnswer();
    expect(await rest("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1002" })).toEqual({
      code: 200,
      message: "success",
    });
    await rest("agent1", "ccGoBreak", { agent: "1001", reason: "lunch" });
    const onBob = await bob.until(() => sw.all.find((ch) => ch.extension === "1002" && ch.state === "ringing"));
    onBob.remoteAnswer();

    expect(await bob.ccLogOf(1, "cc.agent.1002")).toEqual(["bridge-agent-start 1002"]);
    expect(bob.events().find((e) => e.data["CC-Action"] === "bridge-agent-start")!.data).toMatchObject({
      "CC-Queue": "support",
      "CC-Agent-UUID": onBob.uuid,
      "CC-Member-Session-UUID": customer.uuid,
      "CC-Member-CID-Name": "Hanna Handover",
      "CC-Member-CID-Number": "5550333",
      "CC-Member-UUID": expect.any(String),
    });
    onBob.hangup();
    expect(await bob.ccLogOf(2, "cc.agent.1002")).toEqual([
      "bridge-agent-start 1002",
      "bridge-agent-end 1002 NORMAL_CLEARING",
    ]);
  });

  // Before the next test, which bridges a call to agent4: its wrap-up (10 s) would hold this offer back.
  it("publishes channel events of the user's own phone legs for screen pops", async () => {
    const c = await signedIn("agent4", "1004");
    await c.subscribe("FSevent.channel_create");
    await rest("agent4", "ccGoReady", { agent: "1004" });
    await rest("agent2", "ccGoBreak", { agent: "1002" });
    const customer = await sw.dial("sales", { name: "Sales Lead", number: "5550222" });
    const created = await c.until(() => c.events().find((e) => e.data["Channel-Extension"] === "1004"));
    expect(created.data).toMatchObject({
      "Event-Name": "CHANNEL_CREATE",
      "Caller-Caller-ID-Name": "Sales Lead",
      "Caller-Caller-ID-Number": "5550222",
      variable_cc_queue: "sales",
    });
    // The customer's own leg is not the agent's to see.
    expect(c.events().some((e) => e.data["Unique-ID"] === customer.uuid)).toBe(false);
    customer.hangup();
  });

  it("refuses an agent every supervisor function, over REST and over jsapi, and another agent's events; a supervisor is served", async () => {
    await rest("agent2", "ccGoBreak", { agent: "1002" });
    await rest("agent4", "ccGoReady", { agent: "1004" });
    const customer = await sw.dial("sales", { name: "Sven Supervised", number: "5550444" });
    const c = await signedIn("agent1", "1001");
    const leg = await c.until(() => sw.all.find((ch) => ch.extension === "1004" && ch.state === "ringing"));
    leg.remoteAnswer();
    const calls = () => sw.all.filter((ch) => ch.extension === "1001" || ch.extension === "1010").length;
    const before = calls();
    const functions: [string, Record<string, unknown>][] = [
      ["ccMonitor", { agent: "1001", extn: "1001", destAgent: "1004", destUUID: leg.uuid }],
      ["ccIntercept", { agent: "1001", extn: "1001", destAgent: "1004", destUUID: leg.uuid }],
      ["ccThreeWay", { agent: "1004", callID: leg.uuid, destAgent: "1001", destExtn: "1001" }],
      ["ccGoReady", { agent: "1002" }],
      ["ccGoBreak", { agent: "1004", reason: "told to" }],
      ["ccLogout", { agent: "1004" }],
    ];
    for (const [func, body] of functions) {
      expect(await rest("agent1", func, body), `${func} over REST`).toMatchObject({
        code: 403,
        message: expect.stringMatching(/^no permission/),
      });
      expect((await c.ccc(func, body)).result, `${func} over jsapi`).toMatchObject({
        code: 403,
        message: expect.stringMatching(/^no permission/),
      });
    }
    expect((await c.call("verto.subscribe", { eventChannel: ["cc.agent.1004"] })).error).toMatchObject({
      code: -32602,
    });
    expect(calls()).toBe(before);
    expect(leg.state).toBe("answered");

    // The supervisor's own functions work: the platform refused the agent, not the function.
    const sam = await signedIn("supervisor", "1010");
    await sam.ccc("ccLogin", { agent: "1010", extn: "1010", queue: "support" });
    expect((await sam.ccc("ccMonitor", { agent: "1010", destAgent: "1004", destUUID: leg.uuid })).result).toMatchObject(
      { code: 200 },
    );
    customer.hangup();
    await sam.ccc("ccLogout", { agent: "1010" });
  });
});

describe("framing", () => {
  it("answers a malformed frame with an error and keeps the socket and other sessions working", async () => {
    const bad = await signedIn("agent2", "1002");
    const other = await signedIn("agent2", "1002");
    await other.subscribe("cc.agent.1002");

    bad.raw("{this is not json");
    const parse = await bad.until(() => bad.stray.find((m) => m.error?.code === -32700));
    expect(parse).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    bad.raw(JSON.stringify({ id: 7, method: "echo" }));
    expect(await bad.until(() => bad.stray.find((m) => m.id === 7))).toMatchObject({ error: { code: -32600 } });
    expect((await bad.call("no.such.method")).error).toEqual({
      code: -32601,
      message: "Invalid Method, Missing Method or Permission Denied",
    });
    bad.raw("x".repeat(70 * 1024));
    expect(await bad.until(() => bad.stray.find((m) => /at most/.test(m.error?.message ?? "")))).toMatchObject({
      error: { code: -32600 },
    });

    expect(bad.closed).toBe(false);
    expect((await bad.call("echo", { still: "here" })).result).toMatchObject({ still: "here" });
    await rest("agent2", "ccGoReady", { agent: "1002" });
    expect(await other.ccLogOf(1, "cc.agent.1002")).toEqual(["agent-status-change 1002 Available"]);
  });

  it("answers a batch with an array of answers in order", async () => {
    const c = await signedIn("agent1", "1001");
    c.raw(
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "echo", params: { n: 1 } },
        { jsonrpc: "2.0", id: "b", method: "nope" },
        { jsonrpc: "2.0", id: "c", method: "verto.subscribe", params: { eventChannel: "cc.agent.1001" } },
      ]),
    );
    await c.until(() => c.stray.length >= 3);
    expect(c.stray.map((m) => [m.id, m.error?.code ?? "ok"])).toEqual([
      ["a", "ok"],
      ["b", -32601],
      ["c", "ok"],
    ]);
  });

  it("pings an idle client with verto.ping and answers the client's own ping", async () => {
    const c = await signedIn("agent1", "1001");
    const ping = await c.until(() => c.received.find((m) => m.method === "verto.ping"));
    expect(ping).toMatchObject({ jsonrpc: "2.0", id: expect.any(Number), params: { serno: expect.any(Number) } });
    expect((await c.call("verto.ping", { serno: 3 })).result).toMatchObject({ message: "PONG", serno: 3 });
  });

  it("refuses floods with an error instead of closing the socket", async () => {
    const c = await signedIn("agent1", "1001");
    for (let i = 0; i < 150; i++) c.raw(JSON.stringify({ jsonrpc: "2.0", id: `f${i}`, method: "echo" }));
    await c.until(() => c.stray.length >= 150);
    const refused = c.stray.filter((m) => m.error?.code === -32005);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({
      id: expect.stringMatching(/^f\d+$/),
      error: { message: "Too many messages: slow down" },
    });
    // Still open: the next request gets an answer (refused or not, depending on the allowance left).
    const next = await c.call("echo", { after: "flood" });
    expect(next.result ?? next.error?.code).toEqual(next.result ? expect.objectContaining({ after: "flood" }) : -32005);
    expect(c.closed).toBe(false);
  });

  it("refuses every method but login before signing in", async () => {
    const c = await connect();
    expect((await c.call("echo")).error).toEqual({ code: -32000, message: "Authentication Required" });
  });
});
