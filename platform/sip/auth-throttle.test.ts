import { describe, expect, it } from "vitest";
import { AuthThrottle, sourceKey, type Admission } from "./auth-throttle";

/** A throttle on a hand-turned clock. */
function throttle(options: Partial<ConstructorParameters<typeof AuthThrottle>[0]> = {}) {
  const clock = { now: 1_000_000 };
  const t = new AuthThrottle({
    free: 3,
    baseDelayMs: 100,
    maxDelayMs: 1000,
    maxHeld: 2,
    forgetMs: 60_000,
    maxSources: 100,
    now: () => clock.now,
    ...options,
  });
  return { t, clock };
}

const waitOf = (a: Admission) => ("waitMs" in a ? a.waitMs : undefined);
const retryOf = (a: Admission) => ("retryAfterMs" in a ? a.retryAfterMs : undefined);

/** Checks one wrong answer the way the SIP side does: admit, (wait,) release, count it. */
function guess(t: AuthThrottle, source: string, account?: string): Admission {
  const a = t.admit(source, account);
  if ("release" in a) {
    a.release();
    t.failed(source, account);
  }
  return a;
}

describe("password guessing", () => {
  it("is free for a few wrong answers, then each waits longer than the one before", () => {
    const { t, clock } = throttle();
    for (let i = 0; i < 3; i++) expect(waitOf(guess(t, "10.0.0.1", "1001@d"))).toBe(0);
    // The fourth is checked at once, but the next must wait 100 ms, then 200, 400, 800, 1000.
    expect(waitOf(guess(t, "10.0.0.1", "1001@d"))).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = guess(t, "10.0.0.1", "1001@d");
      waits.push(waitOf(a)!);
      clock.now += waitOf(a)!;
    }
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("holds at most a few answers at once and refuses the rest unchecked, with when to come back", () => {
    const { t } = throttle();
    for (let i = 0; i < 4; i++) guess(t, "10.0.0.1");
    // Answers sent together: two are held (each after the one before), the third is refused.
    const first = t.admit("10.0.0.1", undefined);
    const second = t.admit("10.0.0.1", undefined);
    const third = t.admit("10.0.0.1", undefined);
    expect([waitOf(first), waitOf(second)]).toEqual([100, 300]);
    expect(retryOf(third)).toBe(700);
    // Once one has been checked, another may wait.
    if ("release" in first) first.release();
    expect(waitOf(t.admit("10.0.0.1", undefined))).toBeGreaterThan(0);
  });

  it("holds every source back that guessed an extension, but not a source that never guessed", () => {
    const { t } = throttle();
    // Guessing the same extension from many places, once each.
    for (let i = 0; i < 10; i++) guess(t, `10.0.1.${i}`, "1001@d");
    const again = t.admit("10.0.1.0", "1001@d");
    expect(waitOf(again)).toBeGreaterThan(0);
    // The extension's own phone on a clean network is not held back.
    expect(waitOf(t.admit("192.168.5.5", "1001@d"))).toBe(0);
    // Nor is the guessing source for an extension it never guessed, until its own count is up.
    expect(waitOf(t.admit("10.0.1.1", "1002@d"))).toBe(0);
  });

  it("forgets a source some time after its last wrong answer", () => {
    const { t, clock } = throttle();
    for (let i = 0; i < 6; i++) guess(t, "10.0.0.1");
    expect(waitOf(t.admit("10.0.0.1", undefined))).toBeGreaterThan(0);
    clock.now += 60_001 + 10_000;
    expect(waitOf(t.admit("10.0.0.1", undefined))).toBe(0);
  });

  it("counts a bounded number of sources, dropping the one wrong longest ago", () => {
    const { t } = throttle({ maxSources: 50 });
    for (let i = 0; i < 1000; i++) guess(t, `10.${i >> 8}.${i & 255}.1`, "1001@d");
    expect(t.size).toEqual({ sources: 50, accounts: 1 });
  });

  it("counts an IPv6 source by its /64 and an IPv4-mapped one as IPv4", () => {
    expect(sourceKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
    expect(sourceKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(sourceKey("2001:DB8:0001:0002:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(sourceKey("2001:db8::5")).toBe("2001:db8:0:0::/64");
    expect(sourceKey("::1")).toBe("0:0:0:0::/64");
  });
});
