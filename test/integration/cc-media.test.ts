import { describe, expect, it, beforeEach } from "vitest";
import { SessionState } from "sip.js";
import type { AgentStateRecord } from "../../platform/cc/agent-state-record";
import type { QueueCallerReport } from "../../platform/cc/queue-callers";
import { parseTimestamp } from "../../platform/store/db";
import { sipFixture } from "./sip-fixture";
import { until, type TestCall, type TestPhone } from "./sip-phone";

/**
 * The call center with real phones: sip.js agents in Node with WebRTC media (@roamhq/wrtc), and
 * simulated customers sent into queues through /sim/queue-callers. Every party says its own tone,
 * so "who hears whom" is measured, not assumed: customer 660 Hz, agent1 880 Hz, agent2 1000 Hz,
 * agent4 1100 Hz, the supervisor 1300 Hz, an outside number 55511200 answers with 1200 Hz.
 */
const f = sipFixture({ simRingMs: 300 });

const CUSTOMER = 660;
const ALICE = 880; // agent1, extension 1001
const BOB = 1000; // agent2, extension 1002
const DAVE = 1100; // agent4, extension 1004
const SAM = 1300; // supervisor, extension 1010

const engine = () => f.platform.platform.callCenter.engine;

const tokens = new Map<string, string>();
async function token(login: string) {
  if (!tokens.has(login)) tokens.set(login, await f.platform.token(login));
  return tokens.get(login)!;
}

async function cc(login: string, func: string, body: Record<string, unknown>) {
  const res = await f.platform.call<{ code: number; message: string; data?: Record<string, string> }>(
    "POST",
    `/api/cc/ccc/${func}`,
    {
      token: await token(login),
      body,
    },
  );
  return res.body;
}

async function agentState(agent: string): Promise<AgentStateRecord> {
  const res = await f.platform.call<AgentStateRecord[]>("GET", "/api/cc/agent_state", { token: await token("admin") });
  return res.body.find((r) => r.agent_id === agent)!;
}

async function setAgentInfo(login: string, info: Record<string, string>) {
  const res = await f.platform.call("PUT", `/api/users/${f.platform.userId(login)}`, {
    token: await token("admin"),
    body: { agent_info: info },
  });
  expect(res.status).toBe(200);
}

async function ready(login: string, extn: string) {
  expect(
    await cc(login, "ccLogin", { agent: extn, extn, queue: login === "agent4" ? "sales" : "support" }),
  ).toMatchObject({ code: 200 });
  expect(await cc(login, "ccGoReady", { agent: extn })).toMatchObject({ code: 200 });
}

