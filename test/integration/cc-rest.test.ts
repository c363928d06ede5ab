import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentStateRecord } from "../../platform/cc/agent-state-record";
import { FakeSwitch, type FakeChannel } from "../../platform/cc/testing/fake-switch";
import { TestPlatform } from "./harness";

/**
 * /api/cc over real HTTP: every endpoint's request and answer shapes, the spec's errors, and that
 * a refusal changes nothing. Calls run on the call center's in-memory switch here (who hears whom
 * is its bookkeeping); the same endpoints with real phones and tones are in cc-media.test.ts.
 */
let p: TestPlatform;
let sw: FakeSwitch;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  sw = new FakeSwitch();
  for (const extn of ["1001", "1002", "1003", "1004", "1010"]) sw.registered.add(extn);
  p = await TestPlatform.start({}, { switch: sw });
  for (const login of ["agent1", "agent2", "agent3", "agent4", "supervisor", "admin"])
    tokens[login] = await p.token(login);
  // Calls follow each other quickly here; wrap-up time is the subject of other tests.
  const wrapUp = await p.call("PUT", `/api/users/${p.userId("agent1")}`, {
    token: tokens.admin,
    body: { agent_info: { wrap_up_time: "0" } },
  });
  expect(wrapUp.status).toBe(200);
});
afterAll(() => p.close());

const ok = { code: 200, message: "success" };

function cc(login: string, func: string, body: unknown) {
  return p.call<{ code: number; message: string; data?: Record<string, string> }>("POST", `/api/cc/ccc/${func}`, {
    token: tokens[login],
    body,
  });
}

async function agentState(login = "admin", query = "") {
  const res = await p.call<AgentStateRecord[]>("GET", `/api/cc/agent_state${query}`, { token: tokens[login] });
  expect(res.status).toBe(200);
  return res.body;
}

async function stateOf(agent: string) {
  return (await agentState()).find((r) => r.agent_id === agent)!;
}

function legTo(destination: string): FakeChannel {
  const legs = sw.all.filter(
    (c) => c.direction === "outbound" && c.destinationNumber === destination && c.state !== "hungup",
  );
  return legs[legs.length - 1]!;
}

/** Waits for the platform to have done what an HTTP answer started (offers run after a dispatch pass). */
async function until<T>(check: () => T | undefined | false): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = check();
    if (v) return v;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error("condition not met");
}

/** A customer in support answered by agent1: [customer, agent leg]. */
async function queueCall(): Promise<[FakeChannel, FakeChannel]> {
  await cc("agent1", "ccGoReady", { agent: "1001", queue: "support" });
  const customer = await sw.dial("support", { name: "Carla Customer", number: "5550100" });
  const leg = await until(() => sw.all.find((c) => c.extension === "1001" && c.state === "ringing"));
  leg.remoteAnswer();
  return [customer, leg];
}

beforeEach(async () => {
  // Each test starts with everyone signed in at their own phone, on break, and no calls.
  for (const ch of sw.channels()) ch.hangup();
  for (const [login, extn] of [
    ["agent1", "1001"],
    ["agent2", "1002"],
    ["agent3", "1003"],
    ["agent4", "1004"],
    ["supervisor", "1010"],
  ] as const) {
    await cc(login, "ccLogin", { agent: extn, extn, queue: login === "agent4" ? "sales" : "support" });
    await cc(login, "ccGoBreak", { agent: extn, queue: "support", reason: "" });
  }
});

