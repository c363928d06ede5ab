import { afterEach, describe, expect, it } from "vitest";
import type { AgentStateCall } from "../api/cc";
import { memoryStorage, readJson, type KeyValueStorage } from "../session";
import { LIVE_CALL_KEY } from "./call-recovery";
import { CC } from "./queue-calls";
import { agentRig, invite, queueCall } from "./test-support/agent-rig";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ANSWERED_AT = Date.now() - 65_000;

/** The platform's view of the call while the page is away. */
const platformCall = (uuid = "leg-1"): AgentStateCall => ({
  uuid,
  kind: "queue",
  direction: "inbound",
  queue: "support",
  member_uuid: "member-1",
  customer_uuid: "customer-of-leg-1",
  cid_name: "Carla Customer",
  cid_number: "5550100",
  answered: true,
  held: false,
  consult: null,
});

/** A page of the agent: signed in, in its queues, with the tab's sessionStorage. */
async function page(tab: KeyValueStorage, call: AgentStateCall | null = null) {
  const t = agentRig(cleanups, { tabStorage: tab });
  t.fcc.call = call;
  await t.working();
  return t;
}

/** A page talking with a queue's customer, then going away (a reload): the phone left the call to the platform. */
async function pageReloadedDuringCall(tab: KeyValueStorage) {
  const t = await page(tab);
  const queued = queueCall();
  // It came with data (an IVR's input), which the leg taken back does not carry.
  const c = { ...queued, context: { ...queued.context, "data:X-IVR-Account": "12345" } };
  t.callsStore.setState({ calls: [c] });
  t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: ANSWERED_AT }] });
  t.callsStore.setState({
    calls: [
      {
        ...c,
        state: "ended",
        answeredAt: ANSWERED_AT,
        endedAt: Date.now(),
        end: { kind: "connection-lost", by: "system" },
      },
    ],
  });
  return t;
}

describe("a live call outlives the page", () => {
  it("the call-center hook marks calls with a customer to be left to the platform when the page goes away, not supervision legs", async () => {
    const t = await page(memoryStorage());
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "queue", "X-CC-Agent-UUID": "leg-1" }))).toMatchObject({
      keepOnUnload: true,
    });
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "leg-2" }))).toMatchObject({
      keepOnUnload: true,
    });
    expect(
      t.hooks.incoming!(invite({ "X-CC-Action": "monitor", "X-CC-Agent-UUID": "leg-3" }))?.keepOnUnload,
    ).toBeUndefined();
    expect(t.hooks.incoming!(invite({}))).toBeUndefined();
  });

  it("keeps the answered call in the tab's storage; a call that ends is forgotten, one the page left behind is not, and starts no after-call work", async () => {
    const tab = memoryStorage();
    const t = await page(tab);
    const c = queueCall();
    t.callsStore.setState({ calls: [c] });
    expect(tab.getItem(LIVE_CALL_KEY)).toBeNull();
    t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: ANSWERED_AT }] });
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({
      agent: "1001",
      callId: "leg-1",
      queue: "support",
      customerUuid: "customer-of-leg-1",
      answeredAt: ANSWERED_AT,
      name: "Carla Customer",
    });
    t.callsStore.setState({
      calls: [
        { ...c, state: "ended", answeredAt: ANSWERED_AT, endedAt: Date.now(), end: { kind: "hangup", by: "remote" } },
      ],
    });
    expect(tab.getItem(LIVE_CALL_KEY)).toBeNull();
    expect(t.store.getState().wrapUp).not.toBeNull();

    const left = memoryStorage();
    const u = await pageReloadedDuringCall(left);
    expect(readJson(left, LIVE_CALL_KEY)).toMatchObject({ callId: "leg-1" });
    expect(u.store.getState().wrapUp).toBeNull();
  });
});

