import { computed, signal, type ReadonlySignal } from "@preact/signals";
import type { StoreApi } from "zustand/vanilla";

const bound = new WeakMap<object, ReadonlySignal<unknown>>();

/**
 * The one bridge from domain stores to components: a read-only signal that follows a zustand
 * store. Components read it (and re-render on change); they change things through the store's
 * actions. Stores live as long as the page, so the subscription is never dropped; one signal per
 * store is shared by every caller.
 */
export function storeSignal<T>(store: StoreApi<T>): ReadonlySignal<T> {
  let out = bound.get(store) as ReadonlySignal<T> | undefined;
  if (!out) {
    const state = signal(store.getState());
    store.subscribe((next) => {
      state.value = next;
    });
    out = computed(() => state.value);
    bound.set(store, out);
  }
  return out;
}