describe("the callers waiting in a queue (GET /api/cc/queue_members, the local platform's addition)", () => {
  it("lists them oldest first with when each joined, to the queue's agents and supervisors; others get 403", async () => {
    const before = Math.floor(Date.now() / 1000);
    const first = await sw.dial("support", { name: "Carla Customer", number: "5550100" });
    const second = await sw.dial("support", { name: "", number: "5550101" });
    const list = await p.call<Record<string, unknown>[]>("GET", "/api/cc/queue_members?queue=support", {
      token: tokens.supervisor,
    });
    expect(list.status).toBe(200);
    expect(list.body.map((m) => [m.cid_number, m.cid_name, m.queue, m.state, m.session_uuid])).toEqual([
      ["5550100", "Carla Customer", "support", "Waiting", first.uuid],
      ["5550101", "", "support", "Waiting", second.uuid],
    ]);
    expect(list.body[0]!.joined_epoch).toBeGreaterThanOrEqual(before);
    const ofAgent = await p.call<unknown[]>("GET", "/api/cc/queue_members?queue=support", { token: tokens.agent1 });
    expect(ofAgent.body).toHaveLength(2);
    const other = await p.call<{ code: number; message: string }>("GET", "/api/cc/queue_members?queue=support", {
      token: tokens.agent4,
    });
    expect(other.status).toBe(403);
    expect(other.body.message).toMatch(/^no permission/);
    expect((await p.call("GET", "/api/cc/queue_members?queue=nowhere", { token: tokens.admin })).status).toBe(404);
    expect((await p.call("GET", "/api/cc/queue_members", { token: tokens.admin })).status).toBe(400);
    first.hangup();
    second.hangup();
  });
});

describe("signing in and status", () => {
  it("ccLogin, ccGoReady, ccGoBreak, ccLogout answer {code:200, message:'success'} and agent_state follows", async () => {
    expect((await cc("agent1", "ccLogout", { agent: "1001", queue: "support" })).body).toEqual(ok);
    expect(await stateOf("1001")).toMatchObject({ state: "LOGOUT", status: "Logged Out", group_id: "" });

    const login = await cc("agent1", "ccLogin", { agent: "1001", extn: "1001", queue: "support" });
    expect(login.status).toBe(200);
    expect(login.body).toEqual(ok);
    expect(await stateOf("1001")).toMatchObject({ state: "UNREADY", group_id: "support", extn: "1001" });

    expect((await cc("agent1", "ccGoReady", { agent: "1001", queue: "support" })).body).toEqual(ok);
    expect(await stateOf("1001")).toMatchObject({ state: "READY", callstate: "IDLE", status: "Available" });

    expect((await cc("agent1", "ccGoBreak", { agent: "1001", queue: "support", reason: "lunch" })).body).toEqual(ok);
    expect(await stateOf("1001")).toMatchObject({ state: "UNREADY", status: "On Break", reason: "lunch" });

    const user = await p.call<{ agent_info: Record<string, string> }>("GET", `/api/users/${p.userId("agent1")}`, {
      token: tokens.agent1,
    });
    expect(user.body.agent_info.status).toBe("On Break");
  });

  it("takes application/x-www-form-urlencoded bodies too", async () => {
    const res = await p.call("POST", "/api/cc/ccc/ccGoReady", {
      token: tokens.agent2,
      form: { agent: "support.1002", queue: "support" },
    });
    expect(res.body).toEqual(ok);
    expect((await stateOf("1002")).status).toBe("Available");
  });

  it("GET /api/cc/agent_state?queue=&type= lists the queue's agent state records", async () => {
    const res = await p.call<AgentStateRecord[]>("GET", "/api/cc/agent_state?queue=support&type=longest-idle-agent", {
      token: tokens.agent1,
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r) => r.agent_id)).toEqual(["1001", "1002", "1003", "1010"]);
    for (const r of res.body) {
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(["callstate", "group_id", "queue_id", "agent_uuid", "state", "agent_id", "extn"]),
      );
    }
    expect(res.body[0]).toMatchObject({
      agent_id: "1001",
      extn: "1001",
      group_id: "support",
      queue_id: "1",
      agent_uuid: "",
      state: "UNREADY",
      callstate: "IDLE",
    });
  });
});

