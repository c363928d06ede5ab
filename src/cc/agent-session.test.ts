import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../session";
import { HOLD_LEAD_MS, TYPING_GRACE_MS, WRAP_UP_BREAK_REASON } from "./after-call-work";
import { ccCallOf } from "./cc-call";
import { CC } from "./queue-calls";
import { agentRig, call, invite, queueCall, takeQueueCall } from "./test-support/agent-rig";
import { FakeCallCenter } from "./test-support/fake-call-center";
import { dispositionFor } from "./wrap-up-storage";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.useRealTimers();
});

const setup = (o: Parameters<typeof agentRig>[1] = {}) => agentRig(cleanups, o);

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
    await cleanups.pop()!();
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

describe("after-call work", () => {
  it("lasts until Done: a little before wrap_up_time ends the agent is held On Break (After-call work), and Done makes it Ready again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    t.settings.getState().change({ wrapUpMaxSec: 0 });
    await t.working();
    await t.actions.choose({ kind: "ready" });
    takeQueueCall(t);
    const w = t.store.getState().wrapUp!;
    expect(w).toMatchObject({
      id: "leg-1",
      customerUuid: "customer-of-leg-1",
      queue: "support",
      customerNumber: "5550100",
      wrapUpSec: 10,
      endsAt: 0,
      next: { kind: "ready" },
      heldOnBreak: false,
    });
    expect(w.platformEndsAt - w.callEndedAt).toBe(10_000);
    const sent = t.fcc.commands.length;
    // Nothing is sent while the platform's own wrap_up_time holds offers back...
    await vi.advanceTimersByTimeAsync(10_000 - HOLD_LEAD_MS - 100);
    expect(t.fcc.commands.length).toBe(sent);
    // ...and a little before it ends, the break the agent did not ask for.
    await vi.advanceTimersByTimeAsync(200);
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccGoBreak",
      body: { agent: "1001", reason: WRAP_UP_BREAK_REASON, queue: "support" },
    });
    expect(t.store.getState().wrapUp).toMatchObject({ heldOnBreak: true });
    t.actions.setNotes("Asked about the invoice of March.");
    // No maximum: it lasts as long as the agent needs.
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(t.store.getState().wrapUp).not.toBeNull();
    await t.actions.finishWrapUp();
    expect(t.store.getState().wrapUp).toBeNull();
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccGoReady", body: { agent: "1001", queue: "support" } });
    expect(t.store.getState()).toMatchObject({ agent: { status: "Available" }, nextOfferAt: 0 });
    expect(dispositionFor(t.device, "leg-1")).toMatchObject({ notes: "Asked about the invoice of March." });
    // The customer's uuid finds the same record (the history lists either).
    expect(dispositionFor(t.device, "customer-of-leg-1")?.id).toBe("leg-1");
  });

  it("Done before wrap_up_time is over sends nothing and says when the platform lets the next call come", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    await t.actions.choose({ kind: "ready" });
    const sent = t.fcc.commands.length;
    takeQueueCall(t);
    const { platformEndsAt } = t.store.getState().wrapUp!;
    await vi.advanceTimersByTimeAsync(2_000);
    await t.actions.finishWrapUp();
    expect(t.store.getState()).toMatchObject({ wrapUp: null, nextOfferAt: platformEndsAt });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(t.fcc.commands.length).toBe(sent);
  });

  it("a break chosen meanwhile holds offers back at once and stays after Done; Ready chosen waits for Done; a sign-out does not", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    await t.actions.choose({ kind: "ready" });
    takeQueueCall(t);
    // The platform's wrap_up_time may end before the work: a break must not wait for it.
    await t.actions.choose({ kind: "break", reason: "Lunch" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccGoBreak",
      body: { agent: "1001", reason: "Lunch", queue: "support" },
    });
    expect(t.store.getState()).toMatchObject({
      agent: { status: "On Break", reason: "Lunch" },
      wrapUp: { id: "leg-1", next: { kind: "break", reason: "Lunch" }, heldOnBreak: false },
    });
    // On a break already: no break of after-call work on top of it.
    const sent = t.fcc.commands.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(t.fcc.commands.length).toBe(sent);
    await t.actions.choose({ kind: "ready" });
    expect(t.fcc.commands.length).toBe(sent);
    await t.actions.choose({ kind: "logged-out" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccLogout", body: { agent: "1001", queue: "support" } });
    expect(t.store.getState()).toMatchObject({
      agent: { status: "Logged Out" },
      wrapUp: { next: { kind: "logged-out" } },
    });
    await t.actions.choose({ kind: "ready" });
    await t.actions.finishWrapUp();
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccGoReady", body: { agent: "1001", queue: "support" } });
    expect(t.store.getState().agent?.status).toBe("Available");
  });

  it("a break chosen during the call holds offers back as soon as the call ends, while after-call work goes on", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    await t.actions.choose({ kind: "ready" });
    const c = queueCall();
    t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now() }] });
    await t.actions.choose({ kind: "break", reason: "Training" });
    expect(t.fcc.commands.some((x) => x.func === "ccGoBreak")).toBe(false);
    t.callsStore.setState({ calls: [{ ...c, state: "ended", answeredAt: Date.now(), endedAt: Date.now() }] });
    await t.until((s) => s.agent?.status === "On Break");
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccGoBreak",
      body: { agent: "1001", reason: "Training", queue: "support" },
    });
    expect(t.store.getState().wrapUp?.next).toEqual({ kind: "break", reason: "Training" });
  });

  it("a queue's customer handed over by another agent ends in after-call work, with the customer the platform names", async () => {
    const t = setup();
    await t.working();
    // A consultation leg: the phone knows only the consulting agent; the platform says it became this agent's customer.
    const leg = call({
      id: "consult-1",
      remote: { number: "1002", name: "Bob Agent", uri: "sip:1002@agentbar.local", withheld: false },
      context: { [CC.action]: "consult", [CC.customerUuid]: "c9" },
    });
    t.fcc.call = {
      uuid: "leg-9",
      kind: "handover",
      direction: "inbound",
      queue: "support",
      member_uuid: "m9",
      customer_uuid: "c9",
      cid_name: "Carla Customer",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    t.callsStore.setState({ calls: [{ ...leg, state: "active", answeredAt: Date.now() }] });
    await t.until((s) => s.platformCall?.kind === "handover");
    t.callsStore.setState({ calls: [{ ...leg, state: "ended", answeredAt: Date.now(), endedAt: Date.now() }] });
    expect(t.store.getState().wrapUp).toMatchObject({
      id: "leg-9",
      customerUuid: "c9",
      queue: "support",
      customerName: "Carla Customer",
      customerNumber: "5550100",
    });
  });

  it("a handover the platform tells by bridge-agent-start names the customer at once and ends in after-call work, before agent_state shows it", async () => {
    const t = setup();
    await t.working();
    // agent_state still shows no call: only the event tells.
    const leg = call({
      id: "consult-1",
      remote: { number: "1002", name: "Bob Agent", uri: "sip:1002@agentbar.local", withheld: false },
      context: { [CC.action]: "consult", [CC.customerUuid]: "c9" },
    });
    t.callsStore.setState({ calls: [{ ...leg, state: "active", answeredAt: Date.now() }] });
    // Another customer's bridge is not this call's.
    t.fcc.emit({
      "CC-Action": "bridge-agent-start",
      "CC-Agent": "1001",
      "CC-Queue": "support",
      "CC-Agent-UUID": "leg-8",
      "CC-Member-Session-UUID": "c8",
      "CC-Member-CID-Name": "Other",
    });
    expect(t.store.getState().platformCall).toBeNull();
    t.fcc.emit({
      "CC-Action": "bridge-agent-start",
      "CC-Agent": "1001",
      "CC-Queue": "support",
      "CC-Agent-UUID": "leg-9",
      "CC-Member-UUID": "m9",
      "CC-Member-Session-UUID": "c9",
      "CC-Member-CID-Name": "Carla Customer",
      "CC-Member-CID-Number": "5550100",
    });
    const live = t.callsStore.getState().calls;
    expect(ccCallOf(live[0]!, t.store.getState(), live)).toMatchObject({
      callId: "leg-9",
      queue: "support",
      party: { name: "Carla Customer", number: "5550100" },
    });
    t.callsStore.setState({ calls: [{ ...leg, state: "ended", answeredAt: Date.now(), endedAt: Date.now() }] });
    expect(t.store.getState().wrapUp).toMatchObject({
      id: "leg-9",
      customerUuid: "c9",
      queue: "support",
      customerName: "Carla Customer",
      customerNumber: "5550100",
    });
  });

  it("a consultation that stays one (never a handover) ends without after-call work", async () => {
    const t = setup();
    await t.working();
    const leg = call({ id: "consult-1", context: { [CC.action]: "consult", [CC.customerUuid]: "c9" } });
    const reads = t.fcc.stateReads;
    t.callsStore.setState({ calls: [{ ...leg, state: "active", answeredAt: Date.now() }] });
    await t.until(() => t.fcc.stateReads > reads);
    t.callsStore.setState({ calls: [{ ...leg, state: "ended", answeredAt: Date.now(), endedAt: Date.now() }] });
    expect(t.store.getState().wrapUp).toBeNull();
  });

  it("the maximum of the settings ends it by itself, never while the agent types; Extend adds to it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    t.settings.getState().change({ wrapUpMaxSec: 60 });
    await t.working();
    await t.actions.choose({ kind: "ready" });
    takeQueueCall(t);
    expect(t.store.getState().wrapUp!.endsAt - t.store.getState().wrapUp!.callEndedAt).toBe(60_000);
    await t.actions.extendWrapUp(60);
    expect(t.store.getState().wrapUp).toMatchObject({ extendedSec: 60 });
    await vi.advanceTimersByTimeAsync(118_000);
    // Typing as the maximum comes: it waits for a pause.
    t.actions.setNotes("Still writing");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(t.store.getState().wrapUp).not.toBeNull();
    t.actions.setNotes("Still writing, and more");
    await vi.advanceTimersByTimeAsync(TYPING_GRACE_MS - 1_000);
    expect(t.store.getState().wrapUp).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(t.store.getState().wrapUp).toBeNull();
    expect(dispositionFor(t.device, "leg-1")).toMatchObject({ notes: "Still writing, and more" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccGoReady", body: { agent: "1001", queue: "support" } });
  });

  it("notes typed during the call are kept through a reload and carried into after-call work; a call without it keeps them in its record", async () => {
    const device = memoryStorage();
    const first = setup({ storage: device });
    await first.working();
    const c = queueCall();
    first.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now() }] });
    await first.actions.setCallNotes(c.id, "Wants a refund");
    expect(first.store.getState().callNotes).toEqual({ "customer-of-leg-1": "Wants a refund" });
    await cleanups.pop()!();

    // The next page (its call taken back on a new leg, the same customer) has them still.
    const second = setup({ storage: device });
    await second.working();
    expect(second.store.getState().callNotes).toEqual({ "customer-of-leg-1": "Wants a refund" });
    const taken = queueCall("call-2", "leg-2");
    const back = {
      ...taken,
      context: { ...taken.context, [CC.customerUuid]: "customer-of-leg-1", [CC.conversation]: "customer-of-leg-1" },
    };
    second.callsStore.setState({ calls: [{ ...back, state: "active", answeredAt: Date.now() }] });
    await second.actions.setCallNotes(back.id, "Wants a refund for March");
    second.callsStore.setState({
      calls: [
        { ...back, state: "ended", answeredAt: Date.now(), endedAt: Date.now(), end: { kind: "hangup", by: "remote" } },
      ],
    });
    expect(second.store.getState().wrapUp).toMatchObject({ id: "leg-2", notes: "Wants a refund for March" });
    expect(second.store.getState().callNotes).toEqual({});

    // The agent's own call out has no after-call work: its notes go to its record as it ends.
    const out = call({ id: "d1", direction: "outbound", context: { [CC.action]: "dial", [CC.callId]: "dial-leg-1" } });
    second.callsStore.setState({ calls: [{ ...out, state: "active", answeredAt: Date.now() }] });
    await second.actions.setCallNotes(out.id, "Confirmed the appointment");
    second.callsStore.setState({
      calls: [
        { ...out, state: "ended", answeredAt: Date.now(), endedAt: Date.now(), end: { kind: "hangup", by: "local" } },
      ],
    });
    expect(dispositionFor(device, "dial-leg-1")).toMatchObject({ notes: "Confirmed the appointment" });
  });

  it("a second wrap-up never loses the first one's notes", async () => {
    const t = setup();
    await t.working();
    takeQueueCall(t);
    t.actions.setNotes("First customer's notes");
    takeQueueCall(t, "call-2", "leg-2");
    expect(t.store.getState().wrapUp?.id).toBe("leg-2");
    expect(dispositionFor(t.device, "leg-1")).toMatchObject({ notes: "First customer's notes" });
  });

  it("disposition and notes survive a reload, and the countdown goes on where it was", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const device = memoryStorage();
    const fcc = new FakeCallCenter("1001", ["support"], { wrap_up_time: "60" });
    const first = setup({ cc: fcc, storage: device });
    await first.working();
    takeQueueCall(first);
    first.actions.setDisposition("Follow-up needed");
    first.actions.setNotes("Call back on Friday");
    const endsAt = first.store.getState().wrapUp!.endsAt;
    await vi.advanceTimersByTimeAsync(20_000);
    // The page goes away (reload, crash) and comes back.
    await cleanups.pop()!();

    const second = setup({ cc: fcc, storage: device });
    await second.working();
    expect(second.store.getState().wrapUp).toMatchObject({
      id: "leg-1",
      disposition: "Follow-up needed",
      notes: "Call back on Friday",
      endsAt,
    });
    await second.actions.finishWrapUp();
    expect(second.store.getState().wrapUp).toBeNull();
    expect(dispositionFor(device, "leg-1")).toMatchObject({
      disposition: "Follow-up needed",
      notes: "Call back on Friday",
    });
  });
});

