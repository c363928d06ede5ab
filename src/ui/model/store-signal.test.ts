import { effect } from "@preact/signals";
import { describe, expect, it } from "vitest";
import { createStore } from "zustand/vanilla";
import { shallowEqual, storeSignal } from "./store-signal";

describe("storeSignal", () => {
  it("follows the store, and one signal serves every caller", () => {
    const store = createStore<{ n: number; inc(): void }>()((set, get) => ({
      n: 1,
      inc: () => set({ n: get().n + 1 }),
    }));
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

  it("with a selector, tells its readers only when their slice changes", () => {
    const store = createStore<{ a: number; b: number; list: number[] }>()(() => ({ a: 1, b: 1, list: [1] }));
    const a = storeSignal(store, (s) => s.a);
    const pair = storeSignal(store, (s) => ({ a: s.a, list: s.list }), shallowEqual);
    const seenA: number[] = [];
    const seenPair: number[] = [];
    const stops = [effect(() => void seenA.push(a.value)), effect(() => void seenPair.push(pair.value.a))];
    store.setState({ b: 2 });
    store.setState({ b: 3 });
    store.setState({ a: 2 });
    store.setState({ list: [2] });
    stops.forEach((s) => s());
    expect(seenA).toEqual([1, 2]);
    expect(seenPair).toEqual([1, 2, 2]);
  });
});