describe("the spec's errors; a refusal changes nothing", () => {
  it.each([
    [
      "agent1",
      "ccDial",
      "logged out",
      { agent: "1001", extn: "1001", destNumber: "5550199" },
      500,
      "can not find group?",
    ],
    ["agent1", "ccGoReady", "", { agent: "9999" }, 404, "agent '9999' not found"],
    ["agent1", "ccLogin", "", { agent: "1001", extn: "1001", queue: "nosuch" }, 404, "queue 'nosuch' not found"],
    ["agent1", "ccHold", "", { callID: "no-such-call" }, 404, "call 'no-such-call' not found"],
    ["agent1", "ccTransfer", "", { callID: "no-such-call", destNumber: "1002" }, 404, "call 'no-such-call' not found"],
    ["agent1", "ccGoBreak", "", { agent: "1001", reason: ["lunch"] }, 400, "field 'reason' must be string"],
    ["agent1", "ccLogin", "", { agent: "1001", queue: "support" }, 400, "missing required field 'extn'"],
    [
      "agent1",
      "ccGoReady",
      "",
      { agent: "1002" },
      403,
      "no permission: an agent may act only on itself, not on agent 1002",
    ],
    [
      "agent1",
      "ccMonitor",
      "",
      { agent: "1001", destAgent: "1002", destUUID: "x" },
      403,
      "no permission: ccMonitor needs a supervisor or an administrator",
    ],
    ["agent1", "ccNoSuch", "", {}, 404, "unknown call-center function 'ccNoSuch'"],
  ])("%s %s (%s) %j -> %i %s", async (login, func, setup, body, code, message) => {
    if (setup === "logged out") await cc(login, "ccLogout", { agent: "1001" });
    const before = { db: p.snapshot(), agents: await agentState(), legs: sw.all.length };
    const res = await cc(login, func, body);
    expect(res.status).toBe(code);
    expect(res.body).toEqual({ code, message });
    expect({ db: p.snapshot(), agents: await agentState(), legs: sw.all.length }).toEqual(before);
  });

  it("answers 403 without a token", async () => {
    const res = await p.call("POST", "/api/cc/ccc/ccGoReady", { body: { agent: "1001" } });
    expect(res.status).toBe(403);
  });

  it("answers a malformed agent_state query with an envelope naming the field", async () => {
    const res = await p.call("GET", "/api/cc/agent_state?colour=red", { token: tokens.agent1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: "unknown field 'colour' in query" });
    expect((await p.call("GET", "/api/cc/agent_state?queue=sales", { token: tokens.agent1 })).status).toBe(403);
    expect((await p.call("GET", "/api/cc/agent_state?queue=nosuch", { token: tokens.admin })).body).toEqual({
      code: 404,
      message: "queue 'nosuch' not found",
    });
  });
});

