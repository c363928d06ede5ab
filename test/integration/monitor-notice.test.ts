import { afterAll, describe, expect, it } from "vitest";
import type { AgentStateRecord } from "../../platform/cc/agent-state-record";
import { FakeSwitch } from "../../platform/cc/testing/fake-switch";
import { DEMO_DOMAIN, TestPlatform } from "./harness";
import { RpcClient } from "./rpc-client";

/**
 * Whether an agent is told that a supervisor listens: the platform's `tellMonitoredAgents`
 * setting (off by default), over the real event channel and REST. The soft-switch is the call
 * center's in-memory one: who hears whom is proven with tones in cc-media.test.ts.
 */
const open: { platform: TestPlatform; clients: RpcClient[] }[] = [];
afterAll(async () => {
  for (const o of open) {
    for (const c of o.clients) c.close();
    await o.platform.close();
  }
});

async function callCenter(tellMonitoredAgents?: boolean) {
  const sw = new FakeSwitch();
  for (const extn of ["1001", "1002", "1010"]) sw.registered.add(extn);
  const platform = await TestPlatform.start(tellMonitoredAgents === undefined ? {} : { tellMonitoredAgents }, {
    switch: sw,
  });
  const clients: RpcClient[] = [];
  open.push({ platform, clients });
  const rest = async (login: string, func: string, body: Record<string, unknown>) =>
    (
      await platform.call<{ code: number; message: string; data?: Record<string, unknown> }>(
        "POST",
        `/api/cc/ccc/${func}`,
        { token: await platform.token(login), body },
      )
    ).body;
  /** An agent's event channel, subscribed to every call-center event it may see. */
  const channel = async (login: string, extn: string) => {
    const c = await RpcClient.connect(platform.url);
    clients.push(c);
    expect((await c.login(await platform.token(login), `${extn}@${DEMO_DOMAIN}`)).result).toMatchObject({
      message: "logged in",
    });
    await c.subscribe("FSevent.custom::callcenter::info");
    return c;
  };
  const ownState = async (login: string, extn: string) =>
    (
      await platform.call<AgentStateRecord[]>("GET", "/api/cc/agent_state", { token: await platform.token(login) })
    ).body.find((r) => r.agent_id === extn)!;
  const supervision = (c: RpcClient) =>
    c
      .events()
      .filter((e) => e.data["CC-Action"] === "agent-supervision")
      .map((e) => e.data);

  // Alice (1001) answers a queue call; Bob (1002, same queue) and the supervisor (1010) are signed in.
  const alice = await channel("agent1", "1001");
  const bob = await channel("agent2", "1002");
  for (const [login, extn] of [
    ["agent1", "1001"],
    ["agent2", "1002"],
    ["supervisor", "1010"],
  ] as const) {
    expect(await rest(login, "ccLogin", { agent: extn, extn, queue: "support" })).toMatchObject({ code: 200 });
  }
  await rest("agent2", "ccGoBreak", { agent: "1002" });
  await rest("agent1", "ccGoReady", { agent: "1001" });
  await sw.dial("support", { name: "Carla Customer", number: "5550100" });
  const leg = await alice.until(() => sw.all.find((ch) => ch.extension === "1001" && ch.state === "ringing"));
  leg.remoteAnswer();
  await alice.until(() => alice.ccLog().includes("bridge-agent-start 1001"));

  const monitor = async () => {
    const res = await rest("supervisor", "ccMonitor", {
      agent: "1010",
      extn: "1010",
      destAgent: "1001",
      destUUID: leg.uuid,
    });
    expect(res).toMatchObject({ code: 200 });
    const listening = sw.all.find((ch) => ch.extension === "1010" && ch.state === "ringing")!;
    listening.remoteAnswer();
    return { res, listening };
  };
  return { alice, bob, leg, rest, monitor, ownState, supervision };
}

describe("telling an agent that a supervisor listens", () => {
  it("is off by default: the supervisor hears that the agent is not told, and the agent gets no event and no field", async () => {
    const { alice, leg, monitor, ownState, supervision } = await callCenter();
    const { res, listening } = await monitor();
    expect(res.data).toEqual({ uuid: listening.uuid, agent_told: false });
    listening.emit("dtmf", "2", "inband");
    expect(await ownState("agent1", "1001")).not.toHaveProperty("supervision");
    listening.hangup();
    leg.hangup();
    // Events come in order: by the end of the call a notice would have come.
    await alice.until(() => alice.ccLog().some((l) => l.startsWith("bridge-agent-end 1001")));
    expect(supervision(alice)).toEqual([]);
  });

  it("when the platform is set to, tells the monitored agent alone, on its event channel and in its agent_state, until the supervisor leaves", async () => {
    const { alice, bob, leg, rest, monitor, ownState, supervision } = await callCenter(true);
    const { res, listening } = await monitor();
    expect(res.data).toEqual({ uuid: listening.uuid, agent_told: true });
    await alice.until(() => supervision(alice).length === 1);
    expect(supervision(alice)[0]).toMatchObject({
      "CC-Agent": "1001",
      "CC-Agent-UUID": leg.uuid,
      "CC-Supervision-Mode": "listen",
      "CC-Supervisor": "1010",
      "CC-Supervisor-Name": "Sam Supervisor",
    });
    expect((await ownState("agent1", "1001")).supervision).toEqual({
      mode: "listen",
      by: "1010",
      by_name: "Sam Supervisor",
    });

    // The eavesdrop keys: the agent hears the supervisor whisper, and is told.
    listening.emit("dtmf", "2", "inband");
    await alice.until(() => supervision(alice).length === 2);
    expect((await ownState("agent1", "1001")).supervision).toMatchObject({ mode: "whisper" });

    listening.hangup();
    await alice.until(() => supervision(alice).length === 3);
    expect(supervision(alice).map((e) => e["CC-Supervision-Mode"])).toEqual(["listen", "whisper", "none"]);
    expect((await ownState("agent1", "1001")).supervision).toBeNull();

    // Another agent of the same queue is not told: its own next event comes after any it would have had.
    expect(await rest("agent2", "ccGoReady", { agent: "1002" })).toMatchObject({ code: 200 });
    await bob.until(() => bob.ccLog().includes("agent-status-change 1002 Available"));
    expect(supervision(bob)).toEqual([]);
    leg.hangup();
  });
});
