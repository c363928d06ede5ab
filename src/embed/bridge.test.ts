import { afterEach, describe, expect, it, vi } from "vitest";
import { createStore } from "zustand/vanilla";
import { CC } from "../cc";
import { agentRig, call, queueCall } from "../cc/test-support/agent-rig";
import { createSessionStore, memoryStorage } from "../session";
import { alice } from "../session/test-support/fake-platform";
import { until } from "../softphone/testing/phone-rig";
import { createBridge } from "./bridge";
import type { PhoneSessionStatus } from "./app-view";
import { EVENTS, snapshotInfo, type EventName } from "./host/protocol";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * The bridge over the app's real stores and actions: the session and the agent session against
 * a scripted platform (FakeCallCenter), and a fake phone whose calls the test moves; what the
 * phone was asked to do is in `t.phone.sip`.
 */
function setup(o: { confirmTimeoutMs?: number } = {}) {
  const t = agentRig(cleanups, o);
  const phoneSession = createStore<PhoneSessionStatus>()(() => ({ status: "on", problem: null }));
  const bridge = createBridge({
    session: t.session,
    phoneSession: { store: phoneSession, phone: t.phone },
    agentSession: { store: t.store, actions: t.actions },
    storage: "browser",
    diagnosticsFile: async () => ({ name: "agentbar-diagnostics.json", type: "application/json", text: "{}" }),
    appVersion: "0.1.0",
    confirmTimeoutMs: o.confirmTimeoutMs ?? 3000,
  });
  cleanups.push(() => bridge.dispose());
  const events: { event: EventName; data: unknown }[] = [];
  bridge.subscribe((event, data) => {
    // Everything the bridge says fits the protocol.
    expect(EVENTS[event](data), `${event} ${JSON.stringify(data)}`).toBeUndefined();
    events.push({ event, data });
  });
  const update = (id: string, patch: Parameters<typeof call>[0]) =>
    t.callsStore.setState((s) => ({ calls: s.calls.map((c) => (c.id === id ? { ...c, ...patch } : c)) }));
  return {
    ...t,
    bridge,
    events,
    update,
    named: (event: EventName) => events.filter((e) => e.event === event).map((e) => e.data as Record<string, unknown>),
    sip: () => t.phone.sip.map((s) => [s.method, s.id, ...s.args].join(" ")),
  };
}

describe("the bridge's events", () => {
  it("a queue call: the ringing with who calls before anyone answers, the answer, a hold through the platform, the end with its cause and who, after-call work with its outcome and notes", async () => {
    const t = setup();
    await t.working();
    expect(t.named("session")).toEqual([{ user: { login: "agent1", name: "Alice Agent", extension: "1001" } }]);
    expect(t.named("registration").at(-1)).toEqual({ registration: { state: "registered" } });
    expect(t.named("agent").at(-1)).toMatchObject({
      agent: { status: "break", platformStatus: "On Break", queues: ["support"] },
    });

    t.callsStore.setState({ calls: [queueCall()] });
    expect(t.named("call.ringing")).toEqual([
      {
        call: expect.objectContaining({
          callId: "call-1",
          state: "ringing",
          platformCallId: "leg-1",
          customerCallId: "customer-of-leg-1",
          queue: "support",
          party: { number: "5550100", name: "Carla Customer" },
          answeredAt: null,
        }),
      },
    ]);

    const answered = await t.bridge.run("answer", {});
    expect(answered.call).toMatchObject({ callId: "call-1", state: "connected" });
    expect(t.sip()).toEqual(["answer call-1"]);
    expect(t.named("call.answered")).toHaveLength(1);

    // The platform's call: hold goes through ccHold and resolves once the platform shows it held.
    t.fcc.call = {
      uuid: "leg-1",
      kind: "queue",
      direction: "inbound",
      queue: "support",
      member_uuid: "m",
      customer_uuid: "customer-of-leg-1",
      cid_name: "Carla Customer",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    await t.actions.refresh();
    const held = await t.bridge.run("hold", {});
    expect(held.call).toMatchObject({ held: true });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccHold", body: { callID: "leg-1" } });
    expect(t.sip()).toEqual(["answer call-1"]);
    expect(t.named("call.held")).toHaveLength(1);

    t.update("call-1", {
      state: "ended",
      endedAt: Date.now(),
      end: { kind: "hangup", by: "remote", reasons: [{ protocol: "Q.850", cause: 16, text: "NORMAL_CLEARING" }] },
    });
    expect(t.named("call.ended")).toEqual([
      {
        call: expect.objectContaining({ callId: "call-1", state: "ended" }),
        cause: "NORMAL_CLEARING",
        hungUpBy: "remote",
      },
    ]);
    // After-call work names the call as the commands do, and comes after the end.
    expect(t.named("wrapup.started")).toEqual([
      { wrapUp: expect.objectContaining({ callId: "call-1", queue: "support", outcome: "", notes: "" }) },
    ]);
    expect(t.events.findIndex((e) => e.event === "call.ended")).toBeLessThan(
      t.events.findIndex((e) => e.event === "wrapup.started"),
    );

    await t.bridge.run("setDisposition", { callId: "call-1", outcome: "Sold", notes: "Call back Friday", done: true });
    expect(t.named("wrapup.ended")).toEqual([
      { wrapUp: expect.objectContaining({ callId: "call-1", outcome: "Sold", notes: "Call back Friday" }) },
    ]);
    expect(t.bridge.snapshot().wrapUp).toBeNull();
    expect(snapshotInfo(t.bridge.snapshot())).toBeUndefined();
  });

  it("a plain call holds, mutes and sends tones through the phone, and an end of the agent's is the agent's", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [call({ id: "p1", state: "active", answeredAt: Date.now() })] });
    await t.bridge.run("hold", {});
    await t.bridge.run("resume", { callId: "p1" });
    await t.bridge.run("mute", {});
    await t.bridge.run("sendDtmf", { digits: "12#" });
    expect(t.sip()).toEqual(["hold p1", "resume p1", "setMuted p1 true", "sendDtmf p1 12#"]);
    expect(t.fcc.commands.filter((c) => /Hold/.test(c.func))).toEqual([]);
    expect(t.named("call.held")).toHaveLength(1);
    expect(t.named("call.resumed")).toHaveLength(1);
    expect(t.named("call.muted")).toHaveLength(1);
    const hung = await t.bridge.run("hangUp", {});
    expect(hung.call.state).toBe("ended");
    expect(t.named("call.ended")).toEqual([
      { call: expect.objectContaining({ callId: "p1" }), cause: "NORMAL_CLEARING", hungUpBy: "agent" },
    ]);
  });

  it("nothing secret reaches a host: no token or refresh token in the state, the events or the diagnostics", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [queueCall()] });
    const everything =
      JSON.stringify(t.events) +
      JSON.stringify(t.bridge.snapshot()) +
      JSON.stringify(await t.bridge.run("getDiagnostics", {}));
    expect(t.session.getState().client?.session?.token).toMatch(/^token-/);
    expect(everything).not.toMatch(/token-|refresh-/);
  });
});

