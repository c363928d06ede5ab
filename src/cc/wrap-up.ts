import { readJson, type KeyValueStorage } from "../session";

/** The status to take when after-call work ends (or, without wrap-up, when the call ends). */
export type NextStatus = { kind: "ready" } | { kind: "on-demand" } | { kind: "break"; reason: string } | { kind: "logged-out" };

/**
 * After-call work. mod_callcenter has no wrap-up state or event: `wrap_up_time` only keeps the
 * next offer back, so the toolbar counts it down itself. Kept in localStorage on every change, so
 * a reload or a crash loses nothing: the countdown goes on from where it was.
 */
export interface WrapUp {
  /** The call's key: the agent leg's uuid (the platform's callID, the call record's uuid), else the phone's call id. */
  id: string;
  /** The customer's channel uuid, the other record of the same call. */
  customerUuid: string;
  queue: string;
  customerName: string;
  customerNumber: string;
  callEndedAt: number;
  /** When the countdown ends, ms since epoch. */
  endsAt: number;
  /** The agent's wrap_up_time, seconds. */
  wrapUpSec: number;
  /** Seconds added with Extend. */
  extendedSec: number;
  /** Extending past wrap_up_time put the agent On Break, so that no offer comes meanwhile. */
  heldOnBreak: boolean;
  disposition: string;
  notes: string;
  next: NextStatus;
}

/** What was recorded about a call: the platform has no place for it, so it stays here, per call. */
export interface CallDisposition {
  id: string;
  customerUuid: string;
  queue: string;
  customerName: string;
  customerNumber: string;
  disposition: string;
  notes: string;
  endedAt: number;
  savedAt: number;
}

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
  if (!next || !strings.every((k) => isString(r[k])) || !numbers.every((k) => isNumber(r[k])) || typeof r.heldOnBreak !== "boolean") return undefined;
  return r as unknown as WrapUp;
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
