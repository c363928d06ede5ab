import { createStore, type StoreApi } from "zustand/vanilla";
import type { Call, CallId } from "./call";

export interface CallsState {
  /** Oldest first. Ended calls stay (state `ended`) until dismissed or pushed out. */
  calls: readonly Call[];
}

export type CallsStore = StoreApi<CallsState>;

/** Ended calls kept for the UI to show how they ended; older ones are dropped. */
export const ENDED_CALLS_KEPT = 5;

export function createCallsStore(): CallsStore {
  return createStore<CallsState>()(() => ({ calls: [] }));
}

export function findCall(state: CallsState, id: CallId): Call | undefined {
  return state.calls.find((c) => c.id === id);
}

export function addCall(store: CallsStore, call: Call): void {
  store.setState((s) => ({ calls: [...s.calls, call] }));
}

export function updateCall(
  store: CallsStore,
  id: CallId,
  patch: Partial<Call> | ((call: Call) => Partial<Call>),
): Call | undefined {
  let updated: Call | undefined;
  store.setState((s) => {
    const index = s.calls.findIndex((c) => c.id === id);
    const current = s.calls[index];
    if (!current) return s;
    updated = { ...current, ...(typeof patch === "function" ? patch(current) : patch) };
    const calls = s.calls.slice();
    calls[index] = updated;
    return { calls: pruneEnded(calls) };
  });
  return updated;
}

export function removeCall(store: CallsStore, id: CallId): void {
  store.setState((s) => ({ calls: s.calls.filter((c) => c.id !== id) }));
}

function pruneEnded(calls: Call[]): Call[] {
  const ended = calls.filter((c) => c.state === "ended");
  if (ended.length <= ENDED_CALLS_KEPT) return calls;
  const drop = new Set(ended.slice(0, ended.length - ENDED_CALLS_KEPT).map((c) => c.id));
  return calls.filter((c) => !drop.has(c.id));
}
