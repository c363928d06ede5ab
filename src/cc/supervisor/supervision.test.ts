import { afterEach, describe, expect, it, vi } from "vitest";
import { createSessionStore, createSettingsStore, memoryStorage } from "../../session";
import { fakePlatform, json, type FakeUser } from "../../session/test-support/fake-platform";
import { addCall, createCallsStore, updateCall } from "../../softphone/calls-store";
import { testCall } from "../../softphone/testing/test-call";
import { statusKind } from "../agent-status";
import { ccCallOf, SUPERVISION } from "../cc-call";
import { CC } from "../queue-calls";
import { createActionLog, LOG_SIZE } from "./action-log";
import { createSupervision } from "./supervision";
import { emptyWallboard, WallboardDraft, type WallboardAgent } from "./wallboard";
import { createWallboard } from "./wallboard-store";

const sam: FakeUser = {
  id: 2,
  login: "supervisor",
  password: "Agentbar@2026",
  name: "Sam Supervisor",
  extn: "1010",
  domain: "agentbar.local",
  authority: "supervisor",
};

const alice: WallboardAgent = {
  number: "1001",
  name: "Alice Agent",
  extension: "1001",
  status: "Available",
  kind: "ready",
  reason: "",
  state: "In a queue call",
  callstate: "TALKING",
  call: {
    uuid: "leg-1001",
    number: "5550100",
    name: "Carla Customer",
    queue: "support",
    answeredAt: 1,
    kind: "queue",
    member: "m1",
  },
  statusSince: 0,
  statusSinceExact: true,
  noAnswerCount: 0,
  queues: ["support"],
  wrapUpUntil: "",
  platformSince: "",
};

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.useRealTimers();
});

async function setup(
  o: {
    told?: boolean;
    device?: ReturnType<typeof memoryStorage>;
    refuse?: string;
    /** The supervisor's status as the board shows it (default: signed out, as on the platform). */
    boardSays?: string;
  } = {},
) {
  const told = o.told ?? false;
  const platform = fakePlatform([sam]);
  const asked: { func: string; body: Record<string, unknown> }[] = [];
  const calls = createCallsStore();
  /** Whether the supervisor is signed in on the platform (ccLogin, ccLogout). */
  let signedIn = false;
  platform.overrides.push(({ method, url, body }) => {
    const func = url.pathname.match(/^\/api\/cc\/ccc\/(\w+)$/)?.[1];
    if (method !== "POST" || !func) return undefined;
    asked.push({ func, body });
    if (func === o.refuse) return json(200, { code: 500, message: "call is not connected yet" });
    if (func === "ccLogin" || func === "ccLogout") signedIn = func === "ccLogin";
    if ((func === "ccMonitor" || func === "ccIntercept") && !signedIn)
      return json(200, { code: 500, message: "agent 1010 is not signed in; the monitoring agent signs in first" });
    // The platform calls the supervisor's phone, which answers by itself.
    if (
      func === "ccMonitor" ||
      func === "ccThreeWay" ||
      (func === "ccIntercept" && !calls.getState().calls.some((c) => c.state === "active"))
    ) {
      const leg = `sup-${asked.length}`;
      queueMicrotask(() => {
        addCall(
          calls,
          testCall({
            id: leg,
            state: "ringing",
            startedAt: Date.now(),
            autoAnswer: { decidedBy: "policy", afterSec: 0, answerAt: Date.now() },
            context: {
              [CC.action]: func === "ccMonitor" ? "monitor" : "three-way",
              [CC.callId]: leg,
              [CC.customerUuid]: String(body.destUUID ?? body.callID),
            },
          }),
        );
        updateCall(calls, leg, { state: "active", answeredAt: Date.now() });
      });
      return json(200, {
        code: 200,
        message: "success",
        data: { uuid: leg, ...(func === "ccMonitor" ? { agent_told: told } : {}) },
      });
    }
    return json(200, { code: 200, message: "success" });
  });
  const device = o.device ?? memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  await session.getState().signIn({ login: sam.login, password: sam.password, platformUrl: "https://pbx.example.com" });
  const feed = {
    store: { getState: () => ({ status: "off" as const, lastEventAt: 0 }), subscribe: () => () => {} },
    subscribe: () => () => {},
    dispose() {},
  };
  const wallboard = createWallboard({ session, feed: feed as never });
  const d = new WallboardDraft(emptyWallboard(0));
  d.setAgent(alice);
  d.setAgent({
    ...alice,
    number: "1010",
    name: "Sam Supervisor",
    extension: "1010",
    status: o.boardSays ?? "Logged Out",
    kind: statusKind(o.boardSays ?? "Logged Out"),
    call: null,
    queues: [],
  });
  wallboard.store.setState({ board: d.finish() });
  const dtmf: string[] = [];
  const hungUp: string[] = [];
  /** Each time the microphone was opened ahead of a leg: how many requests had gone out by then. */
  const warmed: { afterRequests: number; forMs: number; givenUp: boolean }[] = [];
  const phone = {
    warmMicrophone: (forMs: number) => {
      const w = { afterRequests: asked.length, forMs, givenUp: false };
      warmed.push(w);
      return () => void (w.givenUp = true);
    },
    callsStore: calls,
    sendDtmf: async (_id: string, tones: string, how?: string) => void dtmf.push(`${tones} ${how}`),
    hangup: async (id: string) => {
      hungUp.push(id);
      updateCall(calls, id, { state: "ended" });
    },
    decorate: (id: string, context: Record<string, string>) =>
      void updateCall(calls, id, (c) => ({ context: { ...c.context, ...context } })),
  };
  const log = createActionLog({ session, storage: device });
  const supervision = createSupervision({ session, phone, wallboard: wallboard.store, log, confirmTimeoutMs: 1000 });
  cleanups.push(
    () => supervision.dispose(),
    () => wallboard.dispose(),
  );
  const label = (id: string) => {
    const c = calls.getState().calls.find((x) => x.id === id)!.context;
    return `${c[SUPERVISION.mode]} ${c[SUPERVISION.agent]}`;
  };
  return {
    asked,
    dtmf,
    hungUp,
    warmed,
    calls,
    wallboard,
    supervision,
    session,
    device,
    label,
    s: () => supervision.store.getState(),
    a: supervision.actions,
  };
}

