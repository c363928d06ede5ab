import type { UserAgent } from "sip.js";
import { md5Hex } from "./md5";

/**
 * Makes every REGISTER after the first challenge (refreshes, the un-REGISTER) carry a fresh answer
 * to the last challenge: same nonce, nonce count one higher, new cnonce (RFC 7616 §3.4.5).
 *
 * sip.js keeps one REGISTER message per registerer and leaves the Authorization header of the last
 * challenge on it, so each refresh replays it word for word. Registrars that count nonce uses
 * (FreeSWITCH, Kamailio with `nonce_count`) refuse a replay, and a nonce past its lifetime is
 * refused anyway: each refresh then pays a 401, and an un-REGISTER sent as the phone stops met
 * that 401 with the socket already closing. With a counted answer the registrar accepts the
 * request at once while the nonce lives, and says `stale` (one 401, which sip.js answers) after.
 *
 * It hooks `userAgentCore.register`, the one call through which sip.js's `Registerer` sends every
 * REGISTER: sip.js offers no option or event for the header of a request it re-sends by itself.
 */
export function countNonceUsesOnRegister(ua: UserAgent, password: () => string): void {
  const core = ua.userAgentCore;
  const register = core.register.bind(core);
  core.register = (request, delegate) => {
    const header = request.getHeader("authorization");
    const fresh = header ? recountedAuthorization(header, "REGISTER", password()) : undefined;
    if (fresh) request.setHeader("authorization", fresh);
    return register(request, delegate);
  };
}

/**
 * The same digest answer for the next use of its nonce; `undefined` when it cannot be counted
 * (no `qop`, an algorithm other than MD5): then it goes as it is.
 */
export function recountedAuthorization(
  header: string,
  method: string,
  password: string,
  cnonce = randomCnonce(),
): string | undefined {
  const m = /^\s*Digest\s+(.*)$/i.exec(header);
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const p of m[1]!.matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|([^,\s]+))/g))
    params.set(p[1]!.toLowerCase(), p[2] ?? p[3] ?? "");
  const [username, realm, nonce, uri, qop, nc] = ["username", "realm", "nonce", "uri", "qop", "nc"].map((k) =>
    params.get(k),
  );
  const algorithm = params.get("algorithm") ?? "MD5";
  if (!username || realm === undefined || !nonce || !uri || qop !== "auth" || !nc || algorithm.toUpperCase() !== "MD5")
    return undefined;
  const count = Number.parseInt(nc, 16);
  if (!Number.isFinite(count)) return undefined;
  const ncHex = (count + 1).toString(16).padStart(8, "0");
  const ha1 = md5Hex(`${username}:${realm}:${password}`);
  const ha2 = md5Hex(`${method}:${uri}`);
  const response = md5Hex(`${ha1}:${nonce}:${ncHex}:${cnonce}:auth:${ha2}`);
  const opaque = params.get("opaque");
  return [
    `Digest algorithm=${algorithm}`,
    `username="${username}"`,
    `realm="${realm}"`,
    `nonce="${nonce}"`,
    `uri="${uri}"`,
    `response="${response}"`,
    ...(opaque !== undefined ? [`opaque="${opaque}"`] : []),
    "qop=auth",
    `cnonce="${cnonce}"`,
    `nc=${ncHex}`,
  ].join(", ");
}

function randomCnonce(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