describe("calls", () => {
  it("ccDial answers the callID; the agent's leg auto-answers first, then the destination is bridged", async () => {
    await cc("agent1", "ccGoReady", { agent: "1001" });
    const res = await cc("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "5550199" });
    expect(res.body).toEqual({ ...ok, data: { callID: expect.any(String) } });
    const agentLeg = sw.channel(res.body.data!.callID!)!;
    expect(agentLeg.originate!.options.autoAnswer).toBe(true);
    agentLeg.remoteAnswer();
    const destination = await until(() => legTo("5550199"));
    destination.remoteAnswer();
    expect(sw.hears(destination)).toEqual([agentLeg.uuid]);
    expect(await stateOf("1001")).toMatchObject({
      callstate: "TALKING",
      agent_uuid: agentLeg.uuid,
      call: { cid_number: "5550199" },
    });
  });

  it("ccAnswer asks the ringing phone to answer; ccKill ends a leg", async () => {
    await cc("agent1", "ccGoReady", { agent: "1001" });
    const customer = await sw.dial("support", { name: "C", number: "5550100" });
    const leg = await until(() => sw.all.find((c) => c.extension === "1001" && c.state === "ringing"));
    expect((await cc("agent1", "ccAnswer", { destUUID: leg.uuid })).body).toEqual(ok);
    expect(sw.phoneEvents.at(-1)).toMatchObject({ event: "talk", channel: leg });
    leg.remoteAnswer();
    expect((await cc("agent1", "ccKill", { destUUID: customer.uuid })).body).toEqual(ok);
    expect(customer.state).toBe("hungup");
  });

  it("ccHold plays music to the customer; ccUnHold brings the agent back", async () => {
    const [customer, leg] = await queueCall();
    expect((await cc("agent1", "ccHold", { callID: leg.uuid })).body).toEqual(ok);
    expect(sw.hears(customer)).toEqual(["music"]);
    expect((await stateOf("1001")).callstate).toBe("HOLD");
    expect((await cc("agent1", "ccUnHold", { callID: leg.uuid })).body).toEqual(ok);
    expect(sw.hears(customer)).toEqual([leg.uuid]);
  });

  it("ccTransfer sends the customer on and ends the agent's leg", async () => {
    const [customer, leg] = await queueCall();
    expect((await cc("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "5550123" })).body).toEqual(ok);
    expect(sw.transfers.at(-1)).toMatchObject({ channel: customer, destination: "5550123" });
    expect(leg.state).toBe("hungup");
    expect((await stateOf("1001")).callstate).toBe("IDLE");
  });

  it("ccConsult puts the customer on music while the agent talks to the target; ccCancelConsult brings the agent back", async () => {
    const [customer, leg] = await queueCall();
    expect(
      (await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", destExtn: "1002", callID: leg.uuid })).body,
    ).toEqual(ok);
    const target = legTo("1002");
    target.remoteAnswer();
    expect(sw.hears(customer)).toEqual(["music"]);
    expect(sw.hears(leg)).toEqual([target.uuid]);
    expect((await stateOf("1001")).callstate).toBe("CONSULTING");
    expect((await cc("agent1", "ccCancelConsult", { callID: leg.uuid })).body).toEqual(ok);
    expect(target.state).toBe("hungup");
    expect(sw.hears(customer)).toEqual([leg.uuid]);
  });

  it("ccThreeWay, ccMonitor and ccIntercept by a supervisor", async () => {
    const [customer, leg] = await queueCall();
    const monitor = await cc("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: leg.uuid,
    });
    // Agents are not told by default (the platform's option), and the answer says so.
    expect(monitor.body).toEqual({ ...ok, data: { uuid: expect.any(String), agent_told: false } });
    const listen = sw.channel(monitor.body.data!.uuid!)!;
    listen.remoteAnswer();
    expect(sw.hears(listen).sort()).toEqual([customer.uuid, leg.uuid].sort());
    expect(sw.hears(customer)).toEqual([leg.uuid]);

    const barge = await cc("admin", "ccThreeWay", {
      agent: "1001",
      callID: leg.uuid,
      destAgent: "PSTN",
      destExtn: "5550333",
    });
    expect(barge.body).toEqual({ ...ok, data: { uuid: expect.any(String) } });
    const third = sw.channel(barge.body.data!.uuid!)!;
    third.remoteAnswer();
    expect(sw.hears(customer).sort()).toEqual([leg.uuid, third.uuid].sort());

    expect(
      (await cc("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid }))
        .body,
    ).toEqual(ok);
    expect(leg.hangupCause).toBe("PICKED_OFF");
    expect(sw.hears(customer)).toEqual([listen.uuid]);
    expect(third.state).toBe("hungup");
    expect(await stateOf("1010")).toMatchObject({
      callstate: "TALKING",
      call: { cid_number: "5550100", customer_uuid: customer.uuid },
    });
  });
});

describe("a renamed agent", () => {
  it("shows its new name in the next agent_state and on the legs that present it, its new caller id on consult legs", async () => {
    const id = p.userId("agent1");
    const rename = (body: { name: string; cid_name: string }) =>
      p.call("PUT", `/api/users/${id}`, { token: tokens.agent1, body });
    // The engine has known agent1 since it signed in (beforeEach).
    expect(await stateOf("1001")).toMatchObject({ name: "Alice Agent" });
    expect((await rename({ name: "Alice Renamed", cid_name: "Alice (Support)" })).status).toBe(200);
    try {
      expect(await stateOf("1001")).toMatchObject({ name: "Alice Renamed" });
      const [, leg] = await queueCall();
      expect(await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID: leg.uuid })).toMatchObject({
        body: ok,
      });
      expect(legTo("1002").callerIdName).toBe("Alice (Support)");
      expect((await cc("agent1", "ccCancelConsult", { callID: leg.uuid })).body).toEqual(ok);
      const monitor = await cc("supervisor", "ccMonitor", {
        agent: "1010",
        extn: "1010",
        destAgent: "1001",
        destUUID: leg.uuid,
      });
      expect(sw.channel(monitor.body.data!.uuid!)!.callerIdName).toBe("Alice Renamed");
    } finally {
      expect((await rename({ name: "Alice Agent", cid_name: "Alice Agent" })).status).toBe(200);
    }
  });
});
