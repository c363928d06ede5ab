import { afterEach, describe, expect, it, vi } from "vitest";
import { createPhoneOwner, lockName, type PhoneOwner } from "./phone-owner";
import { FakeBrowser } from "./test-support/fake-tabs";

const KEY = "1001@agentbar.local";
const owners: PhoneOwner[] = [];
afterEach(() => owners.splice(0).forEach((o) => o.stop()));

/** A tab of the agent: its election, and what it was asked to do with its phone. */
function tabOf(
  browser: FakeBrowser,
  o: { canRelease?: () => boolean; livenessMs?: { every: number; answerWithin: number } } = {},
) {
  const tab = browser.tab();
  const released: number[] = [];
  const owner = createPhoneOwner({
    ...tab.coordination(o.livenessMs),
    canRelease: o.canRelease ?? (() => true),
    release: async () => void released.push(Date.now()),
  });
  owners.push(owner);
  return { tab, owner, released, role: () => owner.store.getState().role };
}

const roleOf = (t: { role: () => string }, role: string) =>
  vi.waitFor(() => expect(t.role()).toBe(role), { timeout: 2000, interval: 5 });

/** A tab that has started and has the phone. */
async function ownerTab(browser: FakeBrowser, o: { canRelease?: () => boolean } = {}) {
  const a = tabOf(browser, o);
  a.owner.start(KEY);
  await roleOf(a, "owner");
  return a;
}

/** Two tabs of the agent: `a` has the phone, `b` knows it. */
async function ownerAndOther(o: { canRelease?: () => boolean } = {}) {
  const browser = new FakeBrowser();
  const a = await ownerTab(browser, o);
  const b = tabOf(browser);
  b.owner.start(KEY);
  await roleOf(b, "other");
  return { browser, a, b };
}

type Message = { type?: string; from?: string; to?: string };

/**
 * The agent's channel as heard from a tab of its own, opened after the tabs it follows: a message
 * it has heard has reached those tabs too.
 */
function listen(browser: FakeBrowser) {
  const heard: Message[] = [];
  const waiters = new Set<(m: Message) => void>();
  browser
    .tab()
    .open(lockName(KEY))
    .addEventListener("message", (e) => {
      heard.push(e.data as Message);
      waiters.forEach((w) => w(e.data as Message));
    });
  return {
    heard,
    /** The next message that matches. */
    next: (match: (m: Message) => boolean) =>
      new Promise<Message>((resolve) => {
        const waiter = (m: Message) => {
          if (!match(m)) return;
          waiters.delete(waiter);
          resolve(m);
        };
        waiters.add(waiter);
      }),
  };
}