describe("calls through the call center", () => {
  it("the dial pad's numbers go out with ccDial while the agent works; SIP addresses stay with the phone", async () => {
    const t = setup();
    await t.working();
    expect(await t.hooks.dialer!("(555) 010-0199")).toBe(true);
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccDial",
      body: { agent: "1001", extn: "1001", destNumber: "5550100199" },
    });
    expect(t.store.getState().dialling).toEqual({
      number: "5550100199",
      callId: "dial-leg-1",
      at: expect.any(Number),
      failed: null,
    });
    expect(await t.hooks.dialer!("bob@example.com")).toBe(false);
    t.settings.getState().change({ outboundCalls: "phone" });
    expect(await t.hooks.dialer!("5550100199")).toBe(false);
  });

  it("shows a click-to-dial's progress until the phone rings; Cancel ends the platform's leg", async () => {
    const t = setup();
    await t.working();
    const dialling = t.actions.dial("5550199");
    // At once, before the platform answers.
    expect(t.store.getState().dialling).toMatchObject({ number: "5550199", failed: null });
    await dialling;
    // The platform's leg reaches the phone: the call's card takes over.
    t.callsStore.setState({
      calls: [call({ id: "d1", direction: "outbound", context: { [CC.action]: "dial", [CC.callId]: "dial-leg-1" } })],
    });
    expect(t.store.getState().dialling).toBeNull();

    t.callsStore.setState({ calls: [] });
    await t.actions.dial("5550198");
    await t.actions.cancelDial();
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    expect(t.store.getState().dialling).toBeNull();
  });

  it("Cancel before the platform answers ccDial ends the leg it then names; a refusal then is no error", async () => {
    const t = setup();
    await t.working();
    let held = t.fcc.holdNextDial();
    const dialling = t.actions.dial("5550199");
    await held.asked;
    await t.actions.cancelDial();
    expect(t.store.getState().dialling).toBeNull();
    held.answer();
    await dialling;
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    expect(t.store.getState()).toMatchObject({ dialling: null, error: null });
    // The leg was under way to the phone: it is turned away when it arrives.
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-1" }))).toMatchObject({
      reject: 603,
    });

    held = t.fcc.holdNextDial();
    t.fcc.refuse = { code: 500, message: "can not find group?" };
    const refused = t.actions.dial("5550198");
    await held.asked;
    await t.actions.cancelDial();
    held.answer();
    await refused;
    expect(t.store.getState()).toMatchObject({ dialling: null, error: null });
  });

  it("the leg of a click-to-dial cancelled before ccDial answered is turned away if it reaches the phone first, and not killed as well", async () => {
    const t = setup();
    await t.working();
    let held = t.fcc.holdNextDial();
    const dialling = t.actions.dial("5550199");
    await held.asked;
    await t.actions.cancelDial();
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-1" }))).toMatchObject({
      reject: 603,
      context: { [CC.action]: "dial" },
    });
    held.answer();
    await dialling;
    expect(t.fcc.commands.filter((x) => x.func === "ccKill")).toEqual([]);

    // The next click-to-dial is the agent's: its leg rings through.
    t.fcc.dialLeg = "dial-leg-2";
    held = t.fcc.holdNextDial();
    const next = t.actions.dial("5550198");
    await held.asked;
    expect(
      t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-2" }))?.reject,
    ).toBeUndefined();
    held.answer();
    await next;
    expect(t.store.getState().dialling).toMatchObject({ number: "5550198", callId: "dial-leg-2" });
  });

  it("a refused click-to-dial leaves no progress and says why", async () => {
    const t = setup();
    await t.working();
    t.fcc.refuse = { code: 500, message: "can not find group?" };
    await expect(t.actions.dial("5550199")).rejects.toMatchObject({ command: "dial", message: "can not find group?" });
    expect(t.store.getState()).toMatchObject({
      dialling: null,
      error: { command: "dial", message: "can not find group?" },
    });
  });

  it("a click-to-dial whose phone does not ring within 30 s fails, saying so, and its leg is ended", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    await t.actions.dial("5550199");
    await vi.advanceTimersByTimeAsync(29_000);
    expect(t.store.getState().dialling?.failed).toBeNull();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.store.getState().dialling).toMatchObject({ number: "5550199", failed: "no-ring" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    // Dismissing the failure sends nothing more.
    await t.actions.cancelDial();
    expect(t.store.getState().dialling).toBeNull();
    expect(t.fcc.commands.filter((x) => x.func === "ccKill")).toHaveLength(1);
  });

  it("a click-to-dial the platform ends before the phone rings fails, saying so", async () => {
    const t = setup();
    await t.working();
    t.fcc.call = {
      uuid: "dial-leg-1",
      kind: "dial",
      direction: "outbound",
      queue: "",
      member_uuid: "",
      customer_uuid: "",
      cid_name: "5550199",
      cid_number: "5550199",
      answered: false,
      held: false,
      consult: null,
    };
    await t.actions.dial("5550199");
    await t.until((s) => s.platformCall?.uuid === "dial-leg-1");
    expect(t.store.getState().dialling?.failed).toBeNull();
    t.fcc.call = null;
    await t.until((s) => s.dialling?.failed === "ended");
  });

  it("consult and three-way to an agent name the extension its calls ring", async () => {
    const t = setup();
    await t.working();
    t.fcc.others = [
      { ...t.fcc.record(), agent_id: "1002", extn: "1003", name: "Bob Agent", status: "Available", state: "READY" },
    ];
    await t.actions.loadColleagues();
    expect(t.store.getState().colleagues).toEqual([
      { number: "1002", name: "Bob Agent", status: "Available", callstate: "IDLE", extension: "1003" },
    ]);
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
    await t.actions.threeWay("call-1", { kind: "agent", number: "1002" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccThreeWay",
      body: { agent: "1001", callID: "leg-1", destAgent: "1002", destExtn: "1003" },
    });
    t.fcc.refuse = { code: 404, message: "agent '1004' not found" };
    await expect(t.actions.consult("call-1", { kind: "agent", number: "1004" })).rejects.toMatchObject({
      command: "consult",
    });
    // An agent the toolbar knows no extension of: its number, the extension on this platform.
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccConsult",
      body: { agent: "1001", callID: "leg-1", destAgent: "1004", destExtn: "1004" },
    });
  });

  it("hold waits for the platform to report the call held; transfer names a queue, an agent or a number", async () => {
    const t = setup();
    await t.working();
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
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccHold", body: { callID: "leg-1" } });
    expect(ccCallOf(t.callsStore.getState().calls[0]!, t.store.getState(), t.callsStore.getState().calls)?.held).toBe(
      true,
    );
    await t.actions.resume("call-1");
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccUnHold", body: { callID: "leg-1" } });

    await t.actions.transfer("call-1", { kind: "queue", name: "sales" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccTransfer", body: { callID: "leg-1", destNumber: "sales" } });
    t.fcc.refuse = { code: 404, message: "agent '1099' not found" };
    await expect(t.actions.consult("call-1", { kind: "agent", number: "1099" })).rejects.toMatchObject({
      message: "agent '1099' not found",
    });
    await t.actions.threeWay("call-1", { kind: "number", number: "5550142" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccThreeWay",
      body: { agent: "1001", callID: "leg-1", destAgent: "PSTN", destExtn: "5550142" },
    });
  });

  it("tells the agent a supervisor is on its call where the platform says so: by event, then by agent_state, and when the supervisor leaves", async () => {
    const t = setup();
    await t.working();
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
    const card = () => {
      const live = t.callsStore.getState().calls;
      return ccCallOf(live[0]!, t.store.getState(), live)?.supervised;
    };
    expect(card()).toBeNull();
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1001",
      "CC-Agent-UUID": "leg-1",
      "CC-Supervision-Mode": "listen",
      "CC-Supervisor": "1010",
      "CC-Supervisor-Name": "Sam Supervisor",
    });
    // The platform's word `listen` is read as the app's `monitor`.
    expect(t.store.getState().supervised).toEqual({ mode: "monitor", by: "Sam Supervisor", callId: "leg-1" });
    expect(card()).toEqual({ mode: "monitor", by: "Sam Supervisor" });
    // Another agent's supervision is not this agent's; another call of this agent's is not this card's.
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1002",
      "CC-Agent-UUID": "leg-2",
      "CC-Supervision-Mode": "whisper",
      "CC-Supervisor": "1010",
    });
    expect(card()).toEqual({ mode: "monitor", by: "Sam Supervisor" });
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1001",
      "CC-Agent-UUID": "leg-1",
      "CC-Supervision-Mode": "none",
      "CC-Supervisor": "1010",
    });
    expect(t.store.getState().supervised).toBeNull();

    // Without events, agent_state tells it (on a platform that lists it), and its absence clears it.
    t.fcc.supervision = { mode: "whisper", by: "1010", by_name: "Sam Supervisor" };
    await t.actions.refresh();
    expect(card()).toEqual({ mode: "whisper", by: "Sam Supervisor" });
    t.fcc.supervision = undefined;
    await t.actions.refresh();
    expect(card()).toBeNull();
  });

  it("the card shows who the platform says the agent talks to", () => {
    const c = { ...call({ context: { [CC.action]: "consult", [CC.callId]: "leg-9" } }), state: "active" as const };
    const platformCall = {
      uuid: "leg-9",
      kind: "handover",
      direction: "inbound",
      queue: "support",
      member_uuid: "",
      customer_uuid: "c9",
      cid_name: "Carla Customer",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    expect(ccCallOf(c, { platformCall, agent: null }, [c])?.party).toEqual({
      name: "Carla Customer",
      number: "5550100",
    });
    // A call of the phone alone, with no platform call, is not a call-center call.
    expect(ccCallOf(call({}), { platformCall: null, agent: null }, [])).toBeUndefined();
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
