import { createStore, type StoreApi } from "zustand/vanilla";
import { readJson, type KeyValueStorage } from "../../session";
import type { PlatformClock } from "../platform-clock";
import type { QueueDay } from "./queue-day";
import { WRAP_UP_BREAK_REASON } from "../after-call-work";
import { statusSinceOf, summarizeQueue, type WallboardData } from "./wallboard";

/**
 * A queue's thresholds, set by the supervisor and kept in this browser (per supervisor and
 * platform): the platform has no place for them. A limit left empty (null) raises nothing.
 */
export interface QueueThresholds {
  /** The service level's threshold: a caller answered within it counts as within, seconds. */
  serviceLevelSeconds: number;
  /** The service level below which the queue is in breach, 0..100 %. */
  serviceLevelTarget: number | null;
  /** Longest wait now above this, seconds. */
  longestWaitSeconds: number | null;
  /** Callers waiting above this. */
  waitingMax: number | null;
  /** Callers waiting while no agent of the queue is ready. */
  noAgentReady: boolean;
  /** An agent of the queue on break, in after-call work or in a call longer than this, minutes / seconds / minutes. */
  breakMinutes: number | null;
  wrapUpSeconds: number | null;
  callMinutes: number | null;
}

export const DEFAULT_THRESHOLDS: QueueThresholds = {
  serviceLevelSeconds: 20,
  serviceLevelTarget: 80,
  longestWaitSeconds: 60,
  waitingMax: 5,
  noAgentReady: true,
  breakMinutes: 30,
  wrapUpSeconds: 120,
  callMinutes: 20,
};

export type AlertKind =
  "service-level" | "longest-wait" | "waiting" | "no-agent-ready" | "agent-break" | "agent-wrap-up" | "agent-call";

/** A threshold breached now. Its `id` is the same for as long as the breach lasts. */
export interface Breach {
  id: string;
  kind: AlertKind;
  queue: string;
  /** The agent, for the agents' limits. */
  agent?: string;
  agentName?: string;
  /** The figure now and its limit, in the limit's unit (%, seconds, callers, minutes). */
  value: number;
  limit: number;
}

/** What breaches now, queue by queue (`days`: the queues' figures of the day). */
export function breachesOf(
  board: WallboardData,
  thresholdsOf: (queue: string) => QueueThresholds,
  dayOf: (queue: string) => QueueDay | undefined,
  clock: PlatformClock,
  now: number,
): Breach[] {
  const out: Breach[] = [];
  const agentsSeen = new Set<string>();
  for (const queue of [...board.queues.keys()].sort()) {
    const t = thresholdsOf(queue);
    const q = summarizeQueue(board, queue, t.serviceLevelSeconds, dayOf(queue));
    const add = (kind: AlertKind, value: number, limit: number) =>
      out.push({ id: `${kind}:${queue}`, kind, queue, value, limit });
    if (t.serviceLevelTarget !== null && q.serviceLevel !== null && q.serviceLevel * 100 < t.serviceLevelTarget)
      add("service-level", Math.round(q.serviceLevel * 100), t.serviceLevelTarget);
    const longest = q.longestWaitingSince === null ? null : (now - q.longestWaitingSince) / 1000;
    if (t.longestWaitSeconds !== null && longest !== null && longest > t.longestWaitSeconds)
      add("longest-wait", Math.floor(longest), t.longestWaitSeconds);
    if (t.waitingMax !== null && q.waiting !== null && q.waiting > t.waitingMax)
      add("waiting", q.waiting, t.waitingMax);
    if (t.noAgentReady && (q.waiting ?? 0) > 0 && q.byStatus.ready + q.byStatus["on-demand"] === 0)
      add("no-agent-ready", q.waiting ?? 0, 0);
    for (const a of board.agents.values()) {
      if (!a.queues.includes(queue) || agentsSeen.has(a.number)) continue;
      const agentBreach = (kind: AlertKind, value: number, limit: number) => {
        agentsSeen.add(a.number);
        out.push({ id: `${kind}:${a.number}`, kind, queue, agent: a.number, agentName: a.name, value, limit });
      };
      if (a.call && a.call.answeredAt && t.callMinutes !== null) {
        const minutes = (now - a.call.answeredAt) / 60_000;
        if (minutes > t.callMinutes) agentBreach("agent-call", Math.floor(minutes), t.callMinutes);
      } else if (a.kind === "break" && a.reason === WRAP_UP_BREAK_REASON) {
        // After-call work the agent extended past the platform's wrap-up time (the toolbar holds
        // offers back with this break); the platform's own wrap-up time is short and bounded.
        const seconds = (now - statusSinceOf(a, clock).at) / 1000;
        if (t.wrapUpSeconds !== null && seconds > t.wrapUpSeconds)
          agentBreach("agent-wrap-up", Math.floor(seconds), t.wrapUpSeconds);
      } else if (a.kind === "break" && t.breakMinutes !== null) {
        const minutes = (now - statusSinceOf(a, clock).at) / 60_000;
        if (minutes > t.breakMinutes) agentBreach("agent-break", Math.floor(minutes), t.breakMinutes);
      }
    }
  }
  return out;
}

