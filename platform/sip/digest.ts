import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { UserAgent } from "sip.js";

/**
 * SIP digest authentication (RFC 2617 / RFC 3261 §22, MD5 with qop=auth), the scheme sip.js and
 * FreeSWITCH speak, made so that an answer seen once is worth nothing elsewhere:
 *
 * - A nonce is bound to the request it challenged: it is a timestamp signed with a per-process
 *   key together with the request's `binding` (the connection it came over and what it asks
 *   for: the Contacts a REGISTER registers, the call an INVITE makes). Sent with another request
 *   (from another WebSocket, for another Contact) it is not ours, and gets a fresh challenge.
 *   So the challenge itself stores nothing: a flood of requests without credentials grows no
 *   table.
 * - The answer's `uri` must be the request's Request-URI (RFC 2617 §3.2.2.5).
 * - Each nonce count (`nc`) is accepted once and must grow (a client may reuse a nonce with a
 *   higher count). Counts are remembered only for answers that were right, at most
 *   `maxTrackedNonces` of them and for the nonce's lifetime; when the table is full the oldest
 *   entry goes and every nonce made before it counts as stale.
 * - A right answer to an old nonce or an already used count gets `stale=true`: the client
 *   answers a fresh challenge without asking for the password again (sip.js does so at once;
 *   its refreshes resend the last Authorization, so they take this path).
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

/** What a challenge or an answer belongs to. */
export interface DigestRequest {
  method: string;
  /** The Request-URI as the request line wrote it. */
  requestUri: string;
  /** Text naming the connection and what the request asks for; its nonce is only good for the same. */
  binding: string;
}

export type DigestCheck =
  | { ok: true; username: string }
  | {
      ok: false;
      reason: "missing" | "malformed" | "realm" | "nonce" | "uri" | "stale" | "password";
      username?: string;
    };

export interface DigestOptions {
  nonceLifetimeMs?: number;
  maxTrackedNonces?: number;
  now?: () => number;
}

const md5 = (text: string) => createHash("md5").update(text).digest("hex");

export class DigestAuthenticator {
  private readonly key = randomBytes(32);
  private readonly nonceLifetimeMs: number;
  private readonly now: () => number;
  private readonly counts: NonceCounts;

  constructor(
    readonly realm: string,
    options: DigestOptions = {},
  ) {
    this.nonceLifetimeMs = options.nonceLifetimeMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.counts = new NonceCounts(options.maxTrackedNonces ?? 10_000, this.nonceLifetimeMs);
  }

  /** How many nonces have their counts remembered. */
  get trackedNonces(): number {
    return this.counts.size;
  }

  /** The value of a WWW-Authenticate / Proxy-Authenticate header with a nonce for `request`. */
  challenge(request: DigestRequest, stale = false): string {
    return `Digest realm="${this.realm}", nonce="${this.makeNonce(request)}", qop="auth", algorithm=MD5${stale ? ", stale=true" : ""}`;
  }

  /**
   * Checks an Authorization / Proxy-Authorization header value for `request` against every
   * password `passwordsOf(username)` gives (the extension's own and its live tokens).
   */
  check(header: string | undefined, request: DigestRequest, passwordsOf: (username: string) => string[]): DigestCheck {
    if (!header) return { ok: false, reason: "missing" };
    const c = parseDigest(header);
    if (!c) return { ok: false, reason: "malformed" };
    const username = c.username;
    if (c.realm !== this.realm) return { ok: false, reason: "realm", username };
    if (c.algorithm && c.algorithm.toUpperCase() !== "MD5") return { ok: false, reason: "malformed", username };
    if (c.qop && (c.qop !== "auth" || !c.cnonce || !/^[0-9a-fA-F]{8}$/.test(c.nc ?? "")))
      return { ok: false, reason: "malformed", username };
    const made = this.nonceMadeAt(c.nonce, request);
    if (made === undefined) return { ok: false, reason: "nonce", username };
    if (!sameUri(c.uri, request.requestUri)) return { ok: false, reason: "uri", username };
    const ha2 = md5(`${request.method}:${c.uri}`);
    const matches = passwordsOf(username).some((password) => {
      const ha1 = md5(`${username}:${c.realm}:${password}`);
      const expected = c.qop
        ? md5(`${ha1}:${c.nonce}:${c.nc}:${c.cnonce}:${c.qop}:${ha2}`)
        : md5(`${ha1}:${c.nonce}:${ha2}`);
      return safeEqual(expected, c.response.toLowerCase());
    });
    if (!matches) return { ok: false, reason: "password", username };
    const now = this.now();
    // A right answer to an old nonce, or a count used before: ask again with a fresh nonce.
    if (now - made > this.nonceLifetimeMs) return { ok: false, reason: "stale", username };
    // Without qop there is no count: such a nonce is good once.
    const count = c.qop ? parseInt(c.nc!, 16) : 1;
    if (!this.counts.use(c.nonce, made, count, now)) return { ok: false, reason: "stale", username };
    return { ok: true, username };
  }

  private makeNonce(request: DigestRequest): string {
    const stamp = this.now().toString(36);
    const salt = randomBytes(6).toString("hex");
    return `${stamp}.${salt}.${this.sign(`${stamp}.${salt}`, request)}`;
  }

  /** When the nonce was made for this request, or undefined when it is not one of ours for it. */
  private nonceMadeAt(nonce: string, request: DigestRequest): number | undefined {
    const [stamp, salt, mac, extra] = nonce.split(".");
    if (!stamp || !salt || !mac || extra !== undefined || !safeEqual(this.sign(`${stamp}.${salt}`, request), mac))
      return undefined;
    const made = parseInt(stamp, 36);
    return Number.isFinite(made) ? made : undefined;
  }

  private sign(text: string, request: DigestRequest): string {
    return createHmac("sha256", this.key)
      .update(`${text}\n${request.method}\n${request.binding}`)
      .digest("base64url")
      .slice(0, 22);
  }
}

/**
 * The highest count used with each nonce that was answered right, for the nonce's lifetime, at
 * most `max` nonces. A nonce pushed out of a full table cannot be replayed: every nonce made no
 * later than it is refused from then on (`floor`), and its client answers a fresh one.
 */
export class NonceCounts {
  private readonly used = new Map<string, { made: number; count: number }>();
  private floor = -Infinity;

  constructor(
    private readonly max: number,
    private readonly lifetimeMs: number,
  ) {}

  get size(): number {
    return this.used.size;
  }

  /** Records the use of `count` with `nonce`; false when that count (or a higher one) was used. */
  use(nonce: string, made: number, count: number, now: number): boolean {
    const entry = this.used.get(nonce);
    if (entry) {
      if (count <= entry.count) return false;
      entry.count = count;
      return true;
    }
    if (made <= this.floor || count < 1) return false;
    if (this.used.size >= this.max) this.makeRoom(now);
    this.used.set(nonce, { made, count });
    return true;
  }

  private makeRoom(now: number): void {
    for (const [nonce, entry] of this.used) if (now - entry.made > this.lifetimeMs) this.used.delete(nonce);
    for (const [nonce, entry] of this.used) {
      if (this.used.size < this.max) break;
      this.used.delete(nonce);
      this.floor = Math.max(this.floor, entry.made);
    }
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

/** The digest `uri` names the Request-URI: the same text, or the same SIP URI once parsed. */
function sameUri(digestUri: string, requestUri: string): boolean {
  if (digestUri === requestUri) return true;
  const a = UserAgent.makeURI(digestUri);
  const b = UserAgent.makeURI(requestUri);
  return a !== undefined && b !== undefined && a.toString() === b.toString();
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
