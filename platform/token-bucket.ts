/**
 * A token bucket: holds at most `capacity`, refills `perSecond` a second. Counts messages or bytes
 * (take what a request needs, or nothing), or time (charge what a piece of work took, which may
 * leave it below zero: its owner then waits until it is positive again).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly capacity: number,
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = capacity;
    this.at = now();
  }

  /** What it holds now. */
  level(): number {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    return this.tokens;
  }

  /** Takes `amount`, or nothing (false) when it does not hold that much. */
  take(amount = 1): boolean {
    if (this.level() < amount) return false;
    this.tokens -= amount;
    return true;
  }

  /** Takes as many whole tokens as it holds, up to `n`; how many. */
  takeUpTo(n: number): number {
    const granted = Math.max(0, Math.min(n, Math.floor(this.level())));
    this.tokens -= granted;
    return granted;
  }

  /** Takes `amount`, going below zero if it must. */
  charge(amount: number): void {
    this.level();
    this.tokens -= amount;
  }

  /** Milliseconds until it holds `amount` (more than nothing when not given). */
  msUntil(amount = 0): number {
    const level = this.level();
    const target = Math.min(amount, this.capacity);
    if (amount > 0 ? level >= target : level > 0) return 0;
    return ((target - level) / this.perSecond) * 1000 + 1;
  }

  get full(): boolean {
    return this.level() >= this.capacity;
  }
}