export interface AlertsState {
  /** The breaches now, each raised once: when it began. */
  active: readonly (Breach & { since: number })[];
  /** Bumped each time a new breach is raised (a surface plays its sound, shows its notification). */
  raised: number;
  /** The breaches raised by the last change. */
  lastRaised: readonly Breach[];
}

const ALERTS_KEY = "agentbar.alerts";
/**
 * A reload: the breaches of before it that are there again within this long (while the board
 * reads its figures again) are the same breaches, raised already, since when they began.
 */
const RESUME_MS = 60_000;

/**
 * Breaches followed over time: a new one is raised once (it stays in the list while it lasts,
 * with when it began), and it is cleared when it ends; the same breach again later is raised anew.
 * With `storage` (the tab's), the breaches on now are kept per `scope` (user and platform), so that
 * a reload neither raises them again (sound, notification, announcement) nor dates them anew.
 */
export function createAlerts(storage?: KeyValueStorage): {
  store: StoreApi<AlertsState>;
  update(breaches: readonly Breach[], now: number, scope?: string): void;
} {
  const store = createStore<AlertsState>()(() => ({ active: [], raised: 0, lastRaised: [] }));
  let scope: string | undefined;
  /** The breaches kept from before the reload, by id: when each began; until when they are taken up. */
  let kept = new Map<string, number>();
  let keptUntil = 0;
  const resume = (now: number) => {
    const raw = storage && scope ? readJson(storage, `${ALERTS_KEY}.${scope}`) : null;
    const k = (raw && typeof raw === "object" ? raw : {}) as { at?: unknown; active?: unknown };
    kept = new Map();
    keptUntil = now + RESUME_MS;
    if (typeof k.at !== "number" || Math.abs(now - k.at) > RESUME_MS || !Array.isArray(k.active)) return;
    for (const a of k.active as { id?: unknown; since?: unknown }[])
      if (typeof a?.id === "string" && typeof a.since === "number") kept.set(a.id, a.since);
  };
  return {
    store,
    update(breaches, now, to = "") {
      if (to !== scope) {
        scope = to;
        if (store.getState().active.length) store.setState({ active: [] });
        resume(now);
      }
      if (now > keptUntil) kept.clear();
      const before = new Map(store.getState().active.map((b) => [b.id, b]));
      const fresh = breaches.filter((b) => !before.has(b.id) && !kept.has(b.id));
      const active = breaches.map((b) => ({ ...b, since: before.get(b.id)?.since ?? kept.get(b.id) ?? now }));
      for (const b of breaches) kept.delete(b.id);
      if (storage && scope && (active.length || before.size))
        storage.setItem(
          `${ALERTS_KEY}.${scope}`,
          JSON.stringify({ at: now, active: active.map((b) => ({ id: b.id, since: b.since })) }),
        );
      const same =
        active.length === before.size &&
        active.every((b) => {
          const o = before.get(b.id);
          return o && o.value === b.value && o.limit === b.limit;
        });
      if (same) return;
      store.setState((s) => ({
        active,
        ...(fresh.length ? { raised: s.raised + 1, lastRaised: fresh } : {}),
      }));
    },
  };
}

const THRESHOLDS_KEY = "agentbar.thresholds";

/** The thresholds of every queue, kept in `storage` under the supervisor and the platform. */
export class ThresholdStorage {
  private all: Record<string, QueueThresholds>;
  constructor(
    private readonly storage: KeyValueStorage,
    private readonly scope: string,
  ) {
    const raw = readJson(storage, this.key);
    this.all = {};
    if (raw && typeof raw === "object")
      for (const [queue, t] of Object.entries(raw as Record<string, unknown>)) this.all[queue] = thresholdsOf(t);
  }

  private get key() {
    return `${THRESHOLDS_KEY}.${this.scope}`;
  }

  of(queue: string): QueueThresholds {
    return this.all[queue] ?? DEFAULT_THRESHOLDS;
  }

  set(queue: string, t: QueueThresholds): void {
    this.all = { ...this.all, [queue]: thresholdsOf(t) };
    this.storage.setItem(this.key, JSON.stringify(this.all));
  }
}

/** What storage held, made safe: a value that is not a number of the right range is the default. */
function thresholdsOf(raw: unknown): QueueThresholds {
  const r = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const limit = (k: keyof QueueThresholds, max: number): number | null => {
    const v = r[k];
    if (v === null) return null;
    return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= max
      ? v
      : (DEFAULT_THRESHOLDS[k] as number | null);
  };
  return {
    serviceLevelSeconds: limit("serviceLevelSeconds", 3600) || DEFAULT_THRESHOLDS.serviceLevelSeconds,
    serviceLevelTarget: limit("serviceLevelTarget", 100),
    longestWaitSeconds: limit("longestWaitSeconds", 86_400),
    waitingMax: limit("waitingMax", 100_000),
    noAgentReady: typeof r.noAgentReady === "boolean" ? r.noAgentReady : DEFAULT_THRESHOLDS.noAgentReady,
    breakMinutes: limit("breakMinutes", 1440),
    wrapUpSeconds: limit("wrapUpSeconds", 86_400),
    callMinutes: limit("callMinutes", 1440),
  };
}
