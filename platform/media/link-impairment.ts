/**
 * What the network does to one direction of a leg's media, as the /sim surface sets it:
 * - `lossPercent`: share of media packets (RTP and RTCP) dropped at random;
 * - `delayMs`: time added to every packet (connectivity checks too, so round-trip figures show it);
 * - `jitterMs`: variation of the delay, shaped so that a receiver's RFC 3550 interarrival jitter
 *   (as browsers measure it) comes out near this figure: beyond a third of the packet interval
 *   the link delivers in bursts, some packets of each a moment out of order (see link-jitter.ts);
 * - `silence`: no audio packets (RTP) get through at all, while connectivity checks, DTLS and
 *   RTCP still do: the call stays up and silent, as one-way audio behind a bad firewall is.
 */
export interface LinkImpairment {
  lossPercent: number;
  delayMs: number;
  jitterMs: number;
  silence: boolean;
}

/** Both directions of a leg: toward the phone (what it hears) and from it (what it says). */
export interface LegImpairment {
  toPhone: LinkImpairment;
  fromPhone: LinkImpairment;
}

export const CLEAN_LINK: LinkImpairment = Object.freeze({ lossPercent: 0, delayMs: 0, jitterMs: 0, silence: false });

export const CLEAN_LEG: LegImpairment = Object.freeze({ toPhone: CLEAN_LINK, fromPhone: CLEAN_LINK });

export function isClean(link: LinkImpairment): boolean {
  return link.lossPercent === 0 && link.delayMs === 0 && link.jitterMs === 0 && !link.silence;
}

/** Limits of what can be asked for: enough to break any call, small enough to keep queues short. */
export const IMPAIRMENT_LIMITS = { lossPercent: 100, delayMs: 5000, jitterMs: 1000 } as const;
