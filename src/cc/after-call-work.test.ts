import { describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../session";
import { HOLD_LEAD_MS, TYPING_GRACE_MS, WRAP_UP_BREAK_REASON } from "./after-call-work";
import { ccCallOf } from "./cc-call";
import { CC } from "./queue-calls";
import { agentRigs, call, queueCall, takeQueueCall } from "./test-support/agent-rig";
import { FakeCallCenter } from "./test-support/fake-call-center";
import { dispositionFor } from "./wrap-up-storage";

const setup = agentRigs();

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
    await setup.endLast();

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
    await setup.endLast();

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
