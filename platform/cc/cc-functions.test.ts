import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { timestamp } from "../store/db";
import { CallCenterFixture } from "./testing/fixture";

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

describe("signing in and status", () => {
  it("ccLogin signs the agent in at an extension in a queue, On Break until ready", async () => {
    f.cc.setStatus(f.cc.agent("1001")!, "Logged Out");
    f.take();
    expect(await f.run("agent1", "ccLogin", { agent: "1001", extn: "1001", queue: "support" })).toEqual(ok);
    expect(f.cc.agent("1001")).toMatchObject({ status: "On Break", contact: "1001", group: "support" });
    expect(f.take()).toEqual(["agent-status-change 1001 On Break"]);
  });

  it("ccGoReady, ccGoBreak with its reason, ccLogout", async () => {
    await f.run("agent1", "ccLogin", { agent: "1001", extn: "1001", queue: "support" });
    f.take();
    expect(await f.run("agent1", "ccGoReady", { agent: "1001", queue: "support" })).toEqual(ok);
    expect(await f.run("agent1", "ccGoBreak", { agent: "1001", queue: "support", reason: "lunch" })).toEqual(ok);
    expect(f.cc.agent("1001")).toMatchObject({ status: "On Break", breakReason: "lunch" });
    expect(await f.run("agent1", "ccLogout", { agent: "1001", queue: "support" })).toEqual(ok);
    expect(f.take()).toEqual([
      "agent-status-change 1001 Available",
      "agent-status-change 1001 On Break (lunch)",
      "agent-status-change 1001 Logged Out",
    ]);
    expect(f.agentInfo("1001").status).toBe("Out");
  });

  it("ccGoReady with onDemand makes the agent Available (On Demand)", async () => {
    expect(await f.run("agent1", "ccGoReady", { agent: "1001", queue: "support", onDemand: true })).toEqual(ok);
    expect(f.cc.agent("1001")!.status).toBe("Available (On Demand)");
  });

  it("accepts the agent as <group>.<number>, the group being a queue", async () => {
    expect(await f.run("agent1", "ccGoReady", { agent: "support.1001", queue: "support" })).toEqual(ok);
    expect(f.cc.agent("1001")!.status).toBe("Available");
    const res = await f.run("agent1", "ccGoReady", { agent: "nosuch.1001" });
    expect(res).toEqual({ code: 404, message: "group 'nosuch' not found" });
  });

  it("refuses to make a signed-out agent ready", async () => {
    f.cc.setStatus(f.cc.agent("1001")!, "Logged Out");
    const res = await f.run("agent1", "ccGoReady", { agent: "1001", queue: "support" });
    expect(res.code).toBe(500);
    expect(res.message).toMatch(/not signed in/);
    expect(f.cc.agent("1001")!.status).toBe("Logged Out");
  });

  it("signs in only at one's own extension, and not at one another agent uses", async () => {
    const other = await f.run("agent1", "ccLogin", { agent: "1001", extn: "1002", queue: "support" });
    expect(other.code).toBe(403);
    await f.run("agent2", "ccLogin", { agent: "1002", extn: "1002", queue: "support" });
    const taken = await f.run("admin", "ccLogin", { agent: "1001", extn: "1002", queue: "support" });
    expect(taken).toEqual({ code: 500, message: "extension 1002 is in use by agent 1002" });
    expect(f.cc.agent("1001")!.contact).toBe("1001");
  });

  it("lets a supervisor act on any agent, an agent only on itself", async () => {
    expect(await f.run("supervisor", "ccGoReady", { agent: "1002" })).toEqual(ok);
    const res = await f.run("agent1", "ccGoReady", { agent: "1002" });
    expect(res.code).toBe(403);
    expect(res.message).toMatch(/^no permission/);
    expect(f.cc.agent("1002")!.status).toBe("Available");
  });
});

