import { readJson, type KeyValueStorage } from "../session";
import type { AgentStore } from "./agent-state";

export const CALL_NOTES_KEY = "agentbar.call-notes";
/** Conversations whose notes are kept (the newest), and for how long: they are taken at the call's end. */
export const CALL_NOTES_KEPT = 20;
export const CALL_NOTES_MAX_AGE_MS = 24 * 3600_000;

/**
 * Notes typed during a call, per conversation (`conversationOf`): in the store (`callNotes`) for
 * the card and the agent's other tabs, and in localStorage on every keystroke, so that a reload,
 * a take-back or a crash loses nothing. After-call work takes them when the call ends (a call
 * without after-call work keeps them in its record).
 */
export interface CallNotes {
  /** For the agent of this run: the notes a reload left. */
  begin(agent: string): void;
  stop(): void;
  set(conversation: string, notes: string): void;
  /** The notes of a conversation, removed from what is kept ("" when none). */
  take(conversation: string): string;
}

interface Kept {
  notes: string;
  at: number;
}

export function createCallNotes(o: { store: AgentStore; storage: KeyValueStorage; now: () => number }): CallNotes {
  const { store, storage, now } = o;
  let key: string | undefined;

  const load = (): Record<string, Kept> => {
    const raw = key ? readJson(storage, key) : undefined;
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return {};
    const out: Record<string, Kept> = {};
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      const r = v as Partial<Kept> | null;
      if (r && typeof r.notes === "string" && typeof r.at === "number" && now() - r.at < CALL_NOTES_MAX_AGE_MS)
        out[k] = { notes: r.notes, at: r.at };
    }
    return out;
  };
  const save = (all: Record<string, Kept>) => {
    if (!key) return;
    const newest = Object.entries(all)
      .sort((a, b) => b[1].at - a[1].at)
      .slice(0, CALL_NOTES_KEPT);
    if (newest.length) storage.setItem(key, JSON.stringify(Object.fromEntries(newest)));
    else storage.removeItem(key);
    store.setState({ callNotes: Object.fromEntries(newest.map(([k, v]) => [k, v.notes])) });
  };

  return {
    begin(agent) {
      key = `${CALL_NOTES_KEY}.${agent}`;
      save(load());
    },
    stop() {
      key = undefined;
    },
    set(conversation, notes) {
      if (!key || !conversation) return;
      const all = load();
      if (notes) all[conversation] = { notes, at: now() };
      else delete all[conversation];
      save(all);
    },
    take(conversation) {
      const all = load();
      const notes = all[conversation]?.notes ?? "";
      if (notes) {
        delete all[conversation];
        save(all);
      }
      return notes;
    },
  };
}
