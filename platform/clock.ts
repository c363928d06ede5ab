/**
 * What time it is, in milliseconds since the epoch. Sign-in, tokens, locks and captchas read the
 * platform's clock rather than `Date.now()`, so that a test can move time on instead of sleeping
 * through it (as `src` takes `now`). The media clock and the call center's timers keep real time.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
