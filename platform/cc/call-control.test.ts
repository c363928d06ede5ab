import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallCenterFixture, settle } from "./testing/fixture";
import type { FakeChannel } from "./testing/fake-switch";

let f: CallCenterFixture;

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T09:00:00Z") });
  f = new CallCenterFixture();
});
afterEach(() => {
  f.close();
  vi.useRealTimers();
});

const ok = { code: 200, message: "success" };

function stateOf(agent: string) {
  return f.service.agentState(undefined, f.caller("admin")).find((r) => r.agent_id === agent)!;
}

/** The newest outbound leg to a number or extension. */
function legTo(destination: string): FakeChannel {
  const legs = f.sw.all.filter((c) => c.direction === "outbound" && c.destinationNumber === destination);
  if (!legs.length) throw new Error(`no leg to ${destination}`);
  return legs[legs.length - 1]!;
}

/** agent1's page reloaded: it takes its own call back on a new leg to 1001, which answers. */
async function takeBack(leg: FakeChannel): Promise<FakeChannel> {
  expect(
    await f.run("agent1", "ccIntercept", { agent: "1001", extn: "1001", destAgent: "1001", destUUID: leg.uuid }),
  ).toMatchObject(ok);
  const back = legTo("1001");
  expect(back).not.toBe(leg);
  back.remoteAnswer();
  await settle();
  expect(leg.hangupCause).toBe("PICKED_OFF");
  return back;
}

describe("ccDial", () => {
  it("rings the agent's phone first, marked to answer by itself, then calls the destination and bridges on answer", async () => {
    f.ready("1001");
    const res = await f.run("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "5550199" });
    expect(res).toEqual({ ...ok, data: { callID: expect.any(String) } });
    const callID = (res.data as { callID: string }).callID;

    const agentLeg = f.sw.channel(callID)!;
    expect(agentLeg.extension).toBe("1001");
    expect(agentLeg.originate!.options.autoAnswer).toBe(true);
    expect(agentLeg.callerIdNumber).toBe("5550199");
    expect(f.sw.all.filter((c) => c.destinationNumber === "5550199")).toEqual([]);
    expect(stateOf("1001")).toMatchObject({ callstate: "RINGING", agent_uuid: callID });

    agentLeg.remoteAnswer();
    await settle();
    expect(f.sw.hears(agentLeg)).toEqual(["ringback"]);
    const destination = legTo("5550199");
    expect(destination.callerIdNumber).toBe("1001");
    expect(stateOf("1001").callstate).toBe("DIALING");

    destination.remoteAnswer();
    await settle();
    expect(f.sw.hears(agentLeg)).toEqual([destination.uuid]);
    expect(f.sw.hears(destination)).toEqual([agentLeg.uuid]);
    expect(stateOf("1001")).toMatchObject({
      callstate: "TALKING",
      call: { kind: "dial", direction: "outbound", cid_number: "5550199", customer_uuid: destination.uuid },
    });
  });

  it("answers an agent that is not signed in with the spec's error and calls nobody", async () => {
    f.cc.setStatus(f.cc.agent("1001")!, "Logged Out");
    const res = await f.run("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "5550199" });
    expect(res).toEqual({ code: 500, message: "can not find group?" });
    expect(f.sw.all).toEqual([]);
  });

  it("ends the agent's leg with the destination's failure", async () => {
    f.ready("1001");
    const res = await f.run("agent1", "ccDial", { agent: "1001", destNumber: "5550199" });
    const agentLeg = f.sw.channel((res.data as { callID: string }).callID)!;
    agentLeg.remoteAnswer();
    await settle();
    legTo("5550199").hangup("USER_BUSY");
    expect(agentLeg.hangupCause).toBe("USER_BUSY");
    expect(stateOf("1001").callstate).toBe("IDLE");
  });
});

describe("hold and transfer", () => {
  it("ccHold: the customer hears music and agent_state says HOLD; ccUnHold brings the agent back", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    expect(await f.run("agent1", "ccHold", { callID: leg.uuid })).toEqual(ok);
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(stateOf("1001").callstate).toBe("HOLD");
    expect(await f.run("agent1", "ccUnHold", { callID: leg.uuid })).toEqual(ok);
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(stateOf("1001").callstate).toBe("TALKING");
  });

  it("a held call the agent takes back after a reload stays held: the customer hears music, never the new leg, until ccUnHold", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    expect(await f.run("agent1", "ccHold", { callID: leg.uuid })).toEqual(ok);
    const back = await takeBack(leg);
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(stateOf("1001")).toMatchObject({ callstate: "HOLD", agent_uuid: back.uuid, call: { held: true } });
    expect(await f.run("agent1", "ccUnHold", { callID: back.uuid })).toEqual(ok);
    expect(f.sw.hears(customer)).toEqual([back.uuid]);
    expect(stateOf("1001").callstate).toBe("TALKING");
  });

  it("ccTransfer: the customer goes to the number and the agent's leg ends, ending its queue call", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    f.take();
    expect(await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "5550123" })).toEqual(ok);
    expect(f.sw.transfers.map((t) => [t.channel.uuid, t.destination])).toEqual([[customer.uuid, "5550123"]]);
    expect(customer.state).toBe("answered");
    expect(leg.state).toBe("hungup");
    expect(f.take()).toEqual([
      "bridge-agent-end 1001 NORMAL_CLEARING",
      "member-queue-end support Terminated",
      "agent-state-change 1001 Waiting",
    ]);
  });

  it("ccTransfer to a queue puts the customer back in line there", async () => {
    f.ready("1001");
    const [, leg] = await f.answeredCall("support", "1001");
    f.take();
    await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "sales" });
    await settle();
    expect(f.take()).toContain("member-queue-start sales");
    expect(f.cc.waiting("sales")).toHaveLength(1);
  });
});

