import { readJson, type KeyValueStorage } from "../session";
import type { CallDisposition, NextStatus, WrapUp } from "./agent-state";

// After-call work and the outcomes of calls, kept in localStorage: a reload or a crash loses nothing.

export const WRAP_UP_KEY = "agentbar.wrap-up";
export const DISPOSITIONS_KEY = "agentbar.dispositions";
/** The newest records kept; older ones go first. */
export const DISPOSITIONS_KEPT = 500;

const isString = (x: unknown): x is string => typeof x === "string";
const isNumber = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

function nextStatusOf(raw: unknown): NextStatus | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  if (r.kind === "ready" || r.kind === "on-demand" || r.kind === "logged-out") return { kind: r.kind };
  if (r.kind === "break" && isString(r.reason)) return { kind: "break", reason: r.reason };
  return undefined;
}

/** A stored record from an older version or a damaged write is dropped, never half-used. */
function wrapUpOf(raw: unknown): WrapUp | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  const next = nextStatusOf(r.next);
  const strings = ["id", "customerUuid", "queue", "customerName", "customerNumber", "disposition", "notes"] as const;
  const numbers = ["callEndedAt", "endsAt", "wrapUpSec", "extendedSec"] as const;
  if (
    !next ||
    !strings.every((k) => isString(r[k])) ||
    !numbers.every((k) => isNumber(r[k])) ||
    typeof r.heldOnBreak !== "boolean"
  )
    return undefined;
  // Kept by an older version, which counted down wrap_up_time and ended then.
  const platformEndsAt = isNumber(r.platformEndsAt)
    ? r.platformEndsAt
    : (r.callEndedAt as number) + (r.wrapUpSec as number) * 1000;
  return { ...(r as unknown as WrapUp), platformEndsAt };
}

function dispositionOf(raw: unknown): CallDisposition | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  const strings = ["id", "customerUuid", "queue", "customerName", "customerNumber", "disposition", "notes"] as const;
  if (!strings.every((k) => isString(r[k])) || !isNumber(r.endedAt) || !isNumber(r.savedAt)) return undefined;
  return r as unknown as CallDisposition;
}

/** The wrap-up of one agent in this browser, and the dispositions of every call wrapped up here. */
export class WrapUpStorage {
  constructor(
    private readonly storage: KeyValueStorage,
    private readonly agent: string,
  ) {}

  private get key() {
    return `${WRAP_UP_KEY}.${this.agent}`;
  }

  active(): WrapUp | undefined {
    return wrapUpOf(readJson(this.storage, this.key));
  }

  keep(wrapUp: WrapUp | null): void {
    if (wrapUp) this.storage.setItem(this.key, JSON.stringify(wrapUp));
    else this.storage.removeItem(this.key);
  }

  dispositions(): CallDisposition[] {
    const raw = readJson(this.storage, DISPOSITIONS_KEY);
    return Array.isArray(raw) ? raw.flatMap((r) => dispositionOf(r) ?? []) : [];
  }

  /** Adds or replaces the record of a call (newest last), keeping the newest DISPOSITIONS_KEPT. */
  record(d: CallDisposition): void {
    const all = this.dispositions().filter((r) => r.id !== d.id);
    all.push(d);
    this.storage.setItem(DISPOSITIONS_KEY, JSON.stringify(all.slice(-DISPOSITIONS_KEPT)));
  }
}

/** The record of a call, by either of its uuids (the agent's leg or the customer's). */
export function dispositionFor(storage: KeyValueStorage, uuid: string): CallDisposition | undefined {
  const raw = readJson(storage, DISPOSITIONS_KEY);
  if (!Array.isArray(raw) || !uuid) return undefined;
  for (let i = raw.length - 1; i >= 0; i--) {
    const d = dispositionOf(raw[i]);
    if (d && (d.id === uuid || d.customerUuid === uuid)) return d;
  }
  return undefined;
}
