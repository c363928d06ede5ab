import { afterEach, describe, expect, it, vi } from "vitest";
import type { RegistrationState } from "../softphone";
import { FakePage } from "../softphone/testing/mock-media";
import { PHONE_LOST_GRACE_MS, PHONE_UNREACHABLE_REASON } from "./phone-watch";
import { agentRig, call, queueCall } from "./test-support/agent-rig";
import { FakeCallCenter } from "./test-support/fake-call-center";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.useRealTimers();
});

/** A working agent, Ready, whose page is `page`; time is the test's. */
async function readyAgent() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
  const page = new FakePage();
  const t = agentRig(cleanups, { page });
  await t.working();
  t.fcc.setStatus("Available");
  const registration = (r: RegistrationState) => t.phone.phoneStore.setState({ registration: r });
  const lost = () =>
    registration({
      status: "reconnecting",
      attempt: 1,
      nextAttemptAt: Date.now() + 1000,
      error: { kind: "transport", detail: "socket closed" },
    });
  const back = () => registration({ status: "registered", registeredAt: Date.now() });
  const breaks = () => t.fcc.commands.filter((c) => c.func === "ccGoBreak");
  return { ...t, page, lost, back, breaks, registration };
}

describe("a lost registration", () => {
  it("sets a Ready agent On Break once the grace has passed, once; the registration back clears it", async () => {
    const t = await readyAgent();
    t.lost();
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS - 100);
    expect(t.breaks()).toEqual([]);
    expect(t.store.getState().phoneWatch.trouble).toBeNull();

    await vi.advanceTimersByTimeAsync(100);
    expect(t.store.getState().phoneWatch.trouble).toBe("lost");
    expect(t.breaks()).toEqual([
      { func: "ccGoBreak", body: { agent: "1001", reason: PHONE_UNREACHABLE_REASON, queue: "support" } },
    ]);
    await t.until((s) => s.agent?.status === "On Break" && s.agent.reason === PHONE_UNREACHABLE_REASON && !s.pending);

    // Attempts come and go while the trouble lasts; the agent goes Ready by choice: never a second break.
    t.registration({ status: "connecting", attempt: 2 });
    t.lost();
    await t.actions.choose({ kind: "ready" });
    await vi.advanceTimersByTimeAsync(3 * PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toHaveLength(1);
    expect(t.store.getState().phoneWatch.trouble).toBe("lost");

    t.back();
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: null });
    // Registered again, the agent is left as it chose: nothing goes Ready by itself.
    expect(t.fcc.commands.filter((c) => c.func === "ccGoReady")).toHaveLength(1);
  });

  it("back within the grace changes nothing", async () => {
    const t = await readyAgent();
    t.lost();
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS / 2);
    t.back();
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toEqual([]);
    expect(t.store.getState().phoneWatch.trouble).toBeNull();
  });

  it("leaves an agent on a break of its own, or on a call, as it is; a call that ends with the phone still lost ends On Break", async () => {
    const t = await readyAgent();
    t.fcc.setStatus("On Break", "Lunch");
    t.lost();
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    expect(t.store.getState().phoneWatch.trouble).toBe("lost");
    expect(t.breaks()).toEqual([]);
    t.back();

    t.fcc.setStatus("Available");
    const c = queueCall();
    t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now() }] });
    t.lost();
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toEqual([]);
    // The call ends (the customer hung up): after-call work starts, with offers held back at once and the break as what comes after it.
    t.callsStore.setState({
      calls: [
        {
          ...c,
          state: "ended",
          answeredAt: Date.now() - 60_000,
          endedAt: Date.now(),
          end: { kind: "hangup", by: "remote" },
        },
      ],
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(t.breaks()).toHaveLength(1);
    expect(t.store.getState().wrapUp?.next).toEqual({ kind: "break", reason: PHONE_UNREACHABLE_REASON });
  });

  it("a break the platform refuses is not sent again for the same trouble; the next trouble tries again", async () => {
    const t = await readyAgent();
    t.fcc.refuse = { code: 500, message: "busy" };
    t.lost();
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS);
    await t.until((s) => s.error !== null);
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: "lost", breakSetAt: 0 });
    t.fcc.refuse = undefined;
    t.fcc.setStatus("Available (On Demand)");
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toHaveLength(1);

    t.back();
    t.lost();
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toHaveLength(2);
    await t.until((s) => s.agent?.reason === PHONE_UNREACHABLE_REASON && s.phoneWatch.breakSetAt > 0);
  });
});

