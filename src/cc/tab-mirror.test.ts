import { afterEach, describe, expect, it, vi } from "vitest";
import { createPhoneOwner, lockName, memoryStorage, type PhoneOwner } from "../session";
import { FakeBrowser, type FakeTab } from "../session/test-support/fake-tabs";
import { PhoneError } from "../softphone";
import { LIVE_CALL_KEY } from "./call-recovery";
import { createTabMirror } from "./tab-mirror";
import { agentRig, queueCall } from "./test-support/agent-rig";

const KEY = "1001@agentbar.local";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 2000, interval: 5 });

/** A tab of the agent: its agent session (a scripted call center behind it), its election and its mirror. */
function tabOf(browser: FakeBrowser) {
  const tabStorage = memoryStorage();
  const rig = agentRig(cleanups, { tabStorage });
  const tab: FakeTab = browser.tab();
  const owner: PhoneOwner = createPhoneOwner({
    ...tab.coordination(),
    canRelease: () => true,
    release: async () => {},
  });
  const mirror = createTabMirror({ owner, agent: rig.agent, calls: rig.callsStore, tabStorage });
  cleanups.push(
    () => owner.stop(),
    () => mirror.dispose(),
  );
  return { rig, tab, owner, mirror, tabStorage, role: () => owner.store.getState().role };
}

/** Two tabs: the first has the phone and works in the queues, the second shows it. */
async function twoTabs() {
  const browser = new FakeBrowser();
  const a = tabOf(browser);
  await a.rig.working();
  a.owner.start(KEY);
  await waitFor(() => expect(a.role()).toBe("owner"));
  const b = tabOf(browser);
  await b.rig.signIn();
  b.owner.start(KEY);
  await waitFor(() => expect(b.role()).toBe("other"));
  await waitFor(() => expect(b.rig.store.getState().phase).toBe("on"));
  return { browser, a, b };
}

describe("the agent's other tabs show the tab with the phone and act through it", () => {
  it("status, calls and the kept live call reach the other tab; Answer there answers on the owner's phone", async () => {
    const { a, b } = await twoTabs();
    expect(b.rig.store.getState().agent).toEqual(a.rig.store.getState().agent);
    // The other tab never joined the queues itself.
    expect(b.rig.fcc.commands).toEqual([]);

    a.rig.callsStore.setState({ calls: [queueCall("call-1", "leg-1")] });
    await waitFor(() =>
      expect(b.rig.callsStore.getState().calls.map((c) => [c.id, c.state])).toEqual([["call-1", "ringing"]]),
    );
    await b.mirror.actions.answer("call-1");
    expect(a.rig.phone.sip.map((s) => [s.method, s.id])).toEqual([["answer", "call-1"]]);
    await waitFor(() => expect(b.rig.callsStore.getState().calls[0]?.state).toBe("active"));
    // The live call the owner keeps for a reload is kept here too: this tab can take it back.
    await waitFor(() =>
      expect(JSON.parse(b.tabStorage.getItem(LIVE_CALL_KEY) ?? "{}")).toMatchObject({ callId: "leg-1", agent: "1001" }),
    );
    expect(b.tabStorage.getItem(LIVE_CALL_KEY)).toBe(a.tabStorage.getItem(LIVE_CALL_KEY));
  });

  it("a refusal comes back with its kind: the platform's as a CommandError, the phone's as a PhoneError", async () => {
    const { a, b } = await twoTabs();
    a.rig.fcc.refuse = { code: 500, message: "agent 1001 is busy" };
    await expect(b.mirror.actions.choose({ kind: "ready" })).rejects.toMatchObject({
      kind: "refused",
      command: "ready",
    });
    a.rig.phone.answer = async () => {
      throw new PhoneError({ kind: "microphone", detail: "denied" });
    };
    a.rig.callsStore.setState({ calls: [queueCall("call-2", "leg-2")] });
    await waitFor(() => expect(b.rig.callsStore.getState().calls).toHaveLength(1));
    const e = await b.mirror.actions.answer("call-2").catch((e: unknown) => e);
    expect(e).toBeInstanceOf(PhoneError);
    expect(e).toMatchObject({ kind: "microphone", detail: "denied" });
  });

  it("commands that are malformed, unknown or of another version change nothing", async () => {
    const { browser, a } = await twoTabs();
    a.rig.callsStore.setState({ calls: [queueCall("call-1", "leg-1")] });
    const before = a.rig.fcc.commands.length;
    const reads = () => a.rig.platform.calls.filter((c) => c.path === "/api/cc/agent_state").length;
    const readsBefore = reads();
    const stranger = browser.tab();
    const command = (c: unknown, extra: object = {}) => ({
      v: 1,
      type: "command",
      id: "x1",
      from: "stranger",
      command: c,
      ...extra,
    });
    for (const m of [
      command({ type: "answer" }),
      command({ type: "answer", callId: 7 }),
      command({ type: "answer", callId: "call-1", sneaky: true }),
      command({ type: "format-disk" }),
      command({ type: "dtmf", callId: "call-1", tones: "1; DROP" }),
      command({ type: "answer", callId: "call-1" }, { v: 2 }),
      command({ type: "status", status: { kind: "break" } }),
      { type: "command", command: { type: "answer", callId: "call-1" } },
      "answer call-1",
    ])
      stranger.post(lockName(KEY), m);
    // A well-formed one after them, to know that the owner has read them all.
    stranger.post(lockName(KEY), command({ type: "refresh" }));
    await waitFor(() => expect(reads()).toBeGreaterThan(readsBefore));
    expect(a.rig.phone.sip).toEqual([]);
    expect(a.rig.fcc.commands.length).toBe(before);
  });

  it("signing out in a tab that shows the other's phone leaves the agent in the queues; the tab with the phone, alone, leaves them", async () => {
    const { a, b } = await twoTabs();
    await b.rig.session.getState().signOut();
    expect(b.rig.fcc.commands.filter((c) => c.func === "ccLogout")).toEqual([]);
    await a.rig.session.getState().signOut();
    expect(a.rig.fcc.commands.at(-1)).toMatchObject({ func: "ccLogout", body: { agent: "1001" } });
  });

  it("the owner's tab closes: the other tab stops showing its calls and starts its own session", async () => {
    const { a, b } = await twoTabs();
    a.rig.callsStore.setState({ calls: [queueCall("call-1", "leg-1")] });
    await waitFor(() => expect(b.rig.callsStore.getState().calls).toHaveLength(1));
    a.tab.close();
    await waitFor(() => expect(b.role()).toBe("owner"));
    expect(b.rig.callsStore.getState().calls).toEqual([]);
    expect(b.rig.store.getState().phase).toBe("waiting-for-phone");
    // Its phone registers: it joins the queues as the first tab did.
    b.rig.register();
    await waitFor(() => expect(b.rig.store.getState().phase).toBe("on"));
    expect(b.rig.fcc.commands[0]).toMatchObject({ func: "ccLogin", body: { agent: "1001" } });
  });
});