describe("the bridge's commands", () => {
  it("setStatus resolves only once the platform shows the status; an answer without the change times out", async () => {
    const t = setup({ confirmTimeoutMs: 400 });
    await t.working();
    t.fcc.applies = false;
    await expect(t.bridge.run("setStatus", { status: "ready" })).rejects.toMatchObject({ code: "timeout" });
    expect(t.fcc.commands.filter((c) => c.func === "ccGoReady")).toHaveLength(1);
    t.fcc.applies = true;
    const r = await t.bridge.run("setStatus", { status: "break", reason: "Lunch" });
    expect(r).toEqual({
      applied: "now",
      agent: expect.objectContaining({ status: "break", reason: "Lunch", pending: null }),
    });
  });

  it("a status chosen during a call applies after it; signed out of the queues, ready signs in first", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    const later = await t.bridge.run("setStatus", { status: "ready" });
    expect(later).toMatchObject({
      applied: "after-call",
      agent: { status: "break", next: { status: "ready", reason: "" } },
    });

    const t2 = setup();
    await t2.working();
    await t2.bridge.run("setStatus", { status: "signed-out" });
    expect((await t2.bridge.run("setStatus", { status: "ready" })).agent.status).toBe("ready");
    expect(t2.fcc.commands.map((c) => c.func).slice(-3)).toEqual(["ccLogout", "ccLogin", "ccGoReady"]);
  });

  it("dial goes the dial pad's way: through the call center, resolving once the platform's leg reaches the phone", async () => {
    const t = setup();
    await t.working();
    const dialled = t.bridge.run("dial", { number: "5551234" });
    await t.until((s) => s.dialling?.callId === "dial-leg-1");
    // The platform's leg reaches the phone: the agent's call out.
    t.callsStore.setState({
      calls: [
        call({
          id: "leg-call",
          remote: { number: "5551234", uri: "sip:5551234@x", withheld: false },
          context: { [CC.action]: "dial", [CC.callId]: "dial-leg-1" },
        }),
      ],
    });
    expect((await dialled).call).toMatchObject({
      callId: "leg-call",
      direction: "outbound",
      state: "dialling",
      platformCallId: "dial-leg-1",
      party: { number: "5551234" },
    });
    expect(t.fcc.commands.at(-1)).toMatchObject({ func: "ccDial", body: { destNumber: "5551234" } });
    expect(t.named("call.dialling")).toHaveLength(1);
  });

  it("says which call is meant, or why none is", async () => {
    const t = setup();
    await t.working();
    await expect(t.bridge.run("answer", {})).rejects.toMatchObject({ code: "no-call" });
    t.callsStore.setState({ calls: [queueCall()] });
    await expect(t.bridge.run("hold", { callId: "call-1" })).rejects.toMatchObject({ code: "invalid-state" });
    await expect(t.bridge.run("hangUp", { callId: "nope" })).rejects.toMatchObject({ code: "no-call" });
    await expect(t.bridge.run("setDisposition", { callId: "call-1", outcome: "", notes: "" })).rejects.toMatchObject({
      code: "no-call",
    });
    const rejected = await t.bridge.run("reject", { busy: true });
    expect(rejected.call.state).toBe("ended");
    expect(t.sip()).toEqual(["reject call-1 486"]);
  });

  it("a credential from the handshake signs in when nobody is; a refused one is told to the host as an error, not on the sign-in screen", async () => {
    const t = setup();
    t.bridge.signInWithToken("forged");
    await vi.waitFor(() => expect(t.named("error")).toHaveLength(1));
    expect(t.named("error")).toEqual([
      { error: { code: "refused", message: "the credential was refused (wrong-credentials)" } },
    ]);
    expect(t.session.getState()).toMatchObject({ status: "signed-out", error: null });

    // A token the same platform gave another sign-in (a CRM's service account, say).
    const minter = createSessionStore({
      settings: t.settings,
      tabStorage: memoryStorage(),
      deviceStorage: memoryStorage(),
      fetch: t.platform.fetch,
    });
    await minter.getState().signIn({ login: "agent1", password: alice.password, platformUrl: "" });
    t.bridge.signInWithToken(minter.getState().client!.session!.token);
    await until(t.session, (s) => s.status === "signed-in");
    expect(t.named("session").at(-1)).toEqual({ user: { login: "agent1", name: "Alice Agent", extension: "1001" } });
  });
});