describe("after a reload", () => {
  it("takes its own call back with ccIntercept; the platform's leg continues the call: labels, answered by itself, timer from the first answer", async () => {
    const tab = memoryStorage();
    await pageReloadedDuringCall(tab);
    const t = await page(tab, platformCall());
    await t.until(() => t.fcc.commands.some((c) => c.func === "ccIntercept"));
    expect(t.fcc.commands.find((c) => c.func === "ccIntercept")?.body).toEqual({
      agent: "1001",
      extn: "1001",
      destAgent: "1001",
      destUUID: "leg-1",
    });

    // Another INVITE is not the call taken back.
    expect(
      t.hooks.incoming!(invite({ "X-CC-Action": "monitor", "X-CC-Agent-UUID": "leg-9", "X-CC-Target-UUID": "leg-7" }))
        ?.answeredAt,
    ).toBeUndefined();
    const decision = t.hooks.incoming!(
      invite({ "X-CC-Action": "intercept", "X-CC-Agent-UUID": "leg-2", "X-CC-Target-UUID": "leg-1" }),
    );
    expect(decision).toEqual({
      context: {
        "data:X-IVR-Account": "12345",
        [CC.action]: "queue",
        [CC.callId]: "leg-2",
        [CC.queue]: "support",
        [CC.customerUuid]: "customer-of-leg-1",
        // Answered by hand the first time: the card does not say "answered automatically".
        [CC.continued]: "manual",
        // The same conversation: its notes go on with it.
        [CC.conversation]: "customer-of-leg-1",
      },
      autoAnswer: true,
      keepOnUnload: true,
      muted: false,
      answeredAt: ANSWERED_AT,
    });
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({ callId: "leg-2" });
    // Once the phone has it, reading agent_state again asks for nothing more.
    t.callsStore.setState({ calls: [{ ...queueCall("call-1", "leg-2"), state: "active", answeredAt: ANSWERED_AT }] });
    t.fcc.call = platformCall("leg-2");
    await t.actions.refresh();
    expect(t.fcc.commands.filter((c) => c.func === "ccIntercept")).toHaveLength(1);
    expect(t.store.getState().error).toBeNull();
  });

  it("a call the agent had muted is taken back muted, and one that had answered by itself still says so", async () => {
    const tab = memoryStorage();
    const t = await page(tab);
    const c = queueCall();
    t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: ANSWERED_AT }] });
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({ muted: false, autoAnswered: false });
    const answeredByItself = {
      ...c,
      state: "active" as const,
      answeredAt: ANSWERED_AT,
      muted: true,
      autoAnswer: { decidedBy: "handler" as const, afterSec: 0, answerAt: ANSWERED_AT },
    };
    t.callsStore.setState({ calls: [answeredByItself] });
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({ muted: true, autoAnswered: true });
    t.callsStore.setState({
      calls: [
        { ...answeredByItself, state: "ended", endedAt: Date.now(), end: { kind: "connection-lost", by: "system" } },
      ],
    });

    const next = await page(tab, platformCall());
    await next.until(() => next.fcc.commands.some((c) => c.func === "ccIntercept"));
    const decision = next.hooks.incoming!(
      invite({ "X-CC-Action": "intercept", "X-CC-Agent-UUID": "leg-2", "X-CC-Target-UUID": "leg-1" }),
    );
    expect(decision).toMatchObject({ muted: true, context: { [CC.continued]: "auto" } });
  });

  it("reloaded again while the take-back's leg rang, takes back the call the platform still has on its older leg", async () => {
    const tab = memoryStorage();
    await pageReloadedDuringCall(tab);
    const second = await page(tab, platformCall());
    await second.until(() => second.fcc.commands.some((c) => c.func === "ccIntercept"));
    second.hooks.incoming!(
      invite({ "X-CC-Action": "intercept", "X-CC-Agent-UUID": "leg-2", "X-CC-Target-UUID": "leg-1" }),
    );
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({ callId: "leg-2" });

    // The page went away before leg-2 answered: the platform's call is still on leg-1.
    const third = await page(tab, platformCall());
    await third.until(() => third.fcc.commands.some((c) => c.func === "ccIntercept"));
    expect(third.fcc.commands.find((c) => c.func === "ccIntercept")?.body).toMatchObject({ destUUID: "leg-1" });
    const decision = third.hooks.incoming!(
      invite({ "X-CC-Action": "intercept", "X-CC-Agent-UUID": "leg-3", "X-CC-Target-UUID": "leg-1" }),
    );
    expect(decision).toMatchObject({
      context: { [CC.action]: "queue", [CC.callId]: "leg-3", [CC.queue]: "support" },
      autoAnswer: true,
      answeredAt: ANSWERED_AT,
    });
    expect(readJson(tab, LIVE_CALL_KEY)).toMatchObject({ callId: "leg-3", name: "Carla Customer" });
  });

  it("a platform that refuses says so in words, and the call is left to it", async () => {
    const tab = memoryStorage();
    await pageReloadedDuringCall(tab);
    const t = agentRig(cleanups, { tabStorage: tab });
    t.fcc.call = platformCall();
    t.fcc.refuse = {
      code: 403,
      message: "no permission: ccIntercept needs a supervisor or an administrator",
      func: "ccIntercept",
    };
    await t.working();
    const s = await t.until((s) => s.error !== null);
    expect(s.error).toMatchObject({
      command: "take-back",
      kind: "refused",
      message: "no permission: ccIntercept needs a supervisor or an administrator",
    });
    expect(tab.getItem(LIVE_CALL_KEY)).toBeNull();
  });

  it("a call that ended while no page had it starts its after-call work", async () => {
    const tab = memoryStorage();
    await pageReloadedDuringCall(tab);
    const t = await page(tab, null);
    const s = await t.until((s) => s.wrapUp !== null);
    expect(s.wrapUp).toMatchObject({
      id: "leg-1",
      queue: "support",
      customerName: "Carla Customer",
      customerNumber: "5550100",
    });
    expect(t.fcc.commands.some((c) => c.func === "ccIntercept")).toBe(false);
    expect(tab.getItem(LIVE_CALL_KEY)).toBeNull();
  });
});