describe("one phone per agent across the tabs of a browser", () => {
  it("the first tab has the phone; the next one finds that out and waits; the owner counts it", async () => {
    const browser = new FakeBrowser();
    const a = await ownerTab(browser);
    const b = tabOf(browser);
    b.owner.start(KEY);
    expect(b.role()).toBe("electing");
    await roleOf(b, "other");
    await vi.waitFor(() => expect(a.owner.store.getState().others).toBe(1));
    expect(browser.holder(lockName(KEY))).toBe(a.tab);
    // Still so a while later: the owner answers, nobody takes the phone from it.
    await new Promise((r) => setTimeout(r, 200));
    expect([a.role(), b.role()]).toEqual(["owner", "other"]);
    expect(a.released).toEqual([]);
  });

  it("the owner's tab closes: the next tab gets the phone", async () => {
    const { browser, a, b } = await ownerAndOther();
    a.tab.close();
    await roleOf(b, "owner");
    expect(browser.holder(lockName(KEY))).toBe(b.tab);
  });

  it("signing out in the owner's tab hands the phone on; signing out elsewhere tells the owner one tab fewer", async () => {
    const browser = new FakeBrowser();
    const [a, b, c] = [tabOf(browser), tabOf(browser), tabOf(browser)];
    a.owner.start(KEY);
    await roleOf(a, "owner");
    b.owner.start(KEY);
    c.owner.start(KEY);
    await vi.waitFor(() => expect(a.owner.store.getState().others).toBe(2));
    c.owner.stop();
    await vi.waitFor(() => expect(a.owner.store.getState().others).toBe(1));
    a.owner.stop();
    await roleOf(b, "owner");
    expect(a.role()).toBe("off");
  });

  /** Three tabs: `a` has the phone, `b` and `c` know it; `b` asked it last (`c` asks every 100 ms, and has just asked). */
  async function ownerAndTwo() {
    const { browser, a, b } = await ownerAndOther();
    const c = tabOf(browser, { livenessMs: { every: 100, answerWithin: 300 } });
    const channel = listen(browser);
    const [aId, bId, cId] = [a, b, c].map((t) => t.owner.store.getState().tabId);
    c.owner.start(KEY);
    await roleOf(c, "other");
    await channel.next((m) => m.type === "ping" && m.from === cId);
    // b asks, and a answers (pongs name no asker: the first after b's question is its answer).
    const answered = channel
      .next((m) => m.type === "ping" && m.from === bId)
      .then(() => channel.next((m) => m.type === "pong" && m.from === aId));
    browser.tab().post(lockName(KEY), { type: "ping", from: bId });
    await answered;
    return { browser, channel, a, b, c, aId, bId, cId };
  }

  it("a frozen owner says so on its way to sleep and hands the phone to the tab it heard from last; the others stay as they are", async () => {
    const { browser, channel, a, b, c, aId, bId, cId } = await ownerAndTwo();
    // What a posts from the moment it freezes (an answer it posted just before may still be on its way).
    const before = browser.posted.length;
    a.tab.freeze();
    await roleOf(b, "owner");
    expect(browser.holder(lockName(KEY))).toBe(b.tab);
    const postedByA = browser.posted.slice(before).filter((p) => p.tab === a.tab);
    expect(postedByA.map((p) => p.data)).toEqual([{ type: "asleep", from: aId, to: bId }]);
    // The frozen tab learns that it lost the lock (the browser rejects its request) and stops its
    // phone; c hears the new owner answer, and nobody takes the phone from b.
    a.tab.thaw();
    await roleOf(a, "other");
    expect(a.released).toHaveLength(1);
    for (let i = 0; i < 2; i++) {
      await channel.next((m) => m.type === "ping" && m.from === cId);
      await channel.next((m) => m.type === "pong" && m.from === bId);
    }
    expect([a.role(), b.role(), c.role()]).toEqual(["other", "owner", "other"]);
    expect([b.released, c.released]).toEqual([[], []]);
  });

  it("a frozen owner answers no question, though Chromium hands it its channel's messages; awake, it does again", async () => {
    const browser = new FakeBrowser();
    const a = await ownerTab(browser);
    const answers: unknown[] = [];
    const asker = browser.tab();
    asker.open(lockName(KEY)).addEventListener("message", (e) => {
      if ((e.data as { from?: string }).from !== "asker") answers.push(e.data);
    });
    a.tab.freeze({ receives: true });
    asker.post(lockName(KEY), { type: "ping", from: "asker" });
    await new Promise((r) => setTimeout(r, 50));
    const tabId = a.owner.store.getState().tabId;
    // What it said on its way to sleep (it knew no other tab to name), and nothing since.
    expect(answers).toEqual([{ type: "asleep", from: tabId }]);
    a.tab.thaw();
    asker.post(lockName(KEY), { type: "ping", from: "asker" });
    await vi.waitFor(() => expect(answers).toContainEqual({ type: "pong", from: tabId }));
  });

  it("an owner that stops without a word (no freeze event) is taken over once it has been silent a few seconds", async () => {
    const { browser, a, b } = await ownerAndOther();
    a.tab.freeze({ event: false });
    await roleOf(b, "owner");
    expect(browser.holder(lockName(KEY))).toBe(b.tab);
    a.tab.thaw();
    await roleOf(a, "other");
    expect(a.released).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 200));
    expect([a.role(), b.role()]).toEqual(["other", "owner"]);
  });

  it("Use the phone here: the owner stops its phone, then this tab has it", async () => {
    const { browser, a, b } = await ownerAndOther();
    expect(await b.owner.takeOver()).toBe(true);
    await roleOf(b, "owner");
    expect(a.role()).toBe("other");
    expect(a.released).toHaveLength(1);
    expect(browser.holder(lockName(KEY))).toBe(b.tab);
    // And back.
    expect(await a.owner.takeOver()).toBe(true);
    await roleOf(a, "owner");
    expect(b.role()).toBe("other");
  });

  it("Use the phone here during a call: the owner keeps the phone and says why", async () => {
    const { a, b } = await ownerAndOther({ canRelease: () => false });
    expect(await b.owner.takeOver()).toBe(false);
    expect(b.owner.store.getState().move).toBe("busy");
    expect([a.role(), b.role()]).toEqual(["owner", "other"]);
    expect(a.released).toEqual([]);
  });

  it("messages that are not the election's, or malformed, change nothing", async () => {
    const browser = new FakeBrowser();
    const a = await ownerTab(browser);
    const stranger = browser.tab();
    for (const m of [
      { type: "release" },
      { type: "release", from: 7 },
      { type: "release", from: "x", extra: 1 },
      "release",
      null,
      { type: "format-disk", from: "x" },
    ])
      stranger.post(lockName(KEY), m);
    await new Promise((r) => setTimeout(r, 100));
    expect(a.role()).toBe("owner");
    expect(a.released).toEqual([]);
  });

  it("a page the browser keeps storage from (a third-party frame): it has its own phone", async () => {
    const browser = new FakeBrowser();
    const a = await ownerTab(browser);
    const framed = tabOf(browser);
    framed.tab.storageDenied = true;
    framed.owner.start(KEY);
    await roleOf(framed, "alone");
    expect(a.role()).toBe("owner");
  });

  it("a browser without Web Locks: every tab has its own phone, as before", () => {
    const owner = createPhoneOwner({
      locks: undefined,
      openChannel: undefined,
      canRelease: () => true,
      release: async () => {},
    });
    owners.push(owner);
    owner.start(KEY);
    expect(owner.store.getState().role).toBe("alone");
  });
});
