import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallCenterFixture, settle } from "./testing/fixture";

let f: CallCenterFixture;

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T09:00:00Z") });
  f = new CallCenterFixture();
});
afterEach(() => {
  f.close();
  vi.useRealTimers();
});

async function advance(seconds: number) {
  await vi.advanceTimersByTimeAsync(seconds * 1000);
  await settle();
}

describe("a queue call", () => {
  it("rings the ready agent with the caller as From and the queue, member and callID in headers, then bridges them", async () => {
    f.ready("1001");
    f.take();
    const customer = await f.customer("support", "Carla Customer", "5550100");

    const leg = f.ringingAt("1001");
    expect(leg.callerIdName).toBe("Carla Customer");
    expect(leg.callerIdNumber).toBe("5550100");
    expect(leg.header("X-CC-Queue")).toBe("support");
    expect(leg.header("X-CC-Agent-UUID")).toBe(leg.uuid);
    expect(leg.header("X-CC-Member-UUID")).toBe(customer.variables.get("cc_member_uuid"));
    expect(leg.header("X-CC-Member-Session-UUID")).toBe(customer.uuid);
    expect(customer.state).toBe("answered");
    expect(f.sw.hears(customer)).toEqual(["music"]);

    leg.remoteAnswer();
    await settle();
    expect(f.sw.hears(customer)).toEqual([leg.uuid]);
    expect(f.sw.hears(leg)).toEqual([customer.uuid]);
    expect(f.take()).toEqual([
      "member-queue-start support",
      "members-count support 1",
      "agent-state-change 1001 Receiving",
      "agent-offering 1001",
      "bridge-agent-start 1001",
      "agent-state-change 1001 In a queue call",
      "members-count support 0",
    ]);

    customer.hangup();
    await settle();
    expect(leg.state).toBe("hungup");
    expect(f.take()).toEqual([
      "bridge-agent-end 1001 NORMAL_CLEARING",
      "member-queue-end support Terminated",
      "agent-state-change 1001 Waiting",
    ]);
    // The CDR of the caller's leg names its queue and agent.
    expect(customer.variables.get("cc_queue")).toBe("support");
    expect(customer.variables.get("cc_agent")).toBe("1001");
  });

  it("offers to the agent idle longest: the next caller goes to the other agent", async () => {
    f.setAgentInfo("1001", { wrap_up_time: "0" });
    f.ready("1001");
    await advance(1);
    f.ready("1002");
    const first = await f.customer("support");
    f.ringingAt("1001").remoteAnswer();
    first.hangup();
    await advance(1);

    await f.customer("support");
    expect(f.ringing("1001")).toEqual([]);
    expect(f.ringing("1002")).toHaveLength(1);
  });

  it("reaches a level 2 agent only when no level 1 agent may take the call", async () => {
    f.ready("1003");
    f.ready("1001");
    await f.customer("support");
    expect(f.ringing("1001")).toHaveLength(1);
    expect(f.ringing("1003")).toEqual([]);

    await f.customer("support");
    expect(f.ringing("1003")).toHaveLength(1);
  });

  it("counts the caller who hangs up while waiting as an abandoned member", async () => {
    const customer = await f.customer("support");
    f.take();
    customer.hangup();
    await settle();
    expect(f.take()).toEqual(["member-queue-end support Cancel BREAK_OUT", "members-count support 0"]);
    expect(customer.variables.get("cc_cause")).toBe("cancel");
    expect(f.cc.waiting("support")).toEqual([]);
  });

  it("stops ringing the agent when the caller hangs up, without counting it against the agent", async () => {
    f.ready("1001");
    const customer = await f.customer("support");
    const leg = f.ringingAt("1001");
    f.take();
    customer.hangup();
    await settle();
    expect(leg.hangupCause).toBe("ORIGINATOR_CANCEL");
    expect(f.take()).toEqual([
      "member-queue-end support Cancel BREAK_OUT",
      "bridge-agent-fail 1001 ORIGINATOR_CANCEL",
      "agent-state-change 1001 Waiting",
      "members-count support 0",
    ]);
    expect(f.cc.agent("1001")!.noAnswerCount).toBe(0);
    expect(f.cc.agent("1001")!.readyTime).toBe(0);
  });

  it("waits for an agent: a caller that arrives first is offered when an agent goes ready", async () => {
    await f.customer("support");
    expect(f.ringing("1001")).toEqual([]);
    f.ready("1001");
    await settle();
    expect(f.ringing("1001")).toHaveLength(1);
  });
});