describe("refusals change nothing", () => {
  it.each([
    ["ccLogin", { agent: "9999", extn: "1001", queue: "support" }, 404, "agent '9999' not found"],
    ["ccLogin", { agent: "1001", extn: "1001", queue: "nosuch" }, 404, "queue 'nosuch' not found"],
    ["ccLogin", { agent: "1001", extn: "1999", queue: "support" }, 404, "extension '1999' not found"],
    ["ccLogin", { agent: "1001", queue: "support" }, 400, "missing required field 'extn'"],
    [
      "ccLogin",
      { agent: "1001", extn: "1001", queue: "sales" },
      403,
      "no permission: queue sales does not list agent 1001",
    ],
    ["ccGoBreak", { agent: "1001", reason: 5 }, 400, "field 'reason' must be string"],
    ["ccGoReady", { agent: "1001", colour: "red" }, 400, "unknown field 'colour'"],
    ["ccGoReady", { agent: "1001", queue: "nosuch" }, 404, "queue 'nosuch' not found"],
    [
      "ccHold",
      { callID: "0b9b1c3e-0000-4000-8000-000000000000" },
      404,
      "call '0b9b1c3e-0000-4000-8000-000000000000' not found",
    ],
    ["ccTransfer", { callID: "x", destNumber: "1002" }, 404, "call 'x' not found"],
    ["ccKill", { destUUID: "nope" }, 404, "call 'nope' not found"],
    ["ccDial", { agent: "1001", destNumber: "55 01" }, 400, "field 'destNumber' has an invalid format"],
    ["ccFly", {}, 404, "unknown call-center function 'ccFly'"],
  ])("%s %j -> %i %s", async (func, body, code, message) => {
    const before = JSON.stringify({
      agents: f.cc.knownAgents().map((a) => [a.number, a.status, a.contact]),
      legs: f.sw.all.length,
    });
    f.take();
    expect(await f.run("agent1", func, body)).toEqual({ code, message });
    expect(f.take()).toEqual([]);
    expect(
      JSON.stringify({ agents: f.cc.knownAgents().map((a) => [a.number, a.status, a.contact]), legs: f.sw.all.length }),
    ).toBe(before);
  });

  it("takes numbers as numbers too (1001 as well as '1001')", async () => {
    expect(await f.run("agent1", "ccGoReady", { agent: 1001, queue: "support" })).toEqual(ok);
  });
});

describe("agent_state", () => {
  it("lists a queue's agents in XSwitch's vocabulary with mod_callcenter's values beside it", async () => {
    f.ready("1001");
    await f.run("agent2", "ccGoBreak", { agent: "1002", reason: "training" });
    const records = f.service.agentState("support", f.caller("agent1"));
    expect(records.map((r) => r.agent_id)).toEqual(["1001", "1002", "1003"]);
    expect(records[0]).toMatchObject({
      agent_id: "1001",
      extn: "1001",
      group_id: "support",
      queue_id: "1",
      agent_uuid: "",
      state: "READY",
      callstate: "IDLE",
      status: "Available",
      cc_state: "Waiting",
      call: null,
    });
    expect(records[1]).toMatchObject({ state: "UNREADY", status: "On Break", reason: "training" });
  });

  it("answers who the agent is talking to, with the uuids to act on", async () => {
    f.ready("1001");
    const customer = await f.customer("support", "Carla Customer", "5550100");
    const ringing = f.service.agentState("support", f.caller("agent1"))[0]!;
    const leg = f.ringingAt("1001");
    expect(ringing).toMatchObject({
      callstate: "RINGING",
      agent_uuid: leg.uuid,
      call: { cid_name: "Carla Customer", cid_number: "5550100" },
    });
    leg.remoteAnswer();
    await Promise.resolve();
    expect(f.service.agentState("support", f.caller("agent1"))[0]).toMatchObject({
      callstate: "TALKING",
      agent_uuid: leg.uuid,
      call: {
        uuid: leg.uuid,
        kind: "queue",
        queue: "support",
        customer_uuid: customer.uuid,
        member_uuid: customer.variables.get("cc_member_uuid"),
        cid_name: "Carla Customer",
        cid_number: "5550100",
        answered: true,
        held: false,
      },
    });
  });

  it("shows the wrap-up and delay ends while they run", async () => {
    f.setAgentInfo("1001", { wrap_up_time: "30" });
    f.ready("1001");
    const [customer] = await f.answeredCall("support", "1001");
    customer.hangup();
    expect(f.service.agentState("support", f.caller("agent1"))[0]!.wrap_up_until).toBe(
      timestamp(new Date(Date.now() + 30_000)),
    );
  });

  it("lets an agent read only the queues it is in; a supervisor reads all", () => {
    expect(() => f.service.agentState("sales", f.caller("agent1"))).toThrow(/no permission/);
    expect(f.service.agentState("sales", f.caller("supervisor")).map((r) => r.agent_id)).toEqual(["1002", "1004"]);
    expect(f.service.agentState(undefined, f.caller("agent1")).map((r) => r.agent_id)).toEqual(["1001"]);
    expect(() => f.service.agentState("nosuch", f.caller("admin"))).toThrow(/queue 'nosuch' not found/);
  });
});
