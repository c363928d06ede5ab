export interface BackoffOptions {
  /** Upper bound of the first delay. */
  initialDelayMs: number;
  /** Upper bound of any delay. */
  maxDelayMs: number;
}

/**
 * Delay before reconnection attempt `attempt` (1-based): exponential, capped, with "equal jitter"
 * (half fixed, half random) so that a server restart is not met by every agent at the same
 * instant, while no attempt comes sooner than half its step.
 */
export function reconnectDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  const step = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(step / 2 + (r * step) / 2);
}
