import { effect } from "@preact/signals";
import { describe, expect, it } from "vitest";
import { createStore } from "zustand/vanilla";
import { storeSignal } from "./store-signal";

describe("storeSignal", () => {
  it("follows the store, and one signal serves every caller", () => {
    const store = createStore<{ n: number; inc(): void }>()((set, get) => ({ n: 1, inc: () => set({ n: get().n + 1 }) }));
    const state = storeSignal(store);
    expect(storeSignal(store)).toBe(state);
    const seen: number[] = [];
    const stop = effect(() => void seen.push(state.value.n));
    store.getState().inc();
    state.value.inc();
    stop();
    expect(seen).toEqual([1, 2, 3]);
    // Read-only: components change the store through its actions.
    expect(() => ((state as { value: unknown }).value = { n: 0 })).toThrow();
  });
});
