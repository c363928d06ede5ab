/**
 * Slows down password guessing against SIP digest, per source and per extension.
 *
 * Wrong answers are counted per source address (an IPv6 source by its /64, which one machine
 * usually has whole) and per extension. After `free` of them, answers for that key are checked
 * one at a time, each a delay after the one before (doubling from `baseDelayMs` up to
 * `maxDelayMs`); at most `maxHeld` answers wait per key and any further one is refused unchecked
 * (the caller answers 503 with Retry-After). A right answer does not clear the count (a guesser
 * with an account of its own would clear it at will); a key is forgotten `forgetMs` after its
 * last wrong answer.
 *
 * Who is not held back: a source that never answered wrong (the extension's count applies only to
 * sources that have guessed wrong themselves, so an attack on an extension does not lock out its
 * phones elsewhere), and the caller's own exemption for connections that proved the extension's
 * password before (phones already registered).
 *
 * Memory is bounded: extensions are the platform's own (the caller keys only existing ones),
 * sources at most `maxSources` (the least recently wrong are dropped first), answers held at most
 * `maxHeld` per key.
 */
export interface AuthThrottleOptions {
  free: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxHeld: number;
  forgetMs: number;
  maxSources: number;
  now: () => number;
}

export const defaultAuthThrottleOptions: AuthThrottleOptions = {
  free: 5,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  maxHeld: 3,
  forgetMs: 15 * 60_000,
  maxSources: 10_000,
  now: Date.now,
};

/** When an answer may be checked: after `waitMs`, or not now (`retryAfterMs`). */
export type Admission = { waitMs: number; release: () => void } | { retryAfterMs: number };

interface Count {
  failures: number;
  lastFailure: number;
  /** The earliest time the next held answer may be checked. */
  next: number;
  held: number;
}

export class AuthThrottle {
  private readonly options: AuthThrottleOptions;
  private readonly sources = new Map<string, Count>();
  private readonly accounts = new Map<string, Count>();

  constructor(options: Partial<AuthThrottleOptions> = {}) {
    this.options = { ...defaultAuthThrottleOptions, ...options };
  }

  /**
   * Asks to check an answer from `source` for `account` (undefined: no such extension). Call
   * `release` once the answer has been checked, then `failed` if it was wrong.
   */
  admit(source: string, account: string | undefined): Admission {
    const now = this.options.now();
    const counts: Count[] = [];
    const bySource = this.current(this.sources, sourceKey(source), now);
    if (bySource) {
      counts.push(bySource);
      const byAccount = account === undefined ? undefined : this.current(this.accounts, account, now);
      if (byAccount) counts.push(byAccount);
    }
    const limited = counts.filter((c) => c.failures >= this.options.free);
    if (limited.length === 0) return { waitMs: 0, release: () => undefined };
    const slot = Math.max(now, ...limited.map((c) => c.next));
    if (slot > now && limited.some((c) => c.held >= this.options.maxHeld)) return { retryAfterMs: slot - now };
    for (const c of limited) {
      // Each answer still waiting is counted as wrong: the next one waits for all of them.
      c.next = slot + this.delay(c.failures + c.held + 1);
      c.held++;
    }
    let released = false;
    return {
      waitMs: slot - now,
      release: () => {
        if (released) return;
        released = true;
        for (const c of limited) c.held = Math.max(0, c.held - 1);
      },
    };
  }

  /** A wrong answer from `source` for `account`. */
  failed(source: string, account: string | undefined): void {
    const now = this.options.now();
    this.count(this.sources, sourceKey(source), now);
    if (this.sources.size > this.options.maxSources) this.sources.delete(this.sources.keys().next().value!);
    if (account !== undefined) this.count(this.accounts, account, now);
  }

  /** How many sources and extensions are counted now (for tests and the bench). */
  get size(): { sources: number; accounts: number } {
    return { sources: this.sources.size, accounts: this.accounts.size };
  }

  private delay(failures: number): number {
    const beyond = failures - this.options.free;
    return beyond <= 0 ? 0 : Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (beyond - 1));
  }

  private current(table: Map<string, Count>, key: string, now: number): Count | undefined {
    const c = table.get(key);
    if (c && c.held === 0 && now - c.lastFailure > this.options.forgetMs) {
      table.delete(key);
      return undefined;
    }
    return c;
  }

  private count(table: Map<string, Count>, key: string, now: number): void {
    const c = this.current(table, key, now) ?? { failures: 0, lastFailure: now, next: now, held: 0 };
    c.failures++;
    c.lastFailure = now;
    c.next = Math.max(c.next, now + this.delay(c.failures));
    // The most recently wrong last: a full table drops the one wrong longest ago.
    table.delete(key);
    table.set(key, c);
  }
}

/** The address a guesser is counted by: IPv4 as is, IPv6 by its /64. */
export function sourceKey(address: string): string {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1]!;
  if (!address.includes(":")) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
