/**
 * How DTMF leaves the phone: `rfc4733` as telephone-event packets in the media (what most servers
 * expect and what survives transcoding), `info` as SIP INFO requests with an
 * `application/dtmf-relay` body (for servers that do not negotiate telephone-event).
 */
export type DtmfMode = "rfc4733" | "info";

export function normaliseDtmf(tones: string): { ok: true; tones: string } | { ok: false; character: string } {
  const upper = tones.replace(/\s+/g, "").toUpperCase();
  for (const c of upper) if (!/^[0-9A-D*#]$/.test(c)) return { ok: false, character: c };
  return upper === "" ? { ok: false, character: "" } : { ok: true, tones: upper };
}

/** Body of one SIP INFO for one tone, in the common `application/dtmf-relay` format. */
export function dtmfRelayBody(tone: string, durationMs: number): string {
  return `Signal=${tone}\r\nDuration=${Math.round(durationMs)}`;
}
