import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/**
 * A component whose code is fetched the first time it is shown: for panels that many sessions
 * never open (settings, devices) and for parts a layout may not show (the bar has no history).
 * Shows nothing for the moment it takes to load.
 */
export function lazy<P extends object>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> & { preload(): Promise<unknown> } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  // A failed load is tried again by the next mount or preload that needs it.
  const start = () =>
    (loading ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        loading = undefined;
        throw e;
      },
    ));
  function Lazy(props: P) {
    const [, setReady] = useState(false);
    const C = loaded;
    useEffect(() => {
      // Rendered empty: shown once the code is here (which may be by now, if a preload ran meanwhile).
      if (C) return;
      let live = true;
      start().then(
        () => live && setReady(true),
        (e: unknown) => console.warn("agentbar: could not load a part of the page", e),
      );
      return () => {
        live = false;
      };
    }, []);
    return C ? <C {...props} /> : null;
  }
  /** Loads the code now (before the first render that needs it, so nothing flashes empty). */
  Lazy.preload = () => start();
  return Lazy;
}
