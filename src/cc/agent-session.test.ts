import { describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../session";
import { ccCallOf } from "./cc-call";
import { CC } from "./queue-calls";
import { agentRigs, call, invite, queueCall, takeQueueCall } from "./test-support/agent-rig";
import { FakeCallCenter } from "./test-support/fake-call-center";

const setup = agentRigs();

describe("joining the queues", () => {
  it("signs into the agent's queues once the phone is registered, and shows the status the platform reports", async () => {
    const t = setup({ cc: new FakeCallCenter("1001", ["support", "sales"]) });
    await t.signIn();
    expect(t.store.getState().phase).toBe("waiting-for-phone");
    expect(t.fcc.commands).toEqual([]);

    t.register();
    const s = await t.until((s) => s.phase === "on" && s.agent !== null);
    expect(t.fcc.commands).toEqual([
      { func: "ccLogin", body: { agent: "1001", extn: "1001", queue: "support" } },
      { func: "ccLogin", body: { agent: "1001", extn: "1001", queue: "sales" } },
    ]);
    expect(s.queues.map((q) => q.name)).toEqual(["support", "sales"]);
    expect(s.agent).toMatchObject({ number: "1001", status: "On Break", state: "Waiting", callstate: "IDLE" });
    expect(s.wrapUpSec).toBe(10);
    expect(t.fcc.feedLogin).toBe("1001@agentbar.local");
  });

  it("a user in no queue gets no call-center controls", async () => {
    const t = setup({ cc: new FakeCallCenter("1010", []) });
    await t.signIn();
    t.register();
    await t.until((s) => s.phase === "no-queues");
    expect(t.fcc.commands).toEqual([]);
  });

  it("a refused sign-in to a queue says why and can be tried again", async () => {
    const t = setup();
    t.fcc.refuse = { code: 500, message: "extension 1001 is in use by agent 1002" };
    await t.signIn();
    t.register();
    expect((await t.until((s) => s.phase === "failed")).problem).toBe("extension 1001 is in use by agent 1002");
    t.actions.retry();
    await t.until((s) => s.phase === "on");
  });

  it("signing out of the app leaves the queues first", async () => {
    const t = setup();
    await t.working();
    await t.session.getState().signOut();
    const paths = t.platform.calls.map((c) => `${c.method} ${c.path}`);
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccLogout", body: { agent: "1001", queue: "support" } });
    expect(paths.indexOf("POST /api/cc/ccc/ccLogout")).toBeLessThan(paths.indexOf("DELETE /api/sessions"));
    expect(t.store.getState().phase).toBe("off");
    expect(t.fcc.feedClosed).toBe(true);
  });
});

describe("status as the platform reports it", () => {
  it("follows status events: a change made elsewhere shows without asking the platform", async () => {
    const t = setup();
    await t.working();
    const reads = t.fcc.stateReads;
    t.fcc.setStatus("On Break", "Supervisor meeting");
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Supervisor meeting" });
    t.fcc.emit({ "CC-Action": "agent-state-change", "CC-Agent": "1001", "CC-Agent-State": "Receiving" });
    expect(t.store.getState().agent?.state).toBe("Receiving");
    // Events of other agents are not this agent's.
    t.fcc.emit({ "CC-Action": "agent-status-change", "CC-Agent": "1002", "CC-Agent-Status": "Available" });
    expect(t.store.getState().agent?.status).toBe("On Break");
    expect(t.fcc.stateReads).toBe(reads);
    expect(t.store.getState().feed).toBe("events");
  });

  it("polls agent_state while the event channel is closed, and shows unknown values as they come", async () => {
    const t = setup();
    await t.signIn();
    t.register();
    await t.until((s) => s.phase === "on" && s.agent !== null);
    expect(t.store.getState().feed).toBe("polling");
    t.fcc.tells = false;
    t.fcc.status = "Ausgeloggt";
    t.fcc.state = "Reserved";
    const s = await t.until((s) => s.agent?.status === "Ausgeloggt");
    expect(s.agent?.state).toBe("Reserved");
  });

  it("reads agent_state of its queue, and never takes another agent's row for its own", async () => {
    const t = setup({ cc: new FakeCallCenter("1001", ["support", "sales"]), events: false });
    t.fcc.others = [
      {
        ...t.fcc.record(),
        agent_id: "1002",
        name: "Bob Agent",
        status: "Available",
        state: "READY",
        callstate: "TALKING",
      },
    ];
    await t.signIn();
    t.register();
    await t.until((s) => s.phase === "on" && s.agent !== null);
    expect(t.fcc.stateQueries.at(-1)).toBe("queue=support");
    expect(t.store.getState().agent).toMatchObject({ number: "1001", status: "On Break" });
    // The platform stops listing this agent: its status is unknown, not the other agent's.
    t.fcc.listed = false;
    const s = await t.until((s) => s.agent?.status !== "On Break");
    expect(s.agent).toMatchObject({ number: "1001", status: "", callstate: "" });
    expect(s.platformCall).toBeNull();
  });

  it("a status told by an event began at the event's time; agent_state reads of a platform in another time zone do not move it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    // Five hours behind the browser: its zone-less status_since reads five hours early here.
    t.fcc.zoneShiftMs = -5 * 3600_000;
    await t.working();
    await vi.advanceTimersByTimeAsync(60_000);
    t.fcc.setStatus("On Break", "Lunch");
    const changedAt = Date.now();
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Lunch", since: changedAt });
    await vi.advanceTimersByTimeAsync(5_000);
    await t.actions.refresh();
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Lunch", since: changedAt });
  });

  it("a status only agent_state shows began when a read first showed it, whatever the platform's zone; a reload goes on counting", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const device = memoryStorage();
    const fcc = new FakeCallCenter();
    // Eight hours ahead of the browser: read here, its times lie in the future.
    fcc.zoneShiftMs = 8 * 3600_000;
    const first = setup({ cc: fcc, storage: device, events: false });
    await first.signIn();
    first.register();
    await first.until((s) => s.phase === "on" && s.agent !== null);
    expect(first.store.getState().agent).toMatchObject({ status: "On Break", since: Date.now() });
    await vi.advanceTimersByTimeAsync(60_000);
    fcc.setStatus("Available");
    const changedAt = Date.now();
    // Read every 100 ms while no event comes: the change is seen at the next read.
    await vi.advanceTimersByTimeAsync(100);
    const since = first.store.getState().agent!.since;
    expect(first.store.getState().agent?.status).toBe("Available");
    expect(since).toBeGreaterThanOrEqual(changedAt);
    expect(since).toBeLessThanOrEqual(changedAt + 100);
    // Later reads of the same status leave it.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(first.store.getState().agent?.since).toBe(since);

    // The page reloads (a CRM page changed): the same status keeps its start.
    await setup.endLast();
    const second = setup({ cc: fcc, storage: device, events: false });
    await second.signIn();
    second.register();
    await second.until((s) => s.phase === "on" && s.agent !== null);
    expect(second.store.getState().agent).toMatchObject({ status: "Available", since });
  });

  it("agent_state rows with only XSwitch's state keep what events told: on demand stays on demand, a break keeps its reason and start", async () => {
    const t = setup();
    t.fcc.onlyState = true;
    await t.working();
    t.fcc.setStatus("Available (On Demand)");
    const since = t.store.getState().agent!.since;
    await t.actions.refresh();
    expect(t.store.getState().agent).toMatchObject({ status: "Available (On Demand)", since });
    t.fcc.setStatus("On Break", "Lunch");
    const breakSince = t.store.getState().agent!.since;
    await t.actions.refresh();
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Lunch", since: breakSince });
    // A change only agent_state shows still shows, in XSwitch's word.
    t.fcc.tells = false;
    t.fcc.setStatus("Available");
    await t.actions.refresh();
    expect(t.store.getState().agent).toMatchObject({ status: "Available", reason: "" });
  });

  it("counts the callers waiting in each queue from members-count events", async () => {
    const t = setup({ cc: new FakeCallCenter("1001", ["support", "sales"]) });
    await t.working();
    t.fcc.emit({ "CC-Action": "members-count", "CC-Queue": "sales", "CC-Count": "3" });
    expect(t.store.getState().queues).toEqual([
      { name: "support", waiting: null },
      { name: "sales", waiting: 3 },
    ]);
  });
});

