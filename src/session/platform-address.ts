/**
 * Platform addresses as the user types them and as the app uses them. "" stands for the page's
 * own origin: the app served by the platform itself needs no address at all.
 */

export type PlatformAddressCheck = { ok: true; url: string } | { ok: false };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Turns what was typed into a base URL ("https://pbx.example.com" or with a path prefix), or
 * says it is malformed. A missing scheme means https; a pasted "/api" suffix is dropped because
 * the client adds it.
 */
export function checkPlatformAddress(input: string): PlatformAddressCheck {
  const typed = input.trim();
  if (typed === "") return { ok: true, url: "" };
  if (/\s/.test(typed)) return { ok: false };
  const withScheme = SCHEME.test(typed) ? typed : `https://${typed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false };
  if (!url.hostname || url.username || url.password || url.search || url.hash) return { ok: false };
  // A host name needs a dot, or must be localhost / an IP literal; "https://pbx" is almost always a typo.
  if (!/[.:]/.test(url.hostname) && url.hostname !== "localhost" && !url.hostname.startsWith("[")) return { ok: false };
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return { ok: true, url: `${url.protocol}//${url.host}${path}` };
}

/** The address to show to a person: "" becomes the page's origin. */
export function displayAddress(platformUrl: string, pageOrigin: string): string {
  return platformUrl || pageOrigin;
}

/**
 * The platform's WebSocket endpoint (`/ws`) for a platform address; `pageHref` resolves "" and
 * relative addresses.
 */
export function platformWebSocketUrl(platformUrl: string, pageHref: string): string {
  const base = new URL(platformUrl || "/", pageHref);
  const scheme = base.protocol === "https:" ? "wss:" : "ws:";
  const path = platformUrl ? base.pathname.replace(/\/+$/, "") : "";
  return `${scheme}//${base.host}${path}/ws`;
}
