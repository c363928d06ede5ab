import { createStore, type StoreApi } from "zustand/vanilla";
import type { SupervisionMode } from "../../../shared/supervision-mode";
import { browserStorage, readJson, type KeyValueStorage, type SessionStore } from "../../session";

/**
 * The supervisor's action log: who did what to whom, when, and how it went. Kept in this
 * browser's localStorage per supervisor and platform, so that it survives a reload, newest first
 * and bounded (LOG_SIZE entries, none older than LOG_DAYS). The platform has no place for it.
 */
export type SupervisorCommand = SupervisionMode | "intercept" | "stop" | "agent-status";

export interface SupervisorLogEntry {
  at: number;
  /** The supervisor (login). */
  by: string;
  agent: string;
  agentName: string;
  command: SupervisorCommand;
  /** The status asked for, the customer of the call: what the line is about. */
  detail: string;
  outcome: "done" | "failed";
  error?: string;
  /** The supervisor's phone leg it used (the platform's uuid of that leg), when known: its call record. */
  leg?: string;
}

export const LOG_SIZE = 200;
export const LOG_DAYS = 30;

export interface ActionLogState {
  /** Newest first. */
  entries: readonly SupervisorLogEntry[];
}

export interface ActionLog {
  store: StoreApi<ActionLogState>;
  add(entry: Omit<SupervisorLogEntry, "at" | "by">): void;
}

const COMMANDS: readonly string[] = [
  "monitor",
  "whisper",
  "whisper-customer",
  "barge",
  "intercept",
  "stop",
  "agent-status",
];

/** An entry read back from storage, or undefined when it is not one (an older or tampered record). */
function entryOf(x: unknown): SupervisorLogEntry | undefined {
  if (!x || typeof x !== "object") return undefined;
  const e = x as Record<string, unknown>;
  const str = (k: string) => (typeof e[k] === "string" ? (e[k] as string) : "");
  if (typeof e.at !== "number" || !Number.isFinite(e.at) || !COMMANDS.includes(str("command"))) return undefined;
  if (e.outcome !== "done" && e.outcome !== "failed") return undefined;
  return {
    at: e.at,
    by: str("by"),
    agent: str("agent"),
    agentName: str("agentName"),
    command: str("command") as SupervisorCommand,
    detail: str("detail"),
    outcome: e.outcome,
    ...(str("error") ? { error: str("error") } : {}),
    ...(str("leg") ? { leg: str("leg") } : {}),
  };
}

const bounded = (entries: readonly SupervisorLogEntry[], now: number) =>
  entries.filter((e) => now - e.at < LOG_DAYS * 86_400_000).slice(0, LOG_SIZE);

export function createActionLog(deps: {
  session: SessionStore;
  storage: KeyValueStorage;
  now?: () => number;
}): ActionLog {
  const now = deps.now ?? Date.now;
  const store = createStore<ActionLogState>()(() => ({ entries: [] }));
  /** The key of the signed-in supervisor on this platform; "" while nobody is signed in. */
  let key = "";
  const keyOf = () => {
    const s = deps.session.getState();
    return s.status === "signed-in" && s.user ? `agentbar.supervisor-log.${s.user.login}@${s.platformUrl}` : "";
  };
  const load = () => {
    const next = keyOf();
    if (next === key) return;
    key = next;
    const raw = key ? readJson(deps.storage, key) : undefined;
    const entries = Array.isArray(raw) ? raw.map(entryOf).filter((e): e is SupervisorLogEntry => !!e) : [];
    store.setState({ entries: bounded(entries, now()) });
  };
  load();
  deps.session.subscribe(load);
  return {
    store,
    add(entry) {
      load();
      const by = deps.session.getState().user?.login ?? "";
      const entries = bounded([{ at: now(), by, ...entry }, ...store.getState().entries], now());
      store.setState({ entries });
      if (key) deps.storage.setItem(key, JSON.stringify(entries));
    },
  };
}

const logs = new WeakMap<SessionStore, ActionLog>();

/** The one action log of a session store (the supervision writes it, the call history reads it), in localStorage. */
export function actionLogOf(session: SessionStore, storage?: KeyValueStorage): ActionLog {
  let log = logs.get(session);
  if (!log) logs.set(session, (log = createActionLog({ session, storage: storage ?? browserStorage("localStorage") })));
  return log;
}