describe("ring-all", () => {
  it("rings every ready agent of the queue; the first to answer gets the caller, the others see the call completed elsewhere", async () => {
    f.ready("1002");
    f.ready("1004");
    f.take();
    const customer = await f.customer("sales");
    const bob = f.ringingAt("1002");
    const dave = f.ringingAt("1004");

    dave.remoteAnswer();
    await settle();
    expect(bob.hangupCause).toBe("LOSE_RACE");
    expect(f.sw.hears(customer)).toEqual([dave.uuid]);
    const log = f.take();
    expect(log).toContain("bridge-agent-start 1004");
    expect(log).toContain("bridge-agent-fail 1002 LOSE_RACE");
    // Losing the race is no fault of the agent's: no delay, no no-answer count.
    expect(f.cc.agent("1002")!).toMatchObject({ state: "Waiting", noAnswerCount: 0, readyTime: 0 });
  });

  it("adds an agent that becomes ready while the caller is being offered", async () => {
    f.ready("1002");
    await f.customer("sales");
    expect(f.ringing("1002")).toHaveLength(1);
    f.ready("1004");
    await settle();
    expect(f.ringing("1004")).toHaveLength(1);
    expect(f.ringing("1002")).toHaveLength(1);
  });
});

describe("failed offers", () => {
  it("a rejected offer (603) delays the agent by reject_delay_time without counting a no-answer", async () => {
    f.setAgentInfo("1001", { reject_delay_time: "10" });
    f.ready("1001");
    await f.customer("support");
    f.ringingAt("1001").hangup("CALL_REJECTED");
    await settle();
    expect(f.cc.agent("1001")).toMatchObject({ status: "Available", state: "Waiting", noAnswerCount: 0 });

    expect(f.ringing("1001")).toEqual([]);
    await advance(9);
    expect(f.ringing("1001")).toEqual([]);
    await advance(1);
    expect(f.ringing("1001")).toHaveLength(1);
  });

  it("a busy phone (486) delays the agent by busy_delay_time", async () => {
    f.setAgentInfo("1001", { busy_delay_time: "20" });
    f.ready("1001");
    await f.customer("support");
    f.ringingAt("1001").hangup("USER_BUSY");
    await advance(19);
    expect(f.ringing("1001")).toEqual([]);
    await advance(1);
    expect(f.ringing("1001")).toHaveLength(1);
  });

  it("a 480 counts as no answer; max_no_answer of them put the agent On Break with an event", async () => {
    f.setAgentInfo("1001", { max_no_answer: "2", no_answer_delay_time: "5" });
    f.ready("1001");
    await f.customer("support");
    f.ringingAt("1001").hangup("NO_USER_RESPONSE");
    await settle();
    expect(f.cc.agent("1001")).toMatchObject({ status: "Available", noAnswerCount: 1 });

    await advance(5);
    const second = f.ringingAt("1001");
    f.take();
    second.hangup("NO_USER_RESPONSE");
    await settle();
    expect(f.take()).toEqual([
      "agent-max-no-answer 1001 2",
      "agent-status-change 1001 On Break (max-no-answer)",
      "bridge-agent-fail 1001 NO_USER_RESPONSE",
      "agent-state-change 1001 Waiting",
    ]);
    expect(f.cc.agent("1001")).toMatchObject({ status: "On Break", breakReason: "max-no-answer" });
    expect(f.agentInfo("1001").status).toBe("On Break");
    await advance(60);
    expect(f.ringing("1001")).toEqual([]);
  });

  it("an offer nobody answers ends after agent_info's timeout and counts as no answer", async () => {
    f.setAgentInfo("1001", { timeout: "15", no_answer_delay_time: "30" });
    f.ready("1001");
    await f.customer("support");
    const leg = f.ringingAt("1001");
    await advance(14);
    expect(leg.state).toBe("ringing");
    await advance(1);
    expect(leg.hangupCause).toBe("NO_ANSWER");
    expect(f.cc.agent("1001")!.noAnswerCount).toBe(1);
  });

  it("going Available again resets the no-answer count", async () => {
    f.setAgentInfo("1001", { max_no_answer: "3" });
    f.ready("1001");
    await f.customer("support");
    f.ringingAt("1001").hangup("NO_USER_RESPONSE");
    await settle();
    expect(f.cc.agent("1001")!.noAnswerCount).toBe(1);
    f.cc.setStatus(f.cc.agent("1001")!, "Available");
    expect(f.cc.agent("1001")!.noAnswerCount).toBe(0);
  });

  it("an agent whose phone is not registered is tried again after 5 seconds", async () => {
    f.sw.registered.delete("1001");
    f.ready("1001");
    await f.customer("support");
    await settle();
    expect(f.events.map((e) => e["CC-Hangup-Cause"]).filter(Boolean)).toEqual(["USER_NOT_REGISTERED"]);
    f.sw.registered.add("1001");
    await advance(4);
    expect(f.ringing("1001")).toEqual([]);
    await advance(1);
    expect(f.ringing("1001")).toHaveLength(1);
  });

  it("the caller goes on to the next agent when the first does not answer", async () => {
    f.ready("1001");
    f.ready("1002");
    await f.customer("support");
    f.ringingAt("1001").hangup("CALL_REJECTED");
    await settle();
    expect(f.ringing("1002")).toHaveLength(1);
  });
});

