import { afterEach, describe, expect, it, vi } from "vitest";
import { createSessionStore, createSettingsStore, memoryStorage } from "../../session";
import { fakePlatform, json, type FakeUser } from "../../session/test-support/fake-platform";
import { addCall, createCallsStore, updateCall } from "../../softphone/calls-store";
import { testCall } from "../../softphone/testing/test-call";
import { CC } from "../queue-calls";
import { createSupervision } from "./supervision";
import { emptyWallboard, WallboardDraft, type WallboardAgent } from "./wallboard";
import { createWallboard } from "./wallboard-store";

const sam: FakeUser = { id: 2, login: "supervisor", password: "Agentbar@2026", name: "Sam Supervisor", extn: "1010", domain: "agentbar.local", authority: "supervisor" };

const alice: WallboardAgent = {
  number: "1001",
  name: "Alice Agent",
  extension: "1001",
  status: "Available",
  kind: "ready",
  reason: "",
  state: "In a queue call",
  callstate: "TALKING",
  call: { uuid: "leg-1001", number: "5550100", name: "Carla Customer", queue: "support", answeredAt: 1, kind: "queue", member: "m1" },
  statusSince: 0,
  statusSinceExact: true,
  noAnswerCount: 0,
  queues: ["support"],
  wrapUp: false,
};

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.useRealTimers();
});

async function setup() {
  const platform = fakePlatform([sam]);
  const asked: { func: string; body: Record<string, unknown> }[] = [];
  const calls = createCallsStore();
  platform.overrides.push(({ method, url, body }) => {
    const func = url.pathname.match(/^\/api\/cc\/ccc\/(\w+)$/)?.[1];
    if (method !== "POST" || !func) return undefined;
    asked.push({ func, body });
    // The platform calls the supervisor's phone, which answers by itself.
    if (func === "ccMonitor" || func === "ccThreeWay" || (func === "ccIntercept" && !calls.getState().calls.some((c) => c.state === "active"))) {
      const leg = `sup-${asked.length}`;
      queueMicrotask(() => {
        addCall(calls, testCall({ id: leg, state: "ringing", startedAt: Date.now(), autoAnswer: { decidedBy: "policy", afterSec: 0, answerAt: Date.now() }, context: { [CC.action]: func === "ccMonitor" ? "monitor" : "three-way", [CC.callId]: leg, [CC.customerUuid]: String(body.destUUID ?? body.callID) } }));
        updateCall(calls, leg, { state: "active", answeredAt: Date.now() });
      });
      return json(200, { code: 200, message: "success", data: { uuid: leg } });
    }
    return json(200, { code: 200, message: "success" });
  });
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({ settings, tabStorage: memoryStorage(), deviceStorage: device, fetch: platform.fetch, pageOrigin: "https://app.test" });
  await session.getState().signIn({ login: sam.login, password: sam.password, platformUrl: "https://pbx.example.com" });
  const feed = { store: { getState: () => ({ status: "off" as const, lastEventAt: 0 }), subscribe: () => () => {} }, subscribe: () => () => {}, dispose() {} };
  const wallboard = createWallboard({ session, feed: feed as never });
  const d = new WallboardDraft(emptyWallboard(0));
  d.setAgent(alice);
  d.setAgent({ ...alice, number: "1010", name: "Sam Supervisor", extension: "1010", status: "Logged Out", kind: "logged-out", call: null, queues: [] });
  wallboard.store.setState({ board: d.finish() });
  const dtmf: string[] = [];
  const hungUp: string[] = [];
  const phone = {
    callsStore: calls,
    sendDtmf: async (_id: string, tones: string, how?: string) => void dtmf.push(`${tones} ${how}`),
    hangup: async (id: string) => {
      hungUp.push(id);
      updateCall(calls, id, { state: "ended" });
    },
  };
  const supervision = createSupervision({ session, phone, wallboard: wallboard.store, confirmTimeoutMs: 1000 });
  cleanups.push(() => supervision.dispose(), () => wallboard.dispose());
  return { asked, dtmf, hungUp, calls, wallboard, supervision, s: () => supervision.store.getState(), a: supervision.actions };
}

