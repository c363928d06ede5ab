import type { CallQualityMonitor, CallStatsTimeline, WatchedCall } from "./quality-watchdog";

/**
 * The call-quality watchdogs, loaded with the first call watched: most of the page never needs
 * them before, so their code is not in the first download.
 */
export function lazyQualityMonitor(now: () => number) {
  let loading: Promise<CallQualityMonitor> | undefined;
  let loaded: CallQualityMonitor | undefined;
  return {
    /** Watches `call` once the watchdogs are loaded; the function returned stops it. */
    watch(call: WatchedCall): () => void {
      let stop: (() => void) | undefined;
      let stopped = false;
      loading ??= import("./quality-watchdog").then((m) => (loaded = new m.CallQualityMonitor(now)));
      loading.then(
        (monitor) => {
          if (!stopped) stop = monitor.watch(call);
        },
        (e: unknown) => console.warn("softphone: the call-quality watchdog could not be loaded", e),
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
    /** The statistics timelines of the last calls watched (none before the first). */
    history(): CallStatsTimeline[] {
      return loaded?.history() ?? [];
    },
  };
}
