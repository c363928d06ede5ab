import { afterEach, describe, expect, it, vi } from "vitest";
import { createStore } from "zustand/vanilla";
import { createAgentSession, CC } from "../cc";
import { FakeCallCenter } from "../cc/test-support/fake-call-center";
import { createSessionStore, createSettingsStore, memoryStorage, type Dialer, type PhoneSessionState } from "../session";
import { alice, fakePlatform } from "../session/test-support/fake-platform";
import type { Call, IncomingCallHandler, Phone } from "../softphone";
import { createCallsStore } from "../softphone/calls-store";
import { createPhoneStore } from "../softphone/phone-store";
import { until } from "../softphone/testing/phone-rig";
import { testCall } from "../softphone/testing/test-call";
import { createBridge } from "./bridge";
import type { EventName } from "./host/protocol";
import { snapshotInfo, EVENTS } from "./host/protocol";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/**
 * The bridge over the app's real stores: the session and the agent session against a scripted
 * platform (FakeCallCenter), and a phone whose calls the test moves (the phone's own behaviour is
 * tested in src/softphone). What it records of the phone is what the bridge asked it to do.
 */
function setup(o: { confirmTimeoutMs?: number; platform?: ReturnType<typeof fakePlatform> } = {}) {
  const fcc = new FakeCallCenter();
  const platform = o.platform ?? fakePlatform();
  platform.overrides.push(fcc.route);
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({ settings, tabStorage: memoryStorage(), deviceStorage: device, fetch: platform.fetch, pageOrigin: "https://app.test" });
  const phoneStore = createPhoneStore();
  const callsStore = createCallsStore();
  const asked: string[] = [];
  const update = (id: string, patch: Partial<Call>) => callsStore.setState((s) => ({ calls: s.calls.map((c) => (c.id === id ? { ...c, ...patch } : c)) }));
  const phone = {
    phoneStore,
    callsStore,
    answer: async (id: string) => {
      asked.push(`answer ${id}`);
      update(id, { state: "active", answeredAt: Date.now() });
    },
    reject: async (id: string, status: number) => {
      asked.push(`reject ${id} ${status}`);
      update(id, { state: "ended", endedAt: Date.now(), end: { kind: status === 486 ? "busy" : "declined", by: "local" } });
    },
    hangup: async (id: string) => {
      asked.push(`hangup ${id}`);
      update(id, { state: "ended", endedAt: Date.now(), end: { kind: "hangup", by: "local" } });
    },
    hold: async (id: string) => {
      asked.push(`hold ${id}`);
      update(id, { held: true, state: "held" });
    },
    resume: async (id: string) => {
      asked.push(`resume ${id}`);
      update(id, { held: false, state: "active" });
    },
    setMuted: (id: string, muted: boolean) => {
      asked.push(`mute ${id} ${muted}`);
      update(id, { muted });
    },
    sendDtmf: async (id: string, tones: string) => void asked.push(`dtmf ${id} ${tones}`),
    transfer: async (id: string, target: string) => void asked.push(`transfer ${id} ${target}`),
  } as unknown as Phone;
  const hooks: { incoming?: IncomingCallHandler; dialer?: Dialer } = {};
  const agent = createAgentSession({
    session,
    phoneSession: { phone, setCallCenterHook: (h) => (hooks.incoming = h), setDialer: (d) => (hooks.dialer = d) },
    settings,
    deviceStorage: device,
    events: fcc.events,
    pageHref: () => "https://app.test/",
    confirmTimeoutMs: o.confirmTimeoutMs ?? 3000,
    pollMs: { events: 60_000, call: 60_000, polling: 100, setup: 100 },
  });
  const phoneSessionStore = createStore<PhoneSessionState>()(() => ({
    status: "on",
    problem: null,
    address: "1001@agentbar.local",
    server: "wss://pbx.example.com/ws",
    lastDialled: "",
    restartPending: false,
    dial: async (input: string) => ((await hooks.dialer?.(input)) ? undefined : (asked.push(`call ${input}`), "direct-1")),
    retry: () => {},
  }));
  const bridge = createBridge({ session, phoneSession: { store: phoneSessionStore, phone }, agentSession: agent, storage: "browser", appVersion: "0.1.0", confirmTimeoutMs: o.confirmTimeoutMs ?? 3000 });
  const events: { event: EventName; data: unknown }[] = [];
  bridge.subscribe((event, data) => {
    // Everything the bridge says fits the protocol.
    expect(EVENTS[event](data), `${event} ${JSON.stringify(data)}`).toBeUndefined();
    events.push({ event, data });
  });
  cleanups.push(() => bridge.dispose(), () => agent.dispose());
  return {
    fcc,
    platform,
    session,
    callsStore,
    asked,
    bridge,
    events,
    agent,
    update,
    named: (event: EventName) => events.filter((e) => e.event === event).map((e) => e.data as Record<string, unknown>),
    async working() {
      await session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: "https://pbx.example.com" });
      phoneStore.setState({ registration: { status: "registered", registeredAt: Date.now() } });
      await until(agent.store, (s) => s.phase === "on" && s.agent !== null);
      fcc.setOpen(true);
    },
  };
}

