import { readJson, type KeyValueStorage } from "../session";

export const STATUS_SEEN_KEY = "agentbar.status-seen";

interface StatusSeen {
  status: string;
  reason: string;
  /** ms since epoch. */
  since: number;
}

function statusSeenOf(raw: unknown): StatusSeen | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  if (
    typeof r.status !== "string" ||
    typeof r.reason !== "string" ||
    typeof r.since !== "number" ||
    !Number.isFinite(r.since)
  )
    return undefined;
  return { status: r.status, reason: r.reason, since: r.since };
}

/**
 * When the agent's current status (with its break reason) began, as this browser saw it: the time
 * of the event that told it, or the moment a read of agent_state first showed it. A status seen
 * again, by an event or a read, keeps the time it was first seen. The platform's own times are not
 * used: the spec's agent_state has none, and the local platform's are its local time without a
 * zone, hours off when read in a browser in another zone. Kept in localStorage per agent, so that
 * a reload (a CRM page changing) goes on counting.
 */
export class StatusSince {
  private seen: StatusSeen | undefined;

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly agent: string,
    private readonly now: () => number,
  ) {
    this.seen = statusSeenOf(readJson(storage, this.key));
  }

  private get key() {
    return `${STATUS_SEEN_KEY}.${this.agent}`;
  }

  /** When `status` began: when it was first seen, else `at` (never later than now: the platform's clock may run ahead). */
  of(status: string, reason: string, at: number): number {
    if (this.seen?.status === status && this.seen.reason === reason) return this.seen.since;
    this.seen = { status, reason, since: Math.min(at, this.now()) };
    this.storage.setItem(this.key, JSON.stringify(this.seen));
    return this.seen.since;
  }
}
