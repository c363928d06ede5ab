import { splitTopLevel } from "./header-values";

/** One value of a Reason header (RFC 3326): `SIP;cause=200;text="Call completed elsewhere"`. */
export interface SipReason {
  protocol: string;
  cause: number;
  text?: string;
}

export function parseReasonHeader(values: readonly string[]): SipReason[] {
  const reasons: SipReason[] = [];
  for (const value of values) {
    for (const part of splitTopLevel(value)) {
      const protocol = /^\s*([A-Za-z0-9.\-_]+)/.exec(part)?.[1];
      const cause = /;\s*cause\s*=\s*(\d+)/i.exec(part)?.[1];
      if (!protocol || cause === undefined) continue;
      const text = /;\s*text\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(part);
      const t = text?.[1] ?? text?.[2]?.trim();
      reasons.push({
        protocol: protocol.toUpperCase(),
        cause: Number(cause),
        ...(t ? { text: t.replace(/\\(.)/g, "$1") } : {}),
      });
    }
  }
  return reasons;
}

/**
 * FreeSWITCH ends the losing legs of a ring-all and the displaced agent of an intercept with
 * `Reason: SIP;cause=200;text="Call completed elsewhere"`: not a missed call.
 */
export function isCompletedElsewhere(reasons: readonly SipReason[]): boolean {
  return reasons.some((r) => r.protocol === "SIP" && r.cause === 200);
}