const queueCall = (id = "call-1", leg = "leg-1"): Call =>
  testCall({
    id,
    remote: { number: "5550100", name: "Carla Customer", uri: "sip:5550100@agentbar.local", withheld: false },
    startedAt: Date.now(),
    context: { [CC.action]: "queue", [CC.callId]: leg, [CC.queue]: "support", [CC.customerUuid]: `customer-of-${leg}` },
  });

describe("the bridge's events", () => {
  it("a queue call: the ringing with who calls before anyone answers, the answer, a hold through the platform, the end with its cause and who, after-call work with its outcome and notes", async () => {
    const t = setup();
    await t.working();
    expect(t.named("session")).toEqual([{ user: { login: "agent1", name: "Alice Agent", extension: "1001" } }]);
    expect(t.named("registration").at(-1)).toEqual({ registration: { state: "registered" } });
    expect(t.named("agent").at(-1)).toMatchObject({ agent: { status: "break", platformStatus: "On Break", queues: ["support"] } });

    t.callsStore.setState({ calls: [queueCall()] });
    expect(t.named("call.ringing")).toEqual([
      { call: expect.objectContaining({ callId: "call-1", state: "ringing", platformCallId: "leg-1", customerCallId: "customer-of-leg-1", queue: "support", party: { number: "5550100", name: "Carla Customer" }, answeredAt: null }) },
    ]);

    const answered = await t.bridge.run("answer", {});
    expect(answered.call).toMatchObject({ callId: "call-1", state: "connected" });
    expect(t.asked).toEqual(["answer call-1"]);
    expect(t.named("call.answered")).toHaveLength(1);

    // The platform's call: hold goes through ccHold and resolves once the platform shows it held.
    t.fcc.call = { uuid: "leg-1", kind: "queue", direction: "inbound", queue: "support", member_uuid: "m", customer_uuid: "customer-of-leg-1", cid_name: "Carla Customer", cid_number: "5550100", answered: true, held: false, consult: null };
    await t.agent.store.getState().refresh();
    const held = await t.bridge.run("hold", {});
    expect(held.call).toMatchObject({ held: true });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccHold", body: { callID: "leg-1" } });
    expect(t.asked).toEqual(["answer call-1"]);
    expect(t.named("call.held")).toHaveLength(1);

    t.update("call-1", { state: "ended", endedAt: Date.now(), end: { kind: "hangup", by: "remote", reasons: [{ protocol: "Q.850", cause: 16, text: "NORMAL_CLEARING" }] } });
    expect(t.named("call.ended")).toEqual([{ call: expect.objectContaining({ callId: "call-1", state: "ended" }), cause: "NORMAL_CLEARING", hungUpBy: "remote" }]);
    // After-call work names the call as the commands do.
    expect(t.named("wrapup.started")).toEqual([{ wrapUp: expect.objectContaining({ callId: "call-1", queue: "support", outcome: "", notes: "" }) }]);
    expect(t.events.findIndex((e) => e.event === "call.ended")).toBeLessThan(t.events.findIndex((e) => e.event === "wrapup.started"));

    await t.bridge.run("setDisposition", { callId: "call-1", outcome: "Sold", notes: "Call back Friday", done: true });
    expect(t.named("wrapup.ended")).toEqual([{ wrapUp: expect.objectContaining({ callId: "call-1", outcome: "Sold", notes: "Call back Friday" }) }]);
    expect(t.bridge.snapshot().wrapUp).toBeNull();
    expect(snapshotInfo(t.bridge.snapshot())).toBeUndefined();
  });

  it("a plain call holds, mutes and sends tones through the phone, and an end of the agent's is the agent's", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [testCall({ id: "p1", state: "active", startedAt: Date.now(), answeredAt: Date.now() })] });
    await t.bridge.run("hold", {});
    await t.bridge.run("resume", { callId: "p1" });
    await t.bridge.run("mute", {});
    await t.bridge.run("sendDtmf", { digits: "12#" });
    expect(t.asked).toEqual(["hold p1", "resume p1", "mute p1 true", "dtmf p1 12#"]);
    expect(t.fcc.commands.filter((c) => /Hold/.test(c.func))).toEqual([]);
    expect(t.named("call.held")).toHaveLength(1);
    expect(t.named("call.resumed")).toHaveLength(1);
    expect(t.named("call.muted")).toHaveLength(1);
    const hung = await t.bridge.run("hangUp", {});
    expect(hung.call.state).toBe("ended");
    expect(t.named("call.ended")).toEqual([{ call: expect.objectContaining({ callId: "p1" }), cause: "NORMAL_CLEARING", hungUpBy: "agent" }]);
  });

  it("nothing secret reaches a host: no token, refresh token or extension token in the state or the events", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [queueCall()] });
    const everything = JSON.stringify(t.events) + JSON.stringify(t.bridge.snapshot()) + JSON.stringify(await t.bridge.run("getDiagnostics", {}));
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
    expect(r).toEqual({ applied: "now", agent: expect.objectContaining({ status: "break", reason: "Lunch", pending: null }) });
  });

  it("a status chosen during a call applies after it; signed out of the queues, ready signs in first", async () => {
    const t = setup();
    await t.working();
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    const later = await t.bridge.run("setStatus", { status: "ready" });
    expect(later).toMatchObject({ applied: "after-call", agent: { status: "break", next: { status: "ready", reason: "" } } });
    t.callsStore.setState({ calls: [] });

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
    await until(t.agent.store, (s) => s.dialling?.callId === "dial-leg-1");
    // The platform's leg reaches the phone: the agent's call out.
    t.callsStore.setState({ calls: [testCall({ id: "leg-call", startedAt: Date.now(), remote: { number: "5551234", uri: "sip:5551234@x", withheld: false }, context: { [CC.action]: "dial", [CC.callId]: "dial-leg-1" } })] });
    expect((await dialled).call).toMatchObject({ callId: "leg-call", direction: "outbound", state: "dialling", platformCallId: "dial-leg-1", party: { number: "5551234" } });
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
    await expect(t.bridge.run("setDisposition", { callId: "call-1", outcome: "", notes: "" })).rejects.toMatchObject({ code: "no-call" });
    const rejected = await t.bridge.run("reject", { busy: true });
    expect(rejected.call.state).toBe("ended");
    expect(t.asked).toEqual(["reject call-1 486"]);
  });

  it("a credential from the handshake signs in when nobody is; a refused one is told to the host as an error", async () => {
    const t = setup();
    t.bridge.signInWithToken("forged");
    await vi.waitFor(() => expect(t.named("error")).toHaveLength(1));
    expect(t.named("error")).toEqual([{ error: { code: "refused", message: "the credential was refused (wrong-credentials)" } }]);
    expect(t.session.getState().error).toBeNull();

    await t.working();
    const token = t.session.getState().client!.session!.token;
    // Another frame of the same platform, given that session's token by its host.
    const t2 = setup({ platform: t.platform });
    t2.bridge.signInWithToken(token);
    await until(t2.session, (s) => s.status === "signed-in");
    expect(t2.named("session").at(-1)).toEqual({ user: { login: "agent1", name: "Alice Agent", extension: "1001" } });
  });
});