describe("ccTransfer to an agent", () => {
  it("hands the customer over: the agent's phone rings where it signed in, with the call-center headers, and the agent can hold the call", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    // What the customer keyed in at the IVR (docs/platform-contract.md, "A caller's data").
    customer.variables.set("sip_h_X-IVR-Account", "100234");
    f.cc.signIn(f.cc.agent("1002")!, "1003", "support");
    f.take();
    expect(await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "support.1002" })).toEqual(ok);
    expect(leg.state).toBe("hungup");
    expect(f.take()).toEqual([
      "bridge-agent-end 1001 NORMAL_CLEARING",
      "member-queue-end support Terminated",
      "agent-state-change 1001 Waiting",
    ]);
    // Not a plain transfer through the dialplan: a leg of the call center's, like a consultation's.
    expect(f.sw.transfers).toEqual([]);
    const to = legTo("1003");
    expect(to.callerIdNumber).toBe("5550100");
    expect(to.headers).toEqual([
      "X-CC-Action: transfer",
      `X-CC-Agent-UUID: ${to.uuid}`,
      "X-CC-Agent: 1002",
      `X-CC-Target-UUID: ${customer.uuid}`,
      "X-CC-Queue: support",
    ]);
    // The customer's data goes with the customer: the new agent's phone gets it as a header.
    expect(to.variables.get("sip_h_X-IVR-Account")).toBe("100234");
    expect(f.sw.hears(customer)).toEqual(["ringback"]);
    expect(stateOf("1002")).toMatchObject({
      callstate: "RINGING",
      agent_uuid: to.uuid,
      call: { kind: "handover", queue: "support", cid_number: "5550100" },
    });

    // Told when it answers: mod_callcenter's bridge-agent-start with the member's headers and the agent's leg.
    expect(f.take()).toEqual([]);
    to.remoteAnswer();
    expect(f.events).toEqual([
      expect.objectContaining({
        "CC-Action": "bridge-agent-start",
        "CC-Agent": "1002",
        "CC-Queue": "support",
        "CC-Agent-UUID": to.uuid,
        "CC-Member-UUID": expect.any(String),
        "CC-Member-Session-UUID": customer.uuid,
        "CC-Member-CID-Name": customer.callerIdName,
        "CC-Member-CID-Number": "5550100",
        "CC-Member-Joined-Time": expect.stringMatching(/^\d+$/),
        "CC-Agent-Answered-Time": expect.stringMatching(/^\d+$/),
      }),
    ]);
    f.take();
    expect(f.sw.hears(customer)).toEqual([to.uuid]);
    expect(stateOf("1002")).toMatchObject({
      callstate: "TALKING",
      call: { kind: "handover", customer_uuid: customer.uuid },
    });
    expect(await f.run("agent2", "ccHold", { callID: to.uuid })).toEqual(ok);
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(stateOf("1002").callstate).toBe("HOLD");
  });

  it("a leg nobody answers sends the customer back to its queue, with no wrap-up for the agent", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1002" });
    legTo("1002").hangup("NO_ANSWER");
    expect(f.sw.transfers.map((t) => [t.channel.uuid, t.destination])).toEqual([[customer.uuid, "support"]]);
    expect(stateOf("1002")).toMatchObject({ call: null, wrap_up_until: "" });
  });

  it("the customer hanging up while the agent's phone rings cancels it", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1002" });
    const to = legTo("1002");
    customer.hangup();
    expect(to.hangupCause).toBe("ORIGINATOR_CANCEL");
    expect(stateOf("1002").call).toBeNull();
  });

  it("refuses an agent already in a call, a group that is no queue and the agent itself, changing nothing", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    f.ready("1004");
    await f.answeredCall("sales", "1004");
    expect(await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1004" })).toEqual({
      code: 500,
      message: "agent 1004 is already in a call",
    });
    expect(await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "billing.1002" })).toEqual({
      code: 404,
      message: "group 'billing' not found",
    });
    expect((await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1001" })).code).toBe(400);
    expect(leg.state).toBe("answered");
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(f.sw.all.filter((c) => c.destinationNumber === "1002")).toEqual([]);
  });

  it("the receiving agent's wrap-up time holds its next offer back, as after its own queue call", async () => {
    f.setAgentInfo("1002", { wrap_up_time: "30" });
    f.ready("1001");
    const [, leg] = await f.answeredCall("support", "1001");
    f.cc.setStatus(f.cc.agent("1001")!, "On Break");
    f.ready("1002");
    await f.run("agent1", "ccTransfer", { callID: leg.uuid, destNumber: "1002" });
    const to = legTo("1002");
    to.remoteAnswer();
    to.hangup();
    await settle();
    expect(stateOf("1002").wrap_up_until).not.toBe("");

    await f.customer("support");
    expect(f.ringing("1002")).toEqual([]);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(f.ringing("1002")).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(f.ringing("1002")).toHaveLength(1);
  });
});

