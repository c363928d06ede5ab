import { afterEach, describe, expect, it, vi } from "vitest";
import { createPhoneOwner, lockName, type PhoneOwner } from "./phone-owner";
import { FakeBrowser } from "./test-support/fake-tabs";

const KEY = "1001@agentbar.local";
const owners: PhoneOwner[] = [];
afterEach(() => owners.splice(0).forEach((o) => o.stop()));

/** A tab of the agent: its election, and what it was asked to do with its phone. */
function tabOf(browser: FakeBrowser, o: { canRelease?: () => boolean } = {}) {
  const tab = browser.tab();
  const released: number[] = [];
  const owner = createPhoneOwner({ ...tab.coordination(), canRelease: o.canRelease ?? (() => true), release: async () => void released.push(Date.now()) });
  owners.push(owner);
  return { tab, owner, released, role: () => owner.store.getState().role };
}

const roleOf = (t: { role: () => string }, role: string) => vi.waitFor(() => expect(t.role()).toBe(role), { timeout: 2000, interval: 5 });

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

  it("a frozen owner is taken over: the browser takes the lock from it, so it stops its phone and waits for it again", async () => {
    const { browser, a, b } = await ownerAndOther();
    a.tab.freeze();
    await roleOf(b, "owner");
    expect(browser.holder(lockName(KEY))).toBe(b.tab);
    // The frozen tab learns that it lost the lock (the browser rejects its request) and stops its phone.
    await roleOf(a, "other");
    expect(a.released).toHaveLength(1);
    a.tab.thaw();
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
    for (const m of [{ type: "release" }, { type: "release", from: 7 }, { type: "release", from: "x", extra: 1 }, "release", null, { type: "format-disk", from: "x" }]) stranger.post(lockName(KEY), m);
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
    const owner = createPhoneOwner({ locks: undefined, openChannel: undefined, canRelease: () => true, release: async () => {} });
    owners.push(owner);
    owner.start(KEY);
    expect(owner.store.getState().role).toBe("alone");
  });
});