describe("supervising a call", () => {
  it("monitors with ccMonitor (signing the supervisor in first), then switches by keys on the same leg: whisper 2, barge 3, listen 0", async () => {
    const t = await setup();
    await t.a.monitor("1001");
    expect(t.asked.map((x) => x.func)).toEqual(["ccLogin", "ccMonitor"]);
    expect(t.asked[0]!.body).toEqual({ agent: "1010", extn: "1010", queue: "support" });
    expect(t.asked[1]!.body).toEqual({ agent: "1010", extn: "1010", destAgent: "1001", destUUID: "leg-1001" });
    expect(t.s().current).toMatchObject({ agent: "1001", callUuid: "leg-1001", customer: "5550100", mode: "monitor", phoneCall: "sup-2" });

    await t.a.whisper("1001");
    await t.a.barge("1001");
    await t.a.monitor("1001");
    expect(t.dtmf).toEqual(["2 info", "3 info", "0 info"]);
    expect(t.asked).toHaveLength(2);
    expect(t.s().current).toMatchObject({ mode: "monitor", phoneCall: "sup-2" });
    expect(t.s().log.map((l) => `${l.by} ${l.command} ${l.agent} ${l.outcome}`).reverse()).toEqual([
      "supervisor monitor 1001 done",
      "supervisor whisper 1001 done",
      "supervisor barge 1001 done",
      "supervisor monitor 1001 done",
    ]);

    await t.a.stop();
    expect(t.hungUp).toEqual(["sup-2"]);
    expect(t.s().current).toBeNull();
  });

  it("whispers straight away: a monitor leg, then 2; barges straight away with ccThreeWay naming the supervisor's own phone", async () => {
    const t = await setup();
    await t.a.whisper("1001");
    expect(t.dtmf).toEqual(["2 info"]);
    expect(t.s().current).toMatchObject({ mode: "whisper" });
    // The leg ending (the call over) ends supervising.
    updateCall(t.calls, t.s().current!.phoneCall!, { state: "ended" });
    expect(t.s().current).toBeNull();

    await t.a.barge("1001");
    expect(t.asked.at(-1)).toEqual({ func: "ccThreeWay", body: { agent: "1001", callID: "leg-1001", destAgent: "1010", destExtn: "1010" } });
    expect(t.s().current).toMatchObject({ mode: "barge" });
  });

  it("intercepts on the monitor leg, after which the supervisor's call is an ordinary one with the customer", async () => {
    const t = await setup();
    await t.a.monitor("1001");
    await t.a.intercept("1001");
    expect(t.asked.at(-1)).toEqual({ func: "ccIntercept", body: { agent: "1010", extn: "1010", destAgent: "1001", destUUID: "leg-1001" } });
    expect(t.s().current).toBeNull();
    expect(t.hungUp).toEqual([]);
    expect(t.s().log[0]).toMatchObject({ command: "intercept", agent: "1001", agentName: "Alice Agent", detail: "5550100", outcome: "done" });
  });

  it("refuses to supervise an agent with no call, and records the failure", async () => {
    const t = await setup();
    const d = new WallboardDraft(t.wallboard.store.getState().board);
    d.patchAgent("1001", { call: null });
    t.wallboard.store.setState({ board: d.finish() });
    await expect(t.a.monitor("1001")).rejects.toMatchObject({ kind: "unknown-call", command: "monitor" });
    expect(t.s().error).toMatchObject({ kind: "unknown-call" });
    expect(t.s().log[0]).toMatchObject({ command: "monitor", outcome: "failed" });
    expect(t.asked).toEqual([]);
  });

  it("sets an agent's status and is done once the board shows it, not when the platform accepted it", async () => {
    const t = await setup();
    const asked = t.a.setAgentStatus("1001", { kind: "break", reason: "coaching" });
    await vi.waitFor(() => expect(t.asked.map((x) => x.func)).toEqual(["ccGoBreak"]));
    expect(t.asked[0]!.body).toEqual({ agent: "1001", reason: "coaching", queue: "support" });
    expect(t.s().pending).toEqual({ command: "agent-status", agent: "1001" });
    const d = new WallboardDraft(t.wallboard.store.getState().board);
    d.patchAgent("1001", { status: "On Break", kind: "break", reason: "coaching" });
    t.wallboard.store.setState({ board: d.finish() });
    await asked;
    expect(t.s().pending).toBeNull();

    // Never shown: not confirmed.
    await expect(t.a.setAgentStatus("1001", { kind: "ready" })).rejects.toMatchObject({ kind: "not-confirmed" });
  });
});