describe("consult", () => {
  async function consulting() {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    customer.variables.set("sip_h_X-IVR-Account", "100234");
    expect(await f.run("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID: leg.uuid })).toEqual(ok);
    const target = legTo("1002");
    return { customer, leg, target };
  }

  it("the customer hears music while the agent hears the target ring, then talks to it", async () => {
    const { customer, leg, target } = await consulting();
    // The one consulted may be handed the customer: it has the customer's data from the first ring.
    expect(target.variables.get("sip_h_X-IVR-Account")).toBe("100234");
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(f.sw.hears(leg)).toEqual(["ringback"]);
    expect(target.callerIdNumber).toBe("1001");
    target.remoteAnswer();
    expect(f.sw.hears(leg)).toEqual([target.uuid]);
    expect(f.sw.hears(target)).toEqual([leg.uuid]);
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(stateOf("1001")).toMatchObject({
      callstate: "CONSULTING",
      call: { consult: { uuid: target.uuid, target: "1002", answered: true } },
    });
  });

  it("the target hangs up: the agent is back with the customer", async () => {
    const { customer, leg, target } = await consulting();
    target.remoteAnswer();
    target.hangup();
    expect(leg.state).toBe("answered");
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(f.sw.hears(leg)).toEqual([customer.uuid]);
    expect(stateOf("1001").callstate).toBe("TALKING");
  });

  it("the agent hangs up: the target gets the customer and the agent's queue call ends", async () => {
    const { customer, leg, target } = await consulting();
    target.remoteAnswer();
    f.take();
    leg.hangup();
    expect(customer.state).toBe("answered");
    expect(f.sw.hears(customer)).toEqual([target.uuid]);
    expect(f.sw.hears(target)).toEqual([customer.uuid]);
    // The target agent is told at once whom it talks to (bridge-agent-start), and agent_state shows it.
    expect(f.take()).toEqual([
      "bridge-agent-end 1001 NORMAL_CLEARING",
      "member-queue-end support Terminated",
      "agent-state-change 1001 Waiting",
      "bridge-agent-start 1002",
    ]);
    expect(stateOf("1002")).toMatchObject({
      callstate: "TALKING",
      call: { kind: "handover", cid_number: "5550100", customer_uuid: customer.uuid },
    });
    // The customer of a queue is a queue call for the target too: its bridge ends, its wrap-up time follows.
    target.hangup();
    expect(f.take()).toEqual(["bridge-agent-end 1002 NORMAL_CLEARING"]);
    expect(stateOf("1002")).toMatchObject({ call: null, wrap_up_until: expect.stringMatching(/^\d{4}-/) });
  });

  it("the agent hangs up while the target still rings: the target gets the customer on answer", async () => {
    const { customer, leg, target } = await consulting();
    leg.hangup();
    expect(f.sw.hears(customer)).toEqual(["music"]);
    target.remoteAnswer();
    expect(f.sw.hears(customer)).toEqual([target.uuid]);
  });

  it("a consultation the agent takes back after a reload goes on: the new leg talks to the target while the customer hears music", async () => {
    const { customer, leg, target } = await consulting();
    target.remoteAnswer();
    const back = await takeBack(leg);
    expect(f.sw.hears(back)).toEqual([target.uuid]);
    expect(f.sw.hears(target)).toEqual([back.uuid]);
    expect(f.sw.hears(customer)).toEqual(["music"]);
    expect(stateOf("1001")).toMatchObject({
      callstate: "CONSULTING",
      agent_uuid: back.uuid,
      call: { consult: { uuid: target.uuid, answered: true } },
    });
    // The consultation ends as any does, on the new leg.
    expect(await f.run("agent1", "ccCancelConsult", { callID: back.uuid })).toEqual(ok);
    expect(f.sw.hears(customer)).toEqual([back.uuid]);
  });

  it("taken back while the target still rings, the new leg hears it ring, then talks to it", async () => {
    const { customer, leg, target } = await consulting();
    const back = await takeBack(leg);
    expect(f.sw.hears(back)).toEqual(["ringback"]);
    target.remoteAnswer();
    expect(f.sw.hears(back)).toEqual([target.uuid]);
    expect(f.sw.hears(customer)).toEqual(["music"]);
  });

  it("ccCancelConsult: the target's leg ends and the agent is back with the customer", async () => {
    const { customer, leg, target } = await consulting();
    target.remoteAnswer();
    expect(await f.run("agent1", "ccCancelConsult", { callID: leg.uuid })).toEqual(ok);
    expect(target.state).toBe("hungup");
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(await f.run("agent1", "ccCancelConsult", { callID: leg.uuid })).toEqual({
      code: 500,
      message: `call ${leg.uuid} has no consultation in progress`,
    });
  });

  it("consults an outside number with destAgent PSTN", async () => {
    f.ready("1001");
    const [, leg] = await f.answeredCall("support", "1001");
    expect(
      await f.run("agent1", "ccConsult", { agent: "1001", destAgent: "PSTN", destExtn: "5550777", callID: leg.uuid }),
    ).toEqual(ok);
    expect(legTo("5550777").kind).toBe("sim");
  });
});

describe("supervision", () => {
  async function supervisedCall() {
    f.ready("1001");
    f.cc.signIn(f.cc.agent("1010")!, "1010", "support");
    return f.answeredCall("support", "1001");
  }

  it("ccMonitor: the supervisor hears both sides and neither hears the supervisor", async () => {
    const [customer, leg] = await supervisedCall();
    const res = await f.run("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: leg.uuid,
    });
    expect(res).toEqual({ ...ok, data: { uuid: expect.any(String), agent_told: false } });
    const monitor = legTo("1010");
    expect(monitor.originate!.options.autoAnswer).toBe(true);
    monitor.remoteAnswer();
    expect(f.sw.hears(monitor).sort()).toEqual([customer.uuid, leg.uuid].sort());
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(f.sw.hears(leg)).toEqual([customer.uuid]);
    expect(stateOf("1010").callstate).toBe("MONITORING");
  });

  it("ccThreeWay: the supervisor joins and all three hear each other", async () => {
    const [customer, leg] = await supervisedCall();
    expect(
      await f.run("supervisor", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1010", destExtn: "1010" }),
    ).toMatchObject(ok);
    const third = legTo("1010");
    // The supervisor named its own phone: barging in, it answers by itself.
    expect(third.originate!.options.autoAnswer).toBe(true);
    third.remoteAnswer();
    expect(f.sw.hears(third).sort()).toEqual([customer.uuid, leg.uuid].sort());
    expect(f.sw.hears(customer).sort()).toEqual([leg.uuid, third.uuid].sort());
    expect(f.sw.hears(leg).sort()).toEqual([customer.uuid, third.uuid].sort());
  });

  it("ccIntercept after ccMonitor: the supervisor and the customer talk, the agent's leg ends as picked off", async () => {
    const [customer, leg] = await supervisedCall();
    await f.run("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
    const monitor = legTo("1010");
    monitor.remoteAnswer();
    f.take();
    expect(
      await f.run("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid }),
    ).toEqual(ok);
    expect(leg.hangupCause).toBe("PICKED_OFF");
    expect(monitor.state).toBe("answered");
    expect(f.sw.hears(customer)).toEqual([monitor.uuid]);
    expect(f.sw.hears(monitor)).toEqual([customer.uuid]);
    expect(f.take()).toEqual([
      "bridge-agent-end 1001 PICKED_OFF",
      "member-queue-end support Terminated",
      "agent-state-change 1001 Waiting",
      "bridge-agent-start 1010",
    ]);
    expect(stateOf("1010")).toMatchObject({ callstate: "TALKING", call: { cid_number: "5550100" } });
  });

  it("ccIntercept without monitoring first calls the supervisor's phone, then takes the customer", async () => {
    const [customer, leg] = await supervisedCall();
    await f.run("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
    const interceptor = legTo("1010");
    expect(leg.state).toBe("answered");
    interceptor.remoteAnswer();
    expect(leg.hangupCause).toBe("PICKED_OFF");
    expect(f.sw.hears(customer)).toEqual([interceptor.uuid]);
  });

  it("ccThreeWay by the agent itself: the third party's phone rings like any call, then all three hear each other", async () => {
    const [customer, leg] = await supervisedCall();
    f.ready("1002");
    expect(await f.run("agent1", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1002" })).toMatchObject(
      ok,
    );
    const third = legTo("1002");
    expect(third.originate!.options.autoAnswer).toBe(false);
    expect(third.callerIdNumber).toBe("1001");
    third.remoteAnswer();
    expect(f.sw.hears(customer).sort()).toEqual([leg.uuid, third.uuid].sort());
    expect(f.sw.hears(leg).sort()).toEqual([customer.uuid, third.uuid].sort());
    // Not the agent's own phone: it is in the call already.
    expect((await f.run("agent1", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1001" })).code).toBe(
      400,
    );
  });

  it("a party the agent added, and a supervisor listening, stay in the call when the agent takes it back after a reload", async () => {
    const [customer, leg] = await supervisedCall();
    f.ready("1002");
    await f.run("agent1", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1002" });
    const third = legTo("1002");
    third.remoteAnswer();
    await f.run("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
    const monitor = legTo("1010");
    monitor.remoteAnswer();

    const back = await takeBack(leg);
    expect(third.state).toBe("answered");
    expect(monitor.state).toBe("answered");
    expect(f.sw.hears(customer).sort()).toEqual([back.uuid, third.uuid].sort());
    expect(f.sw.hears(back).sort()).toEqual([customer.uuid, third.uuid].sort());
    expect(f.sw.hears(monitor).sort()).toEqual([customer.uuid, back.uuid].sort());
    expect(stateOf("1010").callstate).toBe("MONITORING");
    // They still end with the call.
    back.hangup();
    await settle();
    expect([third.state, monitor.state]).toEqual(["hungup", "hungup"]);
  });

  it("an agent may not monitor, intercept or join another agent's call", async () => {
    const [, leg] = await supervisedCall();
    f.ready("1002");
    for (const [func, b] of [
      ["ccMonitor", { agent: "1002", destAgent: "1001", destUUID: leg.uuid }],
      ["ccIntercept", { agent: "1002", destAgent: "1001", destUUID: leg.uuid }],
      ["ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1002" }],
    ] as const) {
      const res = await f.run("agent2", func, b);
      expect(res.code).toBe(403);
      expect(res.message).toMatch(/^no permission/);
    }
    expect(f.sw.all.filter((c) => c.destinationNumber === "1002")).toEqual([]);
  });

  it("monitors from an outside number with agent PSTN", async () => {
    const [, leg] = await supervisedCall();
    expect(
      await f.run("supervisor", "ccMonitor", { agent: "PSTN", extn: "5550999", destAgent: "1001", destUUID: leg.uuid }),
    ).toMatchObject(ok);
    expect(legTo("5550999").kind).toBe("sim");
  });

  it("the monitoring agent must be signed in", async () => {
    const [, leg] = await supervisedCall();
    f.cc.setStatus(f.cc.agent("1010")!, "Logged Out");
    const res = await f.run("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: leg.uuid,
    });
    expect(res.code).toBe(500);
    expect(res.message).toMatch(/not signed in/);
  });

  it("the keys of FreeSWITCH's eavesdrop on the monitor leg switch who hears the supervisor, dropping nobody", async () => {
    const [customer, leg] = await supervisedCall();
    await f.run("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
    const monitor = legTo("1010");
    monitor.remoteAnswer();
    const whoHears = () =>
      [customer, leg]
        .filter((ch) => f.sw.hears(ch).includes(monitor.uuid))
        .map((ch) => (ch === leg ? "agent" : "customer"));
    const press = (digit: string) => monitor.emit("dtmf", digit, "inband");

    expect(whoHears()).toEqual([]);
    press("2");
    expect(whoHears()).toEqual(["agent"]);
    expect(stateOf("1010")).toMatchObject({ callstate: "MONITORING", call: { kind: "monitor" } });
    press("1");
    expect(whoHears()).toEqual(["customer"]);
    press("3");
    expect(whoHears()).toEqual(["customer", "agent"]);
    expect(stateOf("1010")).toMatchObject({ callstate: "TALKING", call: { kind: "monitor" } });
    press("9");
    expect(whoHears()).toEqual(["customer", "agent"]);
    press("0");
    expect(whoHears()).toEqual([]);
    expect(stateOf("1010").callstate).toBe("MONITORING");
    for (const ch of [customer, leg, monitor]) expect(ch.state).toBe("answered");
    expect(f.sw.hears(monitor).sort()).toEqual([customer.uuid, leg.uuid].sort());
  });

  it("does not tell the agent by default: no event, nothing in its agent_state", async () => {
    const [, leg] = await supervisedCall();
    await f.run("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
    legTo("1010").remoteAnswer();
    legTo("1010").emit("dtmf", "2", "inband");
    expect(stateOf("1001")).not.toHaveProperty("supervision");
    legTo("1010").hangup("NORMAL_CLEARING");
    expect(f.take().filter((l) => l.startsWith("agent-supervision"))).toEqual([]);
  });

  it("tells the agent, when the platform is set to, what the supervisor does on its call and when it leaves", async () => {
    f.close();
    f = new CallCenterFixture({ tellAgents: true });
    const [, leg] = await supervisedCall();
    f.take();
    const res = await f.run("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: leg.uuid,
    });
    expect(res).toEqual({ ...ok, data: { uuid: expect.any(String), agent_told: true } });
    // Ringing at the supervisor's phone, nobody listens yet.
    expect(f.take()).toEqual([]);
    expect(stateOf("1001").supervision).toBeNull();
    const monitor = legTo("1010");
    monitor.remoteAnswer();
    expect(f.take()).toEqual(["agent-supervision 1001 listen by 1010"]);
    expect(f.events).toEqual([]);
    expect(stateOf("1001").supervision).toEqual({ mode: "listen", by: "1010", by_name: "Sam Supervisor" });
    for (const digit of ["2", "1", "3", "3", "0"]) monitor.emit("dtmf", digit, "inband");
    expect(f.take()).toEqual(
      ["whisper", "whisper-partner", "three-way", "listen"].map((m) => `agent-supervision 1001 ${m} by 1010`),
    );
    monitor.hangup("NORMAL_CLEARING");
    expect(f.take()).toEqual(["agent-supervision 1001 none by 1010"]);
    expect(stateOf("1001").supervision).toBeNull();
    // Barging in from idle (ccThreeWay naming the supervisor's own phone) is told too.
    expect(
      await f.run("supervisor", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1010", destExtn: "1010" }),
    ).toEqual({ ...ok, data: { uuid: expect.any(String), agent_told: true } });
    legTo("1010").remoteAnswer();
    const [barge] = f.events.splice(0);
    // It names the agent's call and no queue: the queue's other agents do not get it.
    expect(barge).toMatchObject({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1001",
      "CC-Agent-UUID": leg.uuid,
      "CC-Supervision-Mode": "three-way",
      "CC-Supervisor-Name": "Sam Supervisor",
    });
    expect(barge).not.toHaveProperty("CC-Queue");
  });

  it("does not tell an agent about a party it brought into its own call itself", async () => {
    f.close();
    f = new CallCenterFixture({ tellAgents: true });
    const [, leg] = await supervisedCall();
    f.take();
    expect(
      await f.run("agent1", "ccThreeWay", { agent: "1001", callID: leg.uuid, destAgent: "1002", destExtn: "1002" }),
    ).toEqual({ ...ok, data: { uuid: expect.any(String) } });
    legTo("1002").remoteAnswer();
    expect(f.take()).toEqual([]);
    expect(stateOf("1001").supervision).toBeNull();
  });

  it("ccIntercept works for every call an agent can have: click-to-dial, a transfer received, a consultation", async () => {
    f.cc.signIn(f.cc.agent("1010")!, "1010", "support");
    const intercepted = async (leg: FakeChannel, customer: FakeChannel, monitorFirst: boolean) => {
      if (monitorFirst) {
        await f.run("supervisor", "ccMonitor", { agent: "1010", extn: "1010", destAgent: "1001", destUUID: leg.uuid });
        legTo("1010").remoteAnswer();
      }
      expect(await f.run("supervisor", "ccIntercept", { agent: "1010", extn: "1010", destUUID: leg.uuid })).toEqual(ok);
      const supervisor = legTo("1010");
      if (!monitorFirst) supervisor.remoteAnswer();
      await settle();
      expect(leg.hangupCause).toBe("PICKED_OFF");
      expect(customer.state).toBe("answered");
      expect(f.sw.hears(customer)).toEqual([supervisor.uuid]);
      expect(f.sw.hears(supervisor)).toEqual([customer.uuid]);
      expect(stateOf("1010")).toMatchObject({
        callstate: "TALKING",
        agent_uuid: supervisor.uuid,
        call: { customer_uuid: customer.uuid },
      });
      supervisor.hangup();
      await settle();
      expect(stateOf("1010")).toMatchObject({ callstate: "IDLE", call: null });
    };

    // Click-to-dial, monitored first and not.
    for (const monitorFirst of [true, false]) {
      f.ready("1001");
      const res = await f.run("agent1", "ccDial", { agent: "1001", extn: "1001", destNumber: "5550199" });
      const leg = f.sw.channel((res.data as { callID: string }).callID)!;
      leg.remoteAnswer();
      await settle();
      const destination = legTo("5550199");
      destination.remoteAnswer();
      await settle();
      await intercepted(leg, destination, monitorFirst);
    }

    // 1001 consulting 1002 about a queue call.
    f.ready("1001");
    const [caller, leg] = await f.answeredCall("support", "1001");
    await f.run("agent1", "ccConsult", { agent: "1001", destAgent: "1002", callID: leg.uuid });
    const target = legTo("1002");
    target.remoteAnswer();
    await intercepted(leg, caller, false);
    expect(target.state).toBe("hungup");
    // A customer transferred to 1001 by 1002.
    f.cc.setStatus(f.cc.agent("1001")!, "On Break");
    f.ready("1002");
    const [customer, first] = await f.answeredCall("support", "1002");
    await f.run("agent2", "ccTransfer", { callID: first.uuid, destNumber: "support.1001" });
    const received = legTo("1001");
    received.remoteAnswer();
    await settle();
    expect(stateOf("1001").call).toMatchObject({ kind: "handover" });
    await intercepted(received, customer, true);
  });

  it("the listener's leg ends with the call it listens to", async () => {
    const [customer, leg] = await supervisedCall();
    await f.run("supervisor", "ccMonitor", { agent: "1010", destAgent: "1001", destUUID: leg.uuid });
    const monitor = legTo("1010");
    monitor.remoteAnswer();
    customer.hangup();
    expect(monitor.state).toBe("hungup");
  });
});

describe("ccAnswer and ccKill", () => {
  it("ccAnswer asks the ringing phone to answer (NOTIFY Event: talk)", async () => {
    f.ready("1001");
    await f.customer("support");
    const leg = f.ringingAt("1001");
    expect(await f.run("agent1", "ccAnswer", { destUUID: leg.uuid })).toEqual(ok);
    expect(f.sw.phoneEvents.map((e) => [e.channel.uuid, e.event])).toEqual([[leg.uuid, "talk"]]);
  });

  it("ccAnswer refuses a call that is not ringing", async () => {
    f.ready("1001");
    const [, leg] = await f.answeredCall("support", "1001");
    expect(await f.run("agent1", "ccAnswer", { destUUID: leg.uuid })).toEqual({
      code: 500,
      message: `call ${leg.uuid} is not ringing`,
    });
  });

  it("ccKill ends a leg of the agent's call", async () => {
    f.ready("1001");
    const [customer, leg] = await f.answeredCall("support", "1001");
    expect(await f.run("agent1", "ccKill", { destUUID: customer.uuid })).toEqual(ok);
    expect(customer.state).toBe("hungup");
    expect(leg.state).toBe("hungup");
  });

  it("an agent may not kill another agent's call", async () => {
    f.ready("1001");
    const [customer] = await f.answeredCall("support", "1001");
    const res = await f.run("agent2", "ccKill", { destUUID: customer.uuid });
    expect(res.code).toBe(403);
    expect(customer.state).toBe("answered");
  });
});
