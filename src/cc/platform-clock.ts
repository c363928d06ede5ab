import { parseStamp } from "../api/cdrs";
import type { CallCenterEventData } from "./agent-status";

/**
 * The platform's clock as seen from this browser. The platform writes its times (agent_state's
 * `status_since`, `wrap_up_until`, the call records' stamps) in its own local time without a
 * zone; read as the browser's local time they are off by the difference of the two zones, and by
 * however far the two clocks disagree. Both are measured from the call-center events, which carry
 * the same moment twice (FreeSWITCH's headers of every event): `Event-Date-Timestamp` (µs since the
 * epoch, zone-free) and `Event-Date-Local` (the platform's local time, whole seconds):
 *
 * - the zones' difference: `Event-Date-Local` read as local time minus `Event-Date-Timestamp`,
 *   rounded to a quarter of an hour (every zone is a whole number of quarters off UTC);
 * - the clocks' difference: the smallest gap between an event's `Event-Date-Timestamp` and the
 *   moment it arrived (the delivery time is in it; on a LAN a few ms).
 *
 * Until an event has been seen the offset is unknown (`null`): a time read from the platform then
 * says "at least" rather than a wrong figure, unless an offset measured before was kept
 * (`assume`), which serves until the first event measures it again.
 */
export interface PlatformClock {
  /** ms to subtract from a platform stamp read as local time to get this browser's clock; null until measured. */
  offset(): number | null;
  /** An offset measured earlier (kept from a board opened before; null: none): used until an event measures it. */
  assume(offset: number | null): void;
  /** Measures from one event, received at `receivedAt` (this browser's clock). Returns whether the measured offset changed (the first measure does). */
  note(e: CallCenterEventData, receivedAt: number): boolean;
  /** A platform stamp on this browser's clock; null when empty, unreadable, or the offset is not known yet. */
  toLocal(stamp: string): number | null;
}

const QUARTER_HOUR = 15 * 60_000;

export function createPlatformClock(): PlatformClock {
  let zone: number | null = null;
  /** The browser's clock minus the platform's, as small as seen (delivery delay included). */
  let skew: number | null = null;
  let assumed: number | null = null;
  const measured = () => (zone === null || skew === null ? null : zone - skew);
  const offset = () => measured() ?? assumed;
  return {
    offset,
    assume(o) {
      assumed = o;
    },
    note(e, receivedAt) {
      const us = Number(e["Event-Date-Timestamp"]);
      const local = parseStamp(e["Event-Date-Local"] ?? "");
      if (!Number.isFinite(us) || us <= 0 || local === null) return false;
      const at = us / 1000;
      const before = measured();
      zone = Math.round((local - at) / QUARTER_HOUR) * QUARTER_HOUR;
      const gap = receivedAt - at;
      skew = skew === null ? gap : Math.min(skew, gap);
      return measured() !== before;
    },
    toLocal(stamp) {
      const o = offset();
      const t = parseStamp(stamp);
      return o === null || t === null ? null : t - o;
    },
  };
}
