/**
 * Code the signed-in screen shows only later (the full page's history, panels a call opens) waits
 * for this before it is fetched: the page is ready for calls (or the sign-in screen shows, and the
 * agent types) and the browser is idle. What loads then stays out of the page's start, and is
 * there long before anyone opens it. `begin` is called by the page once it is ready.
 */
let release: () => void = () => undefined;
export const afterStart = new Promise<void>((resolve) => (release = resolve));

/** The page is ready: what waits for `afterStart` loads once the browser has a quiet moment. */
export function beginAfterStart(): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => void })
    .requestIdleCallback;
  if (idle) idle(release, { timeout: 500 });
  else setTimeout(release, 0);
}