describe("status and state", () => {
  it("going On Break cancels an offer ringing at the agent (ORIGINATOR_CANCEL, no penalty) and keeps the reason", async () => {
    f.ready("1001");
    f.ready("1002");
    await f.customer("support");
    const leg = f.ringingAt("1001");
    f.take();
    f.cc.setStatus(f.cc.agent("1001")!, "On Break", "lunch");
    await settle();
    expect(leg.hangupCause).toBe("ORIGINATOR_CANCEL");
    expect(f.take()).toEqual([
      "agent-status-change 1001 On Break (lunch)",
      "bridge-agent-fail 1001 ORIGINATOR_CANCEL",
      "agent-state-change 1001 Waiting",
      "agent-state-change 1002 Receiving",
      "agent-offering 1002",
    ]);
    expect(f.cc.agent("1001")).toMatchObject({ breakReason: "lunch", noAnswerCount: 0, readyTime: 0 });
  });

  it("wrap_up_time delays the next offer after a queue call", async () => {
    f.setAgentInfo("1001", { wrap_up_time: "30" });
    f.ready("1001");
    const first = await f.customer("support");
    f.ringingAt("1001").remoteAnswer();
    await settle();
    first.hangup();
    await settle();

    await f.customer("support");
    expect(f.ringing("1001")).toEqual([]);
    await advance(29);
    expect(f.ringing("1001")).toEqual([]);
    await advance(1);
    expect(f.ringing("1001")).toHaveLength(1);
  });

  it("Available (On Demand) goes Idle after a call and takes no more calls until made ready again", async () => {
    f.setAgentInfo("1001", { wrap_up_time: "0" });
    f.ready("1001", "Available (On Demand)");
    const first = await f.customer("support");
    f.ringingAt("1001").remoteAnswer();
    await settle();
    first.hangup();
    await settle();
    expect(f.cc.agent("1001")!.state).toBe("Idle");

    await f.customer("support");
    await advance(5);
    expect(f.ringing("1001")).toEqual([]);
    f.cc.setStatus(f.cc.agent("1001")!, "Available (On Demand)");
    await settle();
    expect(f.ringing("1001")).toHaveLength(1);
  });

  it("keeps agent_info's status in step, in the spec's spelling", () => {
    const agent = f.ready("1001", "Available (On Demand)");
    expect(f.agentInfo("1001").status).toBe("Available(On Demand)");
    f.cc.setStatus(agent, "Logged Out");
    expect(f.agentInfo("1001").status).toBe("Out");
    expect(agent.group).toBe("");
  });

  it("skips an agent whose phone is in another call", async () => {
    f.ready("1001");
    f.ready("1002");
    const other = f.sw.originate({ extension: "1001" }, { callerIdName: "x", callerIdNumber: "1" });
    other.remoteAnswer();
    await f.customer("support");
    expect(f.ringing("1002")).toHaveLength(1);
  });
});