describe("status commands", () => {
  it("Ready resolves once the platform confirms it by an event", async () => {
    const t = setup();
    await t.working();
    const ready = t.actions.choose({ kind: "ready" });
    expect(t.store.getState().pending).toEqual({ command: "ready" });
    await ready;
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccGoReady", body: { agent: "1001", queue: "support" } });
    expect(t.store.getState()).toMatchObject({ pending: null, error: null, agent: { status: "Available" } });
  });

  it("without events, a command is confirmed by reading agent_state at once", async () => {
    const t = setup({ events: false });
    await t.signIn();
    t.register();
    await t.until((s) => s.phase === "on" && s.agent !== null);
    t.fcc.tells = false;
    await t.actions.choose({ kind: "break", reason: "Lunch" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccGoBreak",
      body: { agent: "1001", reason: "Lunch", queue: "support" },
    });
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Lunch" });
    await t.actions.choose({ kind: "on-demand" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccGoReady",
      body: { agent: "1001", queue: "support", onDemand: true },
    });
    expect(t.store.getState().agent?.status).toBe("Available (On Demand)");
  });

  it("once a change is confirmed, no more agent_state reads follow than the regular poll's", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    // Confirmed by reading agent_state, not by an event.
    t.fcc.tells = false;
    for (let i = 0; i < 10; i++) {
      await t.actions.choose({ kind: "ready" });
      await t.actions.choose({ kind: "break", reason: "Lunch" });
    }
    const reads = t.fcc.stateReads;
    // The event channel is open: the regular poll is once a minute in this setup.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(t.fcc.stateReads - reads).toBeLessThanOrEqual(1);
  });

  it("a refusal shows the platform's message and leaves the shown status true", async () => {
    const t = setup();
    await t.working();
    t.fcc.refuse = { code: 500, message: "agent 1001 is not signed in; sign in with ccLogin first" };
    await expect(t.actions.choose({ kind: "ready" })).rejects.toMatchObject({
      command: "ready",
      message: "agent 1001 is not signed in; sign in with ccLogin first",
    });
    expect(t.store.getState()).toMatchObject({
      pending: null,
      error: { command: "ready", message: "agent 1001 is not signed in; sign in with ccLogin first" },
      agent: { status: "On Break" },
    });
  });

  it("a change the platform accepts but never makes is reported as not confirmed", async () => {
    const t = setup({ confirmTimeoutMs: 400 });
    await t.working();
    t.fcc.applies = false;
    await expect(t.actions.choose({ kind: "ready" })).rejects.toMatchObject({
      message: "the platform did not confirm the change",
    });
    expect(t.store.getState().agent?.status).toBe("On Break");
    expect(t.store.getState().error?.command).toBe("ready");
  });

  it("during a call a status becomes the next status, applied when the call ends", async () => {
    const t = setup({ cc: new FakeCallCenter("1001", ["support"], { wrap_up_time: "0" }) });
    await t.working();
    await t.actions.choose({ kind: "ready" });
    const c = queueCall();
    t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now() }] });
    await t.actions.choose({ kind: "break", reason: "Lunch" });
    expect(t.store.getState().next).toEqual({ kind: "break", reason: "Lunch" });
    expect(t.fcc.commands.some((x) => x.func === "ccGoBreak")).toBe(false);
    t.callsStore.setState({ calls: [{ ...c, state: "ended", answeredAt: Date.now(), endedAt: Date.now() }] });
    await t.until((s) => s.agent?.status === "On Break" && s.agent.reason === "Lunch");
    expect(t.store.getState().next).toBeNull();
  });
});

