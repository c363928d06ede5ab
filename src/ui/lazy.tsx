import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/**
 * A component whose code is fetched the first time it is shown: for panels that many sessions
 * never open (settings, devices) and for parts a layout may not show (the bar has no history).
 * Shows nothing for the moment it takes to load.
 */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> & { preload(): Promise<unknown> } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const start = () => (loading ??= load().then((c) => (loaded = c)));
  function Lazy(props: P) {
    const [, setReady] = useState(false);
    useEffect(() => {
      if (loaded) return;
      start();
      let live = true;
      loading!.then(
        () => live && setReady(true),
        (e: unknown) => console.warn("agentbar: could not load a part of the page", e),
      );
      return () => {
        live = false;
      };
    }, []);
    const C = loaded;
    return C ? <C {...props} /> : null;
  }
  /** Loads the code now (before the first render that needs it, so nothing flashes empty). */
  Lazy.preload = () => start();
  return Lazy;
}