describe("a page the browser freezes", () => {
  it("sends the break from the freeze event with keep-alive; woken, it says so until the agent goes Ready", async () => {
    const t = await readyAgent();
    t.page.fire("freeze");
    expect(t.store.getState().phoneWatch.trouble).toBe("asleep");
    // The request leaves in the event's own microtasks: no timer or later task runs in a frozen page.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(t.platform.calls.filter((c) => c.path === "/api/cc/ccc/ccGoBreak")).toMatchObject([
      { keepalive: true, body: { reason: PHONE_UNREACHABLE_REASON } },
    ]);

    t.page.fire("resume");
    await t.until((s) => s.agent?.status === "On Break" && !s.pending);
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: { at: Date.now() } });
    // Awake, requests are ordinary again.
    await t.actions.choose({ kind: "ready" });
    expect(t.platform.calls.find((c) => c.path === "/api/cc/ccc/ccGoReady")?.keepalive).toBeUndefined();
    expect(t.store.getState().phoneWatch.woke).toBeNull();
    expect(t.breaks()).toHaveLength(1);
  });

  it("a page woken without its registration is lost at once; the note stays until dismissed", async () => {
    const t = await readyAgent();
    t.page.fire("freeze");
    t.lost();
    t.page.fire("resume");
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: "lost", woke: { at: Date.now() } });
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    expect(t.breaks()).toHaveLength(1);
    t.back();
    await t.actions.dismissPhoneNote();
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: null });
  });

  it("a phone that registers again on waking is not lost; one still unregistered after the grace is", async () => {
    const t = await readyAgent();
    t.page.fire("freeze");
    // The phone unregistered with the page's sleep.
    t.registration({ status: "stopped" });
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    t.registration({ status: "registering", attempt: 1 });
    t.page.fire("resume");
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: { at: Date.now() } });
    t.back();
    await vi.advanceTimersByTimeAsync(2 * PHONE_LOST_GRACE_MS);
    expect(t.store.getState().phoneWatch.trouble).toBeNull();

    t.page.fire("freeze");
    t.registration({ status: "registering", attempt: 1 });
    t.page.fire("resume");
    expect(t.store.getState().phoneWatch.trouble).toBeNull();
    await vi.advanceTimersByTimeAsync(PHONE_LOST_GRACE_MS);
    expect(t.store.getState().phoneWatch.trouble).toBe("lost");
    expect(t.breaks()).toHaveLength(1);
  });

  it("an agent on a break, or on a call, is left as it is and told nothing", async () => {
    const t = await readyAgent();
    t.callsStore.setState({ calls: [call({ id: "call-1", state: "active", answeredAt: Date.now() })] });
    t.page.fire("freeze");
    t.page.fire("resume");
    t.callsStore.setState({ calls: [] });
    t.fcc.setStatus("On Break", "Lunch");
    t.page.fire("freeze");
    t.page.fire("resume");
    await vi.advanceTimersByTimeAsync(0);
    expect(t.breaks()).toEqual([]);
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: null });
  });
});

describe("a page that starts", () => {
  it("finding the agent On Break for an unreachable phone (a reload, another tab's), offers Go Ready; any other break it leaves alone", async () => {
    const fcc = new FakeCallCenter();
    fcc.setStatus("On Break", PHONE_UNREACHABLE_REASON);
    const t = agentRig(cleanups, { cc: fcc });
    await t.working();
    expect(t.store.getState().phoneWatch).toMatchObject({ trouble: null, woke: { earlier: true } });
    await t.actions.choose({ kind: "ready" });
    expect(t.store.getState().phoneWatch.woke).toBeNull();

    const lunch = new FakeCallCenter();
    lunch.setStatus("On Break", "Lunch");
    const other = agentRig(cleanups, { cc: lunch });
    await other.working();
    expect(other.store.getState().phoneWatch.woke).toBeNull();
  });
});