/** A simulated customer calls a queue. */
async function customer(queue: string, extra: Record<string, unknown> = {}): Promise<QueueCallerReport> {
  const res = await f.platform.call<QueueCallerReport>("POST", "/sim/queue-callers", {
    body: { queue, callerIdNumber: "5550100", callerIdName: "Carla Customer", toneHz: CUSTOMER, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function report(c: QueueCallerReport): Promise<QueueCallerReport> {
  return (await f.platform.call<QueueCallerReport>("GET", `/sim/queue-callers/${c.id}`)).body;
}

/** What the simulated customer hears now (its latest analysis), in Hz. */
function customerHearing(c: QueueCallerReport): number[] {
  return f.ctx.sim.get(c.uuid)?.hearing ?? [];
}

const near = (hz: number, target: number) => Math.abs(hz - target) <= Math.max(3, target * 0.01);

async function customerHears(c: QueueCallerReport, hz: number, what = `the customer hears ${hz} Hz`) {
  await until(what, () => customerHearing(c).some((h) => near(h, hz)));
}

/** The customer hears music on hold (since `since`, ms: the queue's own music came before). */
async function customerHearsMusic(c: QueueCallerReport, since = 0) {
  await until("the customer hears music on hold", () => {
    const notes = new Set(
      customerHeardSince(c, since)
        .filter((hz) => [349.23, 392, 523.25, 587.33].some((n) => near(hz, n)))
        .map(Math.round),
    );
    return notes.size >= 3;
  });
}

/** Tones the customer heard since `since` (ms), from its segments. */
function customerHeardSince(c: QueueCallerReport, since: number): number[] {
  return f.ctx.sim
    .get(c.uuid)!
    .heard.filter((t) => Date.parse(t.to) >= since)
    .map((t) => t.frequency);
}

/** An agent phone answering the next call it gets, and that call once it hears the customer. */
async function answerQueueCall(phone: TestPhone, c: QueueCallerReport): Promise<TestCall> {
  const call = await phone.incoming();
  await call.answer();
  await call.waitHears(CUSTOMER, `${phone.options.extension} hears the customer`);
  await customerHears(c, phone.options.tone, `the customer hears ${phone.options.extension}`);
  return call;
}

beforeEach(async () => {
  // No caller or call left over from an earlier test.
  for (const ch of f.ctx.switch.channels()) ch.hangup("NORMAL_CLEARING");
  // Everyone signed out, with settings that let calls follow each other quickly.
  for (const [login, extn] of [
    ["agent1", "1001"],
    ["agent2", "1002"],
    ["agent3", "1003"],
    ["agent4", "1004"],
    ["supervisor", "1010"],
  ] as const) {
    await cc("admin", "ccLogout", { agent: extn });
    if (login !== "supervisor")
      await setAgentInfo(login, {
        wrap_up_time: "0",
        reject_delay_time: "0",
        busy_delay_time: "0",
        no_answer_delay_time: "0",
        max_no_answer: "3",
      });
  }
});

describe("queue calls", () => {
  it("reach the ready agent with the customer's caller id and the call-center headers; both hear each other; the record names queue and agent", async () => {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support");
    const ringing = await alice.incoming();
    expect(ringing.header("from")).toMatch(/^"Carla Customer" <sip:5550100@/);
    expect(ringing.header("x-cc-queue")).toBe("support");
    const callID = ringing.header("x-cc-agent-uuid")!;
    expect((await agentState("1001")).agent_uuid).toBe(callID);
    expect(ringing.header("x-cc-member-session-uuid")).toBe(c.uuid);
    expect(ringing.header("call-info")).toBeUndefined();

    await ringing.answer();
    await ringing.waitHears(CUSTOMER, "the agent hears the customer");
    await customerHears(c, ALICE, "the customer hears the agent");
    expect(await agentState("1001")).toMatchObject({
      callstate: "TALKING",
      call: { cid_number: "5550100", cid_name: "Carla Customer", customer_uuid: c.uuid },
    });
    expect(await report(c)).toMatchObject({ state: "talking", agent: "1001" });

    const supportId = (await agentState("1001")).queue_id;
    await ringing.hangup();
    const cdr = await f.cdr(c.uuid);
    expect(cdr.variables).toMatchObject({ cc_queue: "support", cc_agent: "1001", cc_side: "member" });
    const agentLeg = await f.cdr(callID);
    expect(agentLeg.variables).toMatchObject({ cc_queue: "support", cc_agent: "1001", cc_side: "agent" });

    // The group of /api/cdrs is the queue (agent_state's queue_id): its calls' legs, and only those.
    const records = async (query: string) =>
      f.get<{ rowCount: number; data: { uuid: string; variables: Record<string, string> }[] }>(`/api/cdrs?${query}`);
    const group = (await records(`groupValue=${supportId}&perPage=1000`)).body;
    expect(group.data.map((r) => r.uuid)).toEqual(expect.arrayContaining([c.uuid, callID]));
    expect(group.data.every((r) => r.variables.cc_queue === "support")).toBe(true);
    // A supervisor reads every leg of a queue's calls (its board counts the day from them); an
    // agent who had no part in the call reads none of them.
    const as = async (login: string) =>
      (
        await f.platform.call<{ data: { uuid: string }[] }>("GET", `/api/cdrs?groupValue=${supportId}&perPage=1000`, {
          token: await f.platform.token(login),
        })
      ).body.data.map((r) => r.uuid);
    expect(await as("supervisor")).toEqual(expect.arrayContaining([c.uuid, callID]));
    expect(await as("agent2")).toEqual([]);
    const sales = f.ctx.db.prepare("SELECT id FROM queues WHERE name = 'sales'").get() as { id: number };
    expect((await records(`groupValue=${sales.id}&perPage=1000`)).body.data.map((r) => r.uuid)).not.toContain(c.uuid);
    expect((await records("groupValue=9999")).body).toMatchObject({ rowCount: 0, data: [] });
    const bad = await f.get<{ text: string }>("/api/cdrs?groupValue=support");
    expect(bad.status).toBe(400);
    expect(bad.body.text).toBe("field 'groupValue' in query must be integer");
  });

  it("go to the agent idle longest", async () => {
    const alice = await f.phone("1001", ALICE);
    const bob = await f.phone("1002", BOB);
    await ready("agent1", "1001");
    await ready("agent2", "1002");
    const first = await customer("support");
    let taker = "";
    await until("an agent gets the first call", () => {
      taker = alice.calls.length ? "1001" : bob.calls.length ? "1002" : "";
      return taker !== "";
    });
    const firstCall = await (taker === "1001" ? alice : bob).incoming();
    await firstCall.answer();
    await customerHears(first, taker === "1001" ? ALICE : BOB);
    await firstCall.hangup();
    // Free again in every respect (its phone too), so only "idle longest" can tell the two apart.
    await until("the first agent is free again", () => {
      const agent = engine().agent(taker)!;
      return agent.state === "Waiting" && !agent.call && !f.ctx.switch.channels().some((ch) => ch.extension === taker);
    });

    const second = await customer("support");
    const other = taker === "1001" ? bob : alice;
    const call = await answerQueueCall(other, second);
    expect((taker === "1001" ? alice : bob).calls.filter((x) => x.direction === "incoming")).toHaveLength(1);
    await call.hangup();
  });

  it("ring all agents of a ring-all queue; the loser's phone sees the call completed elsewhere", async () => {
    const bob = await f.phone("1002", BOB);
    const dave = await f.phone("1004", DAVE);
    await ready("agent2", "1002");
    await ready("agent4", "1004");
    const c = await customer("sales");
    const onBob = await bob.incoming();
    const onDave = await dave.incoming();
    await onDave.answer();
    await onBob.waitEnded();
    expect(onBob.endedBy).toBe("cancel");
    expect(onBob.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    await onDave.waitHears(CUSTOMER);
    await customerHears(c, DAVE);
    await onDave.hangup();
  });

  it("a 603 is a rejection (reject delay, not counted); 480s count as no answer and max_no_answer puts the agent On Break", async () => {
    await setAgentInfo("agent1", { max_no_answer: "2", reject_delay_time: "0", no_answer_delay_time: "0" });
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support");

    await (await alice.incoming()).reject(603);
    // With no delay set, the customer is offered again at once: the rejection was not counted.
    const second = await alice.incoming();
    expect((await agentState("1001")).no_answer_count).toBe(0);

    await second.reject(480);
    const third = await alice.incoming();
    expect((await agentState("1001")).no_answer_count).toBe(1);
    await third.reject(480);
    await until("the agent is On Break", () => engine().agent("1001")!.status === "On Break");
    expect(await agentState("1001")).toMatchObject({
      state: "UNREADY",
      status: "On Break",
      reason: "max-no-answer",
      no_answer_count: 2,
    });
    expect(await report(c)).toMatchObject({ state: "waiting" });
    await f.platform.call("DELETE", `/sim/queue-callers/${c.id}`);
  });

  it("wrap-up time keeps the next caller waiting until it has passed, then the caller is offered", async () => {
    await setAgentInfo("agent1", { wrap_up_time: "5" });
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const first = await customer("support");
    const call = await answerQueueCall(alice, first);
    await call.hangup();
    await until("the platform ended the agent's call", () => engine().agent("1001")!.call === undefined);
    const second = await customer("support");
    // agent_state says when the wrap-up ends, to the second (rounded down: it ends up to a second later).
    const ends = parseTimestamp((await agentState("1001")).wrap_up_until)!.getTime();
    // Most of the wrap-up has passed, long after a free agent would have been offered the caller.
    await until("most of the wrap-up has passed", () => Date.now() >= ends - 2000);
    expect((await report(second)).state).toBe("waiting");
    expect(alice.calls.filter((x) => x.direction === "incoming")).toHaveLength(1);
    const next = await answerQueueCall(alice, second);
    await next.hangup();
  });

  it("a customer who gives up while waiting is an abandoned member", async () => {
    const c = await customer("support", { patienceSeconds: 0.5 });
    await until(
      "the customer gave up",
      () => f.ctx.sim.get(c.uuid) === undefined || f.ctx.sim.get(c.uuid)!.state === "hungup",
    );
    expect(await report(c)).toMatchObject({ state: "abandoned", agent: "" });
    const cdr = await f.cdr(c.uuid);
    expect(cdr.variables).toMatchObject({ cc_queue: "support", cc_cause: "cancel", cc_cancel_reason: "BREAK_OUT" });
  });

  it("ccGoBreak while an offer rings cancels it at the phone; the customer goes to the next agent", async () => {
    const alice = await f.phone("1001", ALICE);
    const bob = await f.phone("1002", BOB);
    await ready("agent1", "1001");
    const c = await customer("support");
    const onAlice = await alice.incoming();
    await ready("agent2", "1002");
    expect(await cc("agent1", "ccGoBreak", { agent: "1001", reason: "lunch" })).toEqual({
      code: 200,
      message: "success",
    });
    await onAlice.waitEnded();
    expect(onAlice.endedBy).toBe("cancel");
    const call = await answerQueueCall(bob, c);
    expect(await agentState("1001")).toMatchObject({ state: "UNREADY", reason: "lunch", no_answer_count: 0 });
    await call.hangup();
  });

  it("the customer's keys reach the agent", async () => {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support", { dtmf: "42", dtmfDelaySeconds: 0.3 });
    const call = await answerQueueCall(alice, c);
    await until("the agent hears the keys", () => call.dtmfEars!.digits.includes("42"));
    await call.hangup();
  });
});

describe("call control", () => {
  async function talking(): Promise<{ alice: TestPhone; call: TestCall; c: QueueCallerReport; callID: string }> {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support");
    const call = await answerQueueCall(alice, c);
    return { alice, call, c, callID: call.header("x-cc-agent-uuid")! };
  }

  it("ccHold plays music to the customer and holds the agent's phone (a=sendonly); ccUnHold brings them back", async () => {
    const { call, c, callID } = await talking();
    const held = Date.now();
    expect(await cc("agent1", "ccHold", { callID })).toEqual({ code: 200, message: "success" });
    await customerHearsMusic(c, held);
    await until("the phone got a sendonly re-INVITE", () => call.remoteOffers.includes("sendonly"));
    await call.waitSilentOn(CUSTOMER, "the held agent no longer hears the customer");
    expect(await cc("agent1", "ccUnHold", { callID })).toEqual({ code: 200, message: "success" });
    await call.waitHears(CUSTOMER, "the agent hears the customer again");
    await customerHears(c, ALICE, "the customer hears the agent again");
    await call.hangup();
  });

  it("ccTransfer to an agent ends the agent's leg and hands the customer over: the receiving agent can hold the call", async () => {
    const bob = await f.phone("1002", BOB);
    expect(await cc("agent2", "ccLogin", { agent: "1002", extn: "1002", queue: "support" })).toMatchObject({
      code: 200,
    });
    const { call, c, callID } = await talking();
    expect(await cc("agent1", "ccTransfer", { callID, destNumber: "support.1002" })).toEqual({
      code: 200,
      message: "success",
    });
    await call.waitEnded();
    expect(call.endedBy).toBe("bye");
    const onBob = await bob.incoming();
    expect(onBob.header("from")).toMatch(/^"Carla Customer" <sip:5550100@/);
    expect(onBob.header("x-cc-action")).toBe("transfer");
    expect(onBob.header("x-cc-queue")).toBe("support");
    const bobCallID = onBob.header("x-cc-agent-uuid")!;
    await onBob.answer();
    await onBob.waitHears(CUSTOMER, "bob hears the customer");
    await customerHears(c, BOB, "the customer hears bob");
    expect(await agentState("1002")).toMatchObject({
      callstate: "TALKING",
      agent_uuid: bobCallID,
      call: { kind: "handover", cid_number: "5550100" },
    });

    const held = Date.now();
    expect(await cc("agent2", "ccHold", { callID: bobCallID })).toEqual({ code: 200, message: "success" });
    await customerHearsMusic(c, held);
    await onBob.waitSilentOn(CUSTOMER, "held: bob no longer hears the customer");
    await onBob.hangup();
  });

  it("ccConsult: music to the customer while agent and target talk; the target hangs up and the agent has the customer back", async () => {
    const bob = await f.phone("1002", BOB);
    const { call, c, callID } = await talking();
    const consulted = Date.now();
    expect(await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", destExtn: "1002", callID })).toEqual({
      code: 200,
      message: "success",
    });
    const onBob = await bob.incoming();
    expect(onBob.header("from")).toMatch(/^"Alice Agent" <sip:1001@/);
    await onBob.answer();
    await call.waitHears(BOB, "the agent hears the target");
    await onBob.waitHears(ALICE, "the target hears the agent");
    await customerHearsMusic(c, consulted);
    const consulting = Date.now();
    await call.waitSilentOn(CUSTOMER, "the agent does not hear the customer during the consultation");
    expect(customerHeardSince(c, consulting).some((hz) => near(hz, BOB) || near(hz, ALICE))).toBe(false);

    await onBob.hangup();
    await call.waitHears(CUSTOMER, "the agent has the customer back");
    await customerHears(c, ALICE, "the customer hears the agent again");
    await call.hangup();
  });

  it("ccConsult then the agent hangs up: the target gets the customer", async () => {
    const bob = await f.phone("1002", BOB);
    const { call, c, callID } = await talking();
    await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID });
    const onBob = await bob.incoming();
    await onBob.answer();
    await onBob.waitHears(ALICE);
    await call.hangup();
    await onBob.waitHears(CUSTOMER, "the target hears the customer");
    await customerHears(c, BOB, "the customer hears the target");
    await onBob.hangup();
  });

  it("ccCancelConsult ends the target's leg and returns the agent to the customer", async () => {
    const bob = await f.phone("1002", BOB);
    const { call, c, callID } = await talking();
    await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID });
    const onBob = await bob.incoming();
    await onBob.answer();
    await call.waitHears(BOB);
    expect(await cc("agent1", "ccCancelConsult", { callID })).toEqual({ code: 200, message: "success" });
    await onBob.waitEnded();
    await call.waitHears(CUSTOMER);
    await customerHears(c, ALICE);
    await call.hangup();
  });

  it("a consultation goes on when the agent's page reloads: the new leg talks to the target, the customer hears music and neither agent", async () => {
    const bob = await f.phone("1002", BOB);
    const { alice, call, c, callID } = await talking();
    const consulted = Date.now();
    await cc("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID });
    const onBob = await bob.incoming();
    await onBob.answer();
    await call.waitHears(BOB, "the agent hears the target");
    await customerHearsMusic(c, consulted);

    const reloading = Date.now();
    alice.dropConnection();
    const reloaded = await f.phone("1001", ALICE);
    reloaded.incomingPolicy = "answer";
    expect(
      await cc("agent1", "ccIntercept", { agent: "1001", extn: "1001", destAgent: "1001", destUUID: callID }),
    ).toMatchObject({ code: 200 });
    const back = await reloaded.incoming();
    await back.waitHears(BOB, "the new leg hears the target");
    await onBob.waitHears(ALICE, "the target hears the agent again");
    expect(await agentState("1001")).toMatchObject({
      callstate: "CONSULTING",
      call: { uuid: back.header("x-cc-agent-uuid"), consult: { answered: true } },
    });
    await customerHearsMusic(c, reloading);
    expect(customerHeardSince(c, reloading).some((hz) => near(hz, BOB) || near(hz, ALICE))).toBe(false);

    await onBob.hangup();
    await back.waitHears(CUSTOMER, "the agent has the customer back");
    await customerHears(c, ALICE, "the customer hears the agent again");
    await back.hangup();
  });

  it("ccAnswer sends NOTIFY Event: talk to the ringing phone", async () => {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support");
    const ringing = await alice.incoming();
    const callID = ringing.header("x-cc-agent-uuid")!;
    // The NOTIFY travels in the early dialog the phone's 180 opens.
    await until("the phone's 180 reached the platform", () =>
      Boolean((f.ctx.switch.channel(callID) as { progressAt?: Date } | undefined)?.progressAt),
    );
    expect(await cc("agent1", "ccAnswer", { destUUID: callID })).toEqual({ code: 200, message: "success" });
    await until("the phone received NOTIFY Event: talk", () =>
      alice.wire.some((m) => m.startsWith("NOTIFY ") && /\r\nEvent: talk\r\n/i.test(m) && m.includes(ringing.callId)),
    );
    // sip.js drops that NOTIFY while ringing (platform-facts §3.6): the phone answers locally.
    await ringing.answer();
    await customerHears(c, ALICE);
    await ringing.hangup();
  });

  it("ccKill ends the customer's leg; the agent's phone gets BYE", async () => {
    const { call, c } = await talking();
    expect(await cc("agent1", "ccKill", { destUUID: c.uuid })).toEqual({ code: 200, message: "success" });
    await call.waitEnded();
    expect(call.endedBy).toBe("bye");
    expect(await report(c)).toMatchObject({ state: "ended", agent: "1001" });
  });

  it("ccDial rings the agent's phone first, marked to answer by itself, then bridges the number", async () => {
    const alice = await f.phone("1001", ALICE);
    alice.incomingPolicy = "answer";
    await ready("agent1", "1001");
    const res = await cc("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "55511200" });
    expect(res).toMatchObject({ code: 200, data: { callID: expect.any(String) } });
    const leg = await alice.incoming();
    expect(leg.header("call-info")).toMatch(/answer-after=0/);
    expect(leg.requestUri).toMatch(/intercom=true/);
    await leg.waitHears(1200, "the agent hears the number dialled");
    expect(await agentState("1001")).toMatchObject({
      callstate: "TALKING",
      agent_uuid: res.data!.callID,
      call: { cid_number: "55511200" },
    });
    await leg.hangup();
  });

  it("ccDial by an agent not signed in answers the spec's error", async () => {
    expect(await cc("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "55511200" })).toEqual({
      code: 500,
      message: "can not find group?",
    });
  });
});

describe("supervision", () => {
  async function supervised() {
    const alice = await f.phone("1001", ALICE);
    const sam = await f.phone("1010", SAM);
    sam.incomingPolicy = "answer";
    await ready("agent1", "1001");
    await cc("supervisor", "ccLogin", { agent: "1010", extn: "1010", queue: "support" });
    const c = await customer("support");
    const call = await answerQueueCall(alice, c);
    return { sam, call, c, callID: call.header("x-cc-agent-uuid")! };
  }

  it("a party the agent added and a supervisor listening stay in the call when the agent's page reloads and takes it back", async () => {
    const alice = await f.phone("1001", ALICE);
    const bob = await f.phone("1002", BOB);
    const sam = await f.phone("1010", SAM);
    sam.incomingPolicy = "answer";
    await ready("agent1", "1001");
    await cc("supervisor", "ccLogin", { agent: "1010", extn: "1010", queue: "support" });
    const c = await customer("support");
    const callID = (await answerQueueCall(alice, c)).header("x-cc-agent-uuid")!;
    await ready("agent2", "1002");
    await cc("agent1", "ccThreeWay", { agent: "1001", callID, destAgent: "1002" });
    const added = await bob.incoming();
    await added.answer();
    await added.waitHears(CUSTOMER, "the added party hears the customer");
    await cc("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID });
    const listen = await sam.incoming();
    await listen.waitHears(ALICE, "the supervisor hears the agent");

    alice.dropConnection();
    await added.waitSilentOn(ALICE, "the added party no longer hears the agent, whose page is away");
    await listen.waitSilentOn(ALICE, "nor does the supervisor");
    const reloaded = await f.phone("1001", ALICE);
    reloaded.incomingPolicy = "answer";
    await cc("agent1", "ccIntercept", { agent: "1001", extn: "1001", destAgent: "1001", destUUID: callID });
    const back = await reloaded.incoming();
    await back.waitHears(CUSTOMER, "the agent hears the customer again");
    await back.waitHears(BOB, "and the added party");
    await added.waitHears(ALICE, "the added party hears the agent again");
    await listen.waitHears(ALICE, "the supervisor hears the agent again");
    await listen.waitHears(CUSTOMER, "and the customer");
    await customerHears(c, BOB, "the customer still hears the added party");
    await back.hangup();
    await added.waitEnded();
    await listen.waitEnded();
  });

  it("ccMonitor: the supervisor hears both sides; neither hears the supervisor", async () => {
    const { sam, call, c, callID } = await supervised();
    const res = await cc("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: callID,
    });
    expect(res).toMatchObject({ code: 200, data: { uuid: expect.any(String) } });
    const listen = await sam.incoming();
    expect(listen.header("call-info")).toMatch(/answer-after=0/);
    await listen.waitHears(CUSTOMER, "the supervisor hears the customer");
    await listen.waitHears(ALICE, "the supervisor hears the agent");
    const since = Date.now();
    await call.waitSilentOn(SAM, "the agent does not hear the supervisor");
    await until("the customer has been listened to a while", () =>
      customerHeardSince(c, since).some((hz) => near(hz, ALICE)),
    );
    expect(customerHeardSince(c, since).some((hz) => near(hz, SAM))).toBe(false);
    await call.hangup();
    await listen.waitEnded();
  });

  it("ccThreeWay: the supervisor joins and all three hear each other", async () => {
    const { sam, call, c, callID } = await supervised();
    expect(
      await cc("supervisor", "ccThreeWay", { agent: "1001", callID, destAgent: "1010", destExtn: "1010" }),
    ).toMatchObject({ code: 200 });
    const barge = await sam.incoming();
    await barge.waitHears(CUSTOMER);
    await barge.waitHears(ALICE);
    await call.waitHears(SAM, "the agent hears the supervisor");
    await customerHears(c, SAM, "the customer hears the supervisor");
    await call.waitHears(CUSTOMER);
    await call.hangup();
  });

  it("ccIntercept: the supervisor takes the customer; the agent's leg ends as completed elsewhere", async () => {
    const { sam, call, c, callID } = await supervised();
    await cc("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID });
    const listen = await sam.incoming();
    await listen.waitHears(CUSTOMER);
    expect(
      await cc("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID }),
    ).toEqual({ code: 200, message: "success" });
    await call.waitEnded();
    expect(call.endedBy).toBe("bye");
    expect(call.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    await customerHears(c, SAM, "the customer hears the supervisor");
    await listen.waitHears(CUSTOMER, "the supervisor hears the customer");
    expect(await agentState("1010")).toMatchObject({ callstate: "TALKING", call: { cid_number: "5550100" } });
    await listen.hangup();
  });

  it("keys on the monitor leg switch modes as FreeSWITCH's eavesdrop: 2 whispers to the agent, 1 to the customer, 3 barges in, 0 listens again", async () => {
    const { sam, call, c, callID } = await supervised();
    await cc("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID });
    const listen = await sam.incoming();
    await listen.waitHears(CUSTOMER);
    await listen.waitHears(ALICE);
    /** The customer did not hear the supervisor since `since`, after hearing the agent for a while. */
    const customerSilentOnSam = async (since: number) => {
      await until("the customer has heard the agent since", () =>
        customerHeardSince(c, since).some((hz) => near(hz, ALICE)),
      );
      expect(customerHeardSince(c, since).some((hz) => near(hz, SAM))).toBe(false);
    };

    await listen.sendInfo("2");
    await call.waitHears(SAM, "whisper: the agent hears the supervisor");
    await customerSilentOnSam(Date.now());
    await listen.waitHears(CUSTOMER, "whisper: the supervisor still hears the customer");

    await listen.sendInfo("1");
    await customerHears(c, SAM, "the customer hears the supervisor");
    await call.waitSilentOn(SAM, "the agent no longer hears the supervisor");

    await listen.sendInfo("3");
    await call.waitHears(SAM, "barge: the agent hears the supervisor");
    await customerHears(c, SAM, "barge: the customer hears the supervisor");
    await listen.waitHears(CUSTOMER);
    await listen.waitHears(ALICE);
    expect(await agentState("1010")).toMatchObject({ callstate: "TALKING", call: { kind: "monitor" } });

    await listen.sendInfo("0");
    await call.waitSilentOn(SAM, "listening again: the agent no longer hears the supervisor");
    await customerSilentOnSam(Date.now() + 300);
    expect(await agentState("1010")).toMatchObject({ callstate: "MONITORING" });
    for (const leg of [call, listen]) expect(leg.state).toBe(SessionState.Established);
    await call.hangup();
    await listen.waitEnded();
  });

  it("ccIntercept of a click-to-dial call after ccMonitor: the supervisor and the number dialled talk, the agent's leg ends", async () => {
    const alice = await f.phone("1001", ALICE);
    alice.incomingPolicy = "answer";
    const sam = await f.phone("1010", SAM);
    sam.incomingPolicy = "answer";
    await ready("agent1", "1001");
    await cc("supervisor", "ccLogin", { agent: "1010", extn: "1010", queue: "support" });
    const callID = (await cc("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "55511200" })).data!
      .callID!;
    const leg = await alice.incoming();
    await leg.waitHears(1200, "the agent hears the number dialled");
    const outside = (await agentState("1001")).call!.customer_uuid;
    await cc("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID });
    const listen = await sam.incoming();
    await listen.waitHears(1200, "the supervisor hears the number dialled");

    expect(
      await cc("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: callID }),
    ).toEqual({ code: 200, message: "success" });
    await leg.waitEnded();
    expect(leg.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    await until("the number dialled hears the supervisor", () =>
      (f.ctx.sim.get(outside)?.hearing ?? []).some((hz) => near(hz, SAM)),
    );
    await listen.waitHears(1200, "the supervisor still hears the number dialled");
    expect(await agentState("1010")).toMatchObject({ callstate: "TALKING", call: { cid_number: "55511200" } });
    expect(await agentState("1001")).toMatchObject({ callstate: "IDLE" });
    await listen.hangup();
    await until("the number dialled is hung up", () => f.ctx.sim.get(outside)?.state === "hungup");
    expect((await agentState("1010")).callstate).toBe("IDLE");
  });

  it("an agent whose phone went away takes its own call back on a fresh leg: music meanwhile, then the same call goes on", async () => {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support", { callerIdNumber: "5550177" });
    const callID = (await answerQueueCall(alice, c)).header("x-cc-agent-uuid")!;
    // The page reloads: its socket closes without a BYE.
    alice.dropConnection();
    const away = Date.now();
    await customerHearsMusic(c, away);
    expect(await agentState("1001")).toMatchObject({ callstate: "TALKING", call: { uuid: callID, kind: "queue" } });

    const reloaded = await f.phone("1001", ALICE);
    reloaded.incomingPolicy = "answer";
    const res = await cc("agent1", "ccIntercept", { agent: "1001", extn: "1001", destAgent: "1001", destUUID: callID });
    expect(res).toMatchObject({ code: 200, message: "success" });
    const leg = await reloaded.incoming();
    expect(leg.header("from")).toMatch(/^"Carla Customer" <sip:5550177@/);
    expect(leg.header("x-cc-action")).toBe("intercept");
    expect(leg.header("x-cc-target-uuid")).toBe(callID);
    expect(leg.header("call-info")).toMatch(/answer-after=0/);
    const newID = leg.header("x-cc-agent-uuid")!;
    expect(res.data).toEqual({ uuid: newID });
    await leg.waitHears(CUSTOMER, "the agent hears the customer again");
    await customerHears(c, ALICE, "the customer hears the agent again");
    // The same queue call, on its new leg; the old one ended as picked off.
    expect(await agentState("1001")).toMatchObject({
      callstate: "TALKING",
      call: { uuid: newID, kind: "queue", queue: "support", customer_uuid: c.uuid },
    });
    expect((await f.cdr(callID)).hangup_cause).toBe("PICKED_OFF");

    await leg.hangup();
    const customerRecord = await f.cdr(c.uuid);
    expect(customerRecord.variables).toMatchObject({ cc_queue: "support", cc_agent: "1001", cc_side: "member" });
    expect((await f.cdr(newID)).variables).toMatchObject({
      cc_queue: "support",
      cc_agent: "1001",
      cc_side: "agent",
      cc_taken_back_from: callID,
    });
    // One customer call in the records: the customer's leg, and the agent's two legs of it.
    const legs = f.ctx.db.prepare("SELECT uuid, variables FROM cdrs WHERE caller_id_number = '5550177'").all() as {
      uuid: string;
      variables: string;
    }[];
    const sides = legs.map((r) => (JSON.parse(r.variables) as Record<string, string>).cc_side).sort();
    expect(sides).toEqual(["agent", "agent", "member"]);
  });

  it("an agent may not intercept another agent's call, nor take it as its own", async () => {
    const alice = await f.phone("1001", ALICE);
    await ready("agent1", "1001");
    const c = await customer("support");
    const call = await answerQueueCall(alice, c);
    const callID = call.header("x-cc-agent-uuid")!;
    const bob = await f.phone("1002", BOB);
    await ready("agent2", "1002");
    for (const body of [
      { agent: "1002", extn: "1002", destAgent: "1001", destUUID: callID },
      { agent: "1002", extn: "1002", destUUID: c.uuid },
      { agent: "1001", extn: "1002", destUUID: callID },
    ]) {
      const res = await cc("agent2", "ccIntercept", body);
      expect(res.code).toBe(403);
    }
    expect((await cc("agent1", "ccIntercept", { agent: "1001", extn: "1002", destUUID: callID })).code).toBe(403);
    // Nothing rang, nobody was moved: the agent and the customer still hear each other.
    expect(bob.calls).toHaveLength(0);
    const after = Date.now();
    await until("the customer still hears the agent", () => customerHeardSince(c, after).some((hz) => near(hz, ALICE)));
    await call.waitHears(CUSTOMER);
    expect(await agentState("1001")).toMatchObject({ callstate: "TALKING", call: { uuid: callID } });
    await call.hangup();
  });

  it("an agent may not monitor", async () => {
    const { call, callID } = await supervised();
    const res = await cc("agent2", "ccMonitor", { agent: "1002", destAgent: "1001", destUUID: callID });
    expect(res.code).toBe(403);
    expect(call.state).toBe(SessionState.Established);
    await call.hangup();
  });
});
