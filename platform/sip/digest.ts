import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * SIP digest authentication (RFC 2617 / RFC 3261 §22, MD5 with qop=auth), the scheme sip.js and
 * FreeSWITCH speak. Nonces are stateless: a timestamp signed with a per-process key, so the
 * registrar keeps no table that a flood could grow; a nonce older than `nonceLifetimeMs` is
 * answered with `stale=true` and sip.js retries at once with a fresh one.
 */
export interface DigestCredentials {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  qop?: string;
  nc?: string;
  cnonce?: string;
  algorithm?: string;
}

export type DigestCheck =
  | { ok: true; username: string }
  | { ok: false; reason: "missing" | "malformed" | "realm" | "nonce" | "stale" | "password"; username?: string };

const md5 = (text: string) => createHash("md5").update(text).digest("hex");

export class DigestAuthenticator {
  private readonly key = randomBytes(32);

  constructor(
    readonly realm: string,
    private readonly nonceLifetimeMs = 5 * 60_000,
  ) {}

  /** The value of a WWW-Authenticate / Proxy-Authenticate header with a new nonce. */
  challenge(stale = false): string {
    return `Digest realm="${this.realm}", nonce="${this.makeNonce()}", qop="auth", algorithm=MD5${stale ? ", stale=true" : ""}`;
  }

  /**
   * Checks an Authorization / Proxy-Authorization header value for `method` against every
   * password `passwordsOf(username)` gives (the extension's own and its live tokens).
   */
  check(header: string | undefined, method: string, passwordsOf: (username: string) => string[]): DigestCheck {
    if (!header) return { ok: false, reason: "missing" };
    const c = parseDigest(header);
    if (!c) return { ok: false, reason: "malformed" };
    if (c.realm !== this.realm) return { ok: false, reason: "realm", username: c.username };
    if (c.algorithm && c.algorithm.toUpperCase() !== "MD5") return { ok: false, reason: "malformed", username: c.username };
    const age = this.nonceAge(c.nonce);
    if (age === undefined) return { ok: false, reason: "nonce", username: c.username };
    const ha2 = md5(`${method}:${c.uri}`);
    const matches = passwordsOf(c.username).some((password) => {
      const ha1 = md5(`${c.username}:${c.realm}:${password}`);
      const expected = c.qop ? md5(`${ha1}:${c.nonce}:${c.nc ?? ""}:${c.cnonce ?? ""}:${c.qop}:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
      return safeEqual(expected, c.response.toLowerCase());
    });
    if (!matches) return { ok: false, reason: "password", username: c.username };
    // A right answer to an old nonce: ask again with a fresh one rather than refusing.
    if (age > this.nonceLifetimeMs) return { ok: false, reason: "stale", username: c.username };
    return { ok: true, username: c.username };
  }

  private makeNonce(): string {
    const stamp = Date.now().toString(36);
    const salt = randomBytes(6).toString("hex");
    return `${stamp}.${salt}.${this.sign(`${stamp}.${salt}`)}`;
  }

  /** Milliseconds since the nonce was made, or undefined when it is not one of ours. */
  private nonceAge(nonce: string): number | undefined {
    const [stamp, salt, mac] = nonce.split(".");
    if (!stamp || !salt || !mac || !safeEqual(this.sign(`${stamp}.${salt}`), mac)) return undefined;
    const made = parseInt(stamp, 36);
    return Number.isFinite(made) ? Date.now() - made : undefined;
  }

  private sign(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("base64url").slice(0, 22);
  }
}

/** Parses `Digest k=v, k="v", ...`; undefined when a required parameter is missing. */
export function parseDigest(header: string): DigestCredentials | undefined {
  const m = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[1]!.matchAll(/([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[p[1]!.toLowerCase()] = (p[2] ?? p[3] ?? "").replace(/\\(.)/g, "$1");
  }
  const { username, realm, nonce, uri, response } = params;
  if (!username || realm === undefined || !nonce || !uri || !response) return undefined;
  return {
    username,
    realm,
    nonce,
    uri,
    response,
    ...(params.qop ? { qop: params.qop } : {}),
    ...(params.nc ? { nc: params.nc } : {}),
    ...(params.cnonce ? { cnonce: params.cnonce } : {}),
    ...(params.algorithm ? { algorithm: params.algorithm } : {}),
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
