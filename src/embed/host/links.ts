/**
 * The number or SIP address a `tel:`, `sip:` or `sips:` link dials, or undefined for any other
 * link. `tel:` parameters (`;phone-context=...`) are dropped; separators stay (the app cleans
 * them up as its dial pad does).
 */
export function dialStringOf(href: string): string | undefined {
  const scheme = /^\s*(tel|sips?):/i.exec(href)?.[1]?.toLowerCase();
  if (!scheme) return undefined;
  let value: string;
  try {
    value = decodeURIComponent(href.trim());
  } catch {
    return undefined;
  }
  return scheme === "tel" ? value.slice(4).replace(/^\/\//, "").split(";")[0]! : value;
}

/**
 * Turns clicks on `tel:` and `sip:` links inside `root` into `dial` (plain left clicks and Enter;
 * a click with a modifier key, or one the page already handled, is left to the browser).
 * Links added later are covered too. Returns the function that stops it.
 */
export function dialLinks(
  root: Document | Element,
  dial: (target: string) => Promise<unknown>,
  onError: (error: unknown, target: string) => void,
): () => void {
  const onClick = (e: Event) => {
    const m = e as MouseEvent;
    if (m.defaultPrevented || m.button !== 0 || m.ctrlKey || m.metaKey || m.shiftKey || m.altKey) return;
    const link = (e.target as Element | null)?.closest?.("a[href]");
    const target = link && dialStringOf(link.getAttribute("href") ?? "");
    if (!target) return;
    e.preventDefault();
    dial(target).catch((error: unknown) => onError(error, target));
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}