describe("the agent's state as data", () => {
  it("is plain data at every step of a call: a snapshot crosses to a host page or another tab unchanged", async () => {
    const t = setup();
    await t.working();
    const snapshots = [structuredClone(t.store.getState())];
    const unsubscribe = t.store.subscribe((s) => snapshots.push(structuredClone(s)));
    t.fcc.call = {
      uuid: "leg-1",
      kind: "queue",
      direction: "inbound",
      queue: "support",
      member_uuid: "m1",
      customer_uuid: "c1",
      cid_name: "Carla",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    await t.actions.hold("call-1");
    takeQueueCall(t);
    await t.actions.setNotes("Asked about the invoice");
    unsubscribe();
    expect(snapshots.at(-1)).toEqual(t.store.getState());
    expect(snapshots.at(-1)).toMatchObject({
      platformCall: { held: true },
      wrapUp: { notes: "Asked about the invoice" },
    });
    for (const s of snapshots) expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe("a platform that shows only what the spec shows (no events, no X-CC headers, agent_state's seven fields)", () => {
  const specPlatform = () => {
    const cc = new FakeCallCenter();
    cc.specOnly = true;
    return setup({ cc });
  };
  const platformCall = (uuid: string, answered = false) => ({
    uuid,
    kind: "queue",
    direction: "inbound",
    queue: "support",
    member_uuid: "",
    customer_uuid: "",
    cid_name: "",
    cid_number: "",
    answered,
    held: false,
    consult: null,
  });

  it("an open channel that carries no event is no live feed: status is confirmed by reading agent_state", async () => {
    const t = specPlatform();
    await t.working({ quiet: true });
    expect(t.store.getState().feed).toBe("polling");
    await t.actions.choose({ kind: "ready" });
    expect(t.store.getState().agent).toMatchObject({ status: "Available", reason: "" });
    await t.actions.choose({ kind: "break", reason: "Lunch" });
    // The platform keeps no reason it could show: the one chosen stays while agent_state agrees.
    expect(t.store.getState().agent).toMatchObject({ status: "On Break", reason: "Lunch" });
    // Once events come, the feed is live.
    t.fcc.emit({ "CC-Action": "agent-state-change", "CC-Agent": "1002", "CC-Agent-State": "Idle" });
    expect(t.store.getState().feed).toBe("events");
  });

  it("a queue call that came without labels is labelled from agent_state's agent_uuid: the platform holds and transfers it, and it ends in after-call work without its queue", async () => {
    const t = specPlatform();
    await t.working({ quiet: true });
    await t.actions.choose({ kind: "ready" });
    // The INVITE carries nothing the call center could read.
    expect(t.hooks.incoming!(invite({}))).toBeUndefined();
    t.fcc.call = platformCall("leg-7");
    const ringing = call({ id: "call-7", direction: "inbound", state: "ringing" });
    t.callsStore.setState({ calls: [ringing] });
    await t.until(() => t.callsStore.getState().calls[0]!.context[CC.callId] === "leg-7");
    expect(t.callsStore.getState().calls[0]!.context).toEqual({ [CC.action]: "queue", [CC.callId]: "leg-7" });

    t.fcc.call = platformCall("leg-7", true);
    t.callsStore.setState({
      calls: [{ ...t.callsStore.getState().calls[0]!, state: "active", answeredAt: Date.now() }],
    });
    await t.actions.hold("call-7");
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccHold", body: { callID: "leg-7" } });
    const view = ccCallOf(t.callsStore.getState().calls[0]!, t.store.getState(), t.callsStore.getState().calls)!;
    expect(view).toMatchObject({ action: "queue", callId: "leg-7", queue: "", held: true, party: null });
    await t.actions.resume("call-7");
    await t.actions.transfer("call-7", { kind: "number", number: "5550142" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccTransfer", body: { callID: "leg-7", destNumber: "5550142" } });

    t.fcc.call = null;
    const answered = t.callsStore.getState().calls[0]!;
    t.callsStore.setState({
      calls: [{ ...answered, state: "ended", endedAt: Date.now(), end: { kind: "hangup", by: "remote" } }],
    });
    expect(t.store.getState().wrapUp).toMatchObject({
      id: "leg-7",
      queue: "",
      customerNumber: "5550100",
      customerName: "Carla Customer",
    });
  });

  it("a call of the phone alone stays the phone's: agent_state names no call", async () => {
    const t = specPlatform();
    await t.working({ quiet: true });
    const own = call({ id: "own-1", direction: "inbound", state: "active", answeredAt: Date.now() });
    t.callsStore.setState({ calls: [own] });
    await t.actions.hold("own-1");
    expect(t.phone.sip.at(-1)).toMatchObject({ method: "hold", id: "own-1" });
    expect(t.callsStore.getState().calls[0]!.context).toEqual({});
  });

  it("a click-to-dial without a callID: the leg the phone answers by itself is the dial's, and agent_state names it for Cancel", async () => {
    const t = specPlatform();
    await t.working({ quiet: true });
    await t.actions.dial("5550199");
    expect(t.fcc.commands.at(-1)).toMatchObject({ func: "ccDial" });
    expect(t.store.getState().dialling).toMatchObject({ number: "5550199", callId: "" });
    // agent_state shows the platform's leg ringing at the phone: Cancel could end it now.
    t.fcc.call = { ...platformCall("dial-leg-9"), kind: "dial", direction: "outbound", queue: "" };
    await t.until((s) => s.dialling?.callId === "dial-leg-9");

    const marker = { source: "call-info" as const, afterSec: 0, raw: "<sip:agentbar.local>;answer-after=0" };
    const leg = { ...invite({ "Call-Info": marker.raw }), autoAnswer: { answer: true as const, marker, afterSec: 0 } };
    const decision = t.hooks.incoming!(leg);
    expect(decision?.context).toEqual({ [CC.action]: "dial" });
    // The same marker on a call while no click-to-dial waits labels nothing.
    t.callsStore.setState({
      calls: [
        call({ id: "d9", direction: "inbound", state: "active", answeredAt: Date.now(), context: decision!.context! }),
      ],
    });
    expect(t.store.getState().dialling).toBeNull();
    expect(t.hooks.incoming!(leg)).toBeUndefined();
    await t.until(() => t.callsStore.getState().calls[0]!.context[CC.callId] === "dial-leg-9");
    expect(t.callsStore.getState().calls[0]!.context[CC.action]).toBe("dial");
  });
});
