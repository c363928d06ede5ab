import { computed, signal, type ReadonlySignal } from "@preact/signals";
import type { StoreApi } from "zustand/vanilla";

const bound = new WeakMap<object, ReadonlySignal<unknown>>();

/**
 * The one bridge from domain stores to components: a read-only signal that follows a zustand
 * store. Components read it (and re-render on change); they change things through actions.
 * Stores live as long as the page, so the subscription is never dropped; one signal per store is
 * shared by every caller.
 *
 * With `select`, the signal holds a slice of the state and changes only when the slice does
 * (`equal`, by default the same value; `shallowEqual` for a slice made of several fields), so a
 * component that reads it re-renders for its slice only. A slice holds no subscription of its own:
 * one made in a component is let go with it.
 */
export function storeSignal<T>(store: StoreApi<T>): ReadonlySignal<T>;
export function storeSignal<T, S>(
  store: StoreApi<T>,
  select: (state: T) => S,
  equal?: (a: S, b: S) => boolean,
): ReadonlySignal<S>;
export function storeSignal<T, S>(
  store: StoreApi<T>,
  select?: (state: T) => S,
  equal: (a: S, b: S) => boolean = Object.is,
): ReadonlySignal<T | S> {
  let whole = bound.get(store) as ReadonlySignal<T> | undefined;
  if (!whole) {
    const state = signal(store.getState());
    store.subscribe((next) => {
      state.value = next;
    });
    whole = computed(() => state.value);
    bound.set(store, whole);
  }
  if (!select) return whole;
  const from = whole;
  let last: { value: S } | undefined;
  // A computed that returns the value it returned before does not notify its readers.
  return computed(() => {
    const value = select(from.value);
    if (!last || !equal(last.value, value)) last = { value };
    return last.value;
  });
}

/** Two objects with the same values under the same keys (one level deep). */
export function shallowEqual<S>(a: S, b: S): boolean {
  if (Object.is(a, b)) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