describe("supervising a call", () => {
  it("monitors with ccMonitor (the supervisor signed in for that request alone, then out again), then switches by keys on the same leg: whisper 2, barge 3, listen 0", async () => {
    const t = await setup();
    await t.a.monitor("1001");
    expect(t.asked.map((x) => x.func)).toEqual(["ccLogin", "ccMonitor", "ccLogout"]);
    // The microphone of the leg to come opens before the first request: the leg's answer does not wait for it.
    expect(t.warmed).toEqual([{ afterRequests: 0, forMs: 20_000, givenUp: false }]);
    expect(t.asked[0]!.body).toEqual({ agent: "1010", extn: "1010", queue: "support" });
    expect(t.asked[1]!.body).toEqual({ agent: "1010", extn: "1010", destAgent: "1001", destUUID: "leg-1001" });
    expect(t.asked[2]!.body).toEqual({ agent: "1010", queue: "support" });
    expect(t.s().current).toMatchObject({
      agent: "1001",
      callUuid: "leg-1001",
      customer: "5550100",
      mode: "monitor",
      phoneCall: "sup-2",
    });

    await t.a.whisper("1001");
    await t.a.barge("1001");
    await t.a.monitor("1001");
    expect(t.dtmf).toEqual(["2 info", "3 info", "0 info"]);
    expect(t.asked).toHaveLength(3);
    expect(t.s().current).toMatchObject({ mode: "monitor", phoneCall: "sup-2" });
    expect(
      t
        .s()
        .log.map((l) => `${l.by} ${l.command} ${l.agent} ${l.outcome}`)
        .reverse(),
    ).toEqual([
      "supervisor monitor 1001 done",
      "supervisor whisper 1001 done",
      "supervisor barge 1001 done",
      "supervisor monitor 1001 done",
    ]);

    await t.a.stop();
    expect(t.hungUp).toEqual(["sup-2"]);
    expect(t.s().current).toBeNull();
  });

  it("speaks to the customer only with 1 on the same leg; the supervisor's call says each mode; the log keeps the leg", async () => {
    const t = await setup();
    await t.a.monitor("1001");
    expect(t.label("sup-2")).toBe("monitor Alice Agent");
    await t.a.whisperCustomer("1001");
    expect(t.dtmf).toEqual(["1 info"]);
    expect(t.s().current).toMatchObject({ mode: "whisper-customer", phoneCall: "sup-2", leg: "sup-2" });
    expect(t.label("sup-2")).toBe("whisper-customer Alice Agent");
    await t.a.barge("1001");
    expect(t.label("sup-2")).toBe("barge Alice Agent");
    await t.a.intercept("1001");
    expect(t.label("sup-2")).toBe("intercept Alice Agent");
    expect(
      t
        .s()
        .log.map((l) => `${l.command} ${l.leg}`)
        .reverse(),
    ).toEqual(["monitor sup-2", "whisper-customer sup-2", "barge sup-2", "intercept sup-2"]);
  });

  it("says whether the platform tells the agent: told, not told, or not said (a barge leg's answer has no word on it)", async () => {
    const told = await setup({ told: true });
    await told.a.monitor("1001");
    expect(told.s().current?.agentTold).toBe(true);
    const notTold = await setup();
    await notTold.a.monitor("1001");
    expect(notTold.s().current?.agentTold).toBe(false);
    await notTold.a.stop();
    await notTold.a.barge("1001");
    expect(notTold.s().current?.agentTold).toBeNull();
  });

  it("keeps the action log across a reload, per supervisor, bounded", async () => {
    const device = memoryStorage();
    const before = await setup({ device });
    await before.a.monitor("1001");
    await before.a.whisper("1001");
    await expect(before.a.monitor("9999")).rejects.toMatchObject({ kind: "unknown-call" });
    // A reload: a new session and supervision on the same browser storage.
    const after = await setup({ device });
    expect(after.s().log.map((l) => `${l.by} ${l.command} ${l.agent} ${l.outcome}`)).toEqual([
      "supervisor monitor 9999 failed",
      "supervisor whisper 1001 done",
      "supervisor monitor 1001 done",
    ]);
    expect(after.s().log[1]).toMatchObject({
      agentName: "Alice Agent",
      detail: "5550100",
      leg: "sup-2",
      at: expect.any(Number),
    });
    // Bounded: the newest LOG_SIZE lines stay.
    await after.a.monitor("1001");
    for (let i = 0; i < LOG_SIZE; i++) await after.a.whisper("1001").then(() => after.a.monitor("1001"));
    expect(after.s().log).toHaveLength(LOG_SIZE);
    expect(JSON.parse(device.getItem("agentbar.supervisor-log.supervisor@https://pbx.example.com")!)).toHaveLength(
      LOG_SIZE,
    );
    // Anything unreadable in storage is left out, not shown.
    device.setItem(
      "agentbar.supervisor-log.supervisor@https://pbx.example.com",
      JSON.stringify([
        { at: "soon", command: "monitor" },
        { at: 1, command: "explode", outcome: "done" },
      ]),
    );
    expect((await setup({ device })).s().log).toEqual([]);
  });

  it("whispers straight away: a monitor leg, then 2; barges straight away with ccThreeWay naming the supervisor's own phone", async () => {
    const t = await setup();
    await t.a.whisper("1001");
    expect(t.dtmf).toEqual(["2 info"]);
    expect(t.s().current).toMatchObject({ mode: "whisper" });
    // The leg ending (the call over) ends supervising.
    updateCall(t.calls, t.s().current!.phoneCall!, { state: "ended" });
    expect(t.s().current).toBeNull();

    const requestsBefore = t.asked.length;
    await t.a.barge("1001");
    expect(t.asked.at(-1)).toEqual({
      func: "ccThreeWay",
      body: { agent: "1001", callID: "leg-1001", destAgent: "1010", destExtn: "1010" },
    });
    expect(t.s().current).toMatchObject({ mode: "barge" });
    expect(t.warmed.map((w) => w.afterRequests)).toEqual([0, requestsBefore]);
  });

  it("intercepts on the monitor leg, after which the supervisor's call is an ordinary one with the customer, named on it", async () => {
    const t = await setup();
    await t.a.monitor("1001");
    await t.a.intercept("1001");
    expect(t.asked.slice(-3)).toEqual([
      { func: "ccLogin", body: { agent: "1010", extn: "1010", queue: "support" } },
      { func: "ccIntercept", body: { agent: "1010", extn: "1010", destAgent: "1001", destUUID: "leg-1001" } },
      { func: "ccLogout", body: { agent: "1010", queue: "support" } },
    ]);
    expect(t.s().current).toBeNull();
    expect(t.hungUp).toEqual([]);
    const leg = t.calls.getState().calls.find((c) => c.id === "sup-2")!;
    expect(ccCallOf(leg, { platformCall: null, agent: null }, [leg])?.party).toEqual({
      name: "Carla Customer",
      number: "5550100",
    });
    expect(t.s().log[0]).toMatchObject({
      command: "intercept",
      agent: "1001",
      agentName: "Alice Agent",
      detail: "5550100",
      outcome: "done",
    });
  });

  it("signs in for the request after all when the board wrongly shows the supervisor signed in and the platform says he is not: the intercept goes through", async () => {
    const t = await setup({ boardSays: "On Break" });
    await t.a.intercept("1001");
    expect(t.asked.map((x) => x.func)).toEqual(["ccIntercept", "ccLogin", "ccIntercept", "ccLogout"]);
    expect(t.s().log[0]).toMatchObject({ command: "intercept", outcome: "done" });
    // Any other refusal is the answer: nothing is asked again.
    const refused = await setup({ boardSays: "On Break", refuse: "ccMonitor" });
    await expect(refused.a.monitor("1001")).rejects.toThrow(/not connected/);
    expect(refused.asked.map((x) => x.func)).toEqual(["ccMonitor"]);
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

  it("stops the microphone it opened ahead of the leg when the platform refuses to make the leg", async () => {
    const t = await setup({ refuse: "ccMonitor" });
    await expect(t.a.monitor("1001")).rejects.toThrow();
    expect(t.warmed).toEqual([{ afterRequests: 0, forMs: 20_000, givenUp: true }]);
    // Signed out again all the same.
    expect(t.asked.map((x) => x.func)).toEqual(["ccLogin", "ccMonitor", "ccLogout"]);
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
