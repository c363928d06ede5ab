import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeSipServer, isRequest, isResponse, type WireRecord } from "./testing/fake-sip-server";
import { settle, startPhone, untilCall, type PhoneRig } from "./testing/phone-rig";

// Re-INVITE glare between two phones of this kind (RFC 3261 §14.1), with media handlers that
// behave as sip.js 0.21's browser one does: no rollback of their own, and a description set while
// an offer of theirs is out is taken as its answer.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const direction = (sdp: string) => /a=(sendrecv|sendonly|recvonly|inactive)/.exec(sdp)?.[1];
const reinviteFrom = (user: string) => (r: WireRecord) =>
  r.direction === "from-ua" && r.user === user && isRequest(r, "INVITE") && !!r.message.toTag;

async function twoPhonesInACall(): Promise<{
  sw: FakeSipServer;
  alice: PhoneRig;
  bob: PhoneRig;
  a: string;
  b: string;
}> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  const sw = new FakeSipServer();
  const settings = { keepAlive: { mode: "off" as const } };
  const alice = await startPhone(sw, { user: "1001", settings, env: { random: () => 0.5 } });
  const bob = await startPhone(sw, { user: "1002", settings, env: { random: () => 0.5 } });
  cleanups.push(
    () => alice.phone.stop(),
    () => bob.phone.stop(),
  );
  const a = await alice.phone.call("1002");
  await vi.waitFor(() => expect(bob.phone.callsStore.getState().calls.some((c) => c.state === "ringing")).toBe(true));
  const b = bob.phone.callsStore.getState().calls[0]!.id;
  await bob.phone.answer(b);
  await untilCall(alice.phone, a, (c) => c.state === "active");
  await untilCall(bob.phone, b, (c) => c.state === "active");
  return { sw, alice, bob, a, b };
}

/** Runs the timers until both promises settle (the glare waits are 0-4 s). */
async function settleBoth<T>(p: Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
  let done = false;
  const all = Promise.allSettled(p).finally(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) await vi.advanceTimersByTimeAsync(100);
  return all;
}

describe("re-INVITE glare", () => {
  it("two holds that cross on the wire both get 491, roll back, and both calls end up held", async () => {
    const { sw, alice, bob, a, b } = await twoPhonesInACall();
    const m = sw.mark();
    const results = await settleBoth([alice.phone.hold(a), bob.phone.hold(b)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    // They really crossed: each side answered the other's first re-INVITE with 491.
    expect(sw.records((r) => r.direction === "from-ua" && isResponse(r, 491, "INVITE"), m)).toHaveLength(2);
    expect(alice.call(a)).toMatchObject({ held: true, remoteHeld: true, holdPending: false });
    expect(bob.call(b)).toMatchObject({ held: true, remoteHeld: true, holdPending: false });
    // Both media handlers are back in step: a later resume goes through on each side.
    await settleBoth([alice.phone.resume(a)]);
    await settleBoth([bob.phone.resume(b)]);
    expect(alice.call(a)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
    expect(bob.call(b)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
    expect(direction(alice.sdh(a).answers.at(-1)!)).toBe("sendrecv");
    expect(alice.phone.phoneStore.getState().notices.filter((n) => n.kind === "hold-failed")).toEqual([]);
    expect(bob.phone.phoneStore.getState().notices.filter((n) => n.kind === "hold-failed")).toEqual([]);
  });

  it("a re-INVITE that arrives while our own offer is still being prepared is answered after it, and ours follows", async () => {
    const { sw, alice, bob, a, b } = await twoPhonesInACall();
    // Alice's hold offer stays in ICE gathering until released.
    let release!: () => void;
    alice.sdh(a).gathering = new Promise<void>((r) => (release = r));
    const m = sw.mark();
    const aliceHold = alice.phone.hold(a);
    await settle();
    const bobHold = bob.phone.hold(b);
    await sw.waitFor(
      (r) => r.direction === "to-ua" && r.user === "1001" && isRequest(r, "INVITE") && !!r.message.toTag,
      m,
    );
    await settle();
    release();
    const results = await settleBoth([aliceHold, bobHold]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    // Bob's offer was answered (never refused as a bad description), then alice's went out.
    expect(sw.records((r) => r.direction === "from-ua" && isResponse(r, 488), m)).toEqual([]);
    const aliceInvites = sw.records(reinviteFrom("1001"), m);
    expect(aliceInvites.map((r) => direction(r.message.body))).toEqual(["sendonly"]);
    const aliceAnswered = sw.records(
      (r) => r.direction === "from-ua" && r.user === "1001" && isResponse(r, 200, "INVITE"),
      m,
    );
    expect(aliceAnswered[0]!.seq).toBeLessThan(aliceInvites[0]!.seq);
    expect(alice.call(a)).toMatchObject({ held: true, remoteHeld: true });
    expect(bob.call(b)).toMatchObject({ held: true, remoteHeld: true });
    await settleBoth([alice.phone.resume(a), bob.phone.resume(b)]);
    expect(alice.call(a)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
    expect(bob.call(b)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
  });
});
