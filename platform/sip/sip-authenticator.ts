import type { Core } from "sip.js";
import type { AuthService } from "../auth/sessions";
import type { ExtensionRow, UserStore } from "../store/users";
import type { Clock } from "../clock";
import { AuthThrottle } from "./auth-throttle";
import { DigestAuthenticator, parseDigest, type DigestRequest } from "./digest";
import { extensionKey, type HubConnection } from "./hub";
import type { Log } from "../log";
import { requestUriText } from "./wire";

/** What to answer a request whose credentials were checked. */
export type SipAuthOutcome =
  | { ok: true; extension: ExtensionRow }
  | { ok: false; statusCode: number; reasonPhrase?: string; extraHeaders?: string[] };

export interface SipAuthRequest {
  message: Core.IncomingRequestMessage;
  /** The extension the request speaks for: the To user of a REGISTER, the From user of an INVITE. */
  extension: string;
  domain: string;
  /** The connection it came over (undefined if it is already gone). */
  conn: HubConnection | undefined;
  /** What else its nonce is bound to (the Contacts a REGISTER registers, the Call-ID of an INVITE). */
  binding: string;
}

/**
 * Digest authentication of the requests phones make (REGISTER with 401/Authorization, INVITE with
 * 407/Proxy-Authorization), with the two things one answer alone cannot tell: whether it is a
 * guess among many (AuthThrottle), and whether the connection already proved this extension's
 * password (then it is never held back, so phones registered before an attack go on working).
 * Credentials: the extension's own password or any of its live tokens (POST /api/users/extn_token).
 */
export class SipAuthenticator {
  private readonly authenticators = new Map<string, DigestAuthenticator>();
  private readonly throttle: AuthThrottle;
  private readonly proven = new WeakMap<HubConnection, Set<string>>();

  constructor(
    private readonly users: UserStore,
    private readonly auth: AuthService,
    private readonly log: Log,
    private readonly now: Clock,
  ) {
    this.throttle = new AuthThrottle({ now });
  }

  /**
   * Checks a request's credentials and hands the outcome to `then`: at once, or later when its
   * source or extension has been guessing (so requests that are not held back keep their order).
   */
  check(r: SipAuthRequest, then: (outcome: SipAuthOutcome) => void): void {
    const { message } = r;
    const register = message.method === "REGISTER";
    const authenticator = this.authenticator(r.domain);
    const request: DigestRequest = {
      method: message.method,
      requestUri: requestUriText(message.data) ?? "",
      binding: `${r.conn?.id ?? "-"}\n${r.binding}`,
    };
    const challenge = (stale: boolean): SipAuthOutcome => ({
      ok: false,
      statusCode: register ? 401 : 407,
      extraHeaders: [
        `${register ? "WWW-Authenticate" : "Proxy-Authenticate"}: ${authenticator.challenge(request, stale)}`,
      ],
    });
    const header = message.getHeader(register ? "authorization" : "proxy-authorization");
    if (!header) {
      then(challenge(false));
      return;
    }

    const extension = this.users.extension(r.extension, r.domain);
    const account =
      extension && parseDigest(header)?.username === r.extension ? extensionKey(extension.extn, r.domain) : undefined;
    const source = r.conn?.remoteAddress ?? "";
    const verify = (release: () => void): SipAuthOutcome => {
      const check = authenticator.check(header, request, (username) =>
        username === r.extension ? this.passwordsOf(extension) : [],
      );
      release();
      if (check.ok) {
        // Passwords only match an existing extension's: `account` and `extension` are set.
        if (r.conn) {
          let proven = this.proven.get(r.conn);
          if (!proven) this.proven.set(r.conn, (proven = new Set()));
          proven.add(account!);
        }
        return { ok: true, extension: extension! };
      }
      switch (check.reason) {
        case "missing":
        case "nonce":
          return challenge(false);
        case "stale":
          return challenge(true);
        case "uri":
          return { ok: false, statusCode: 400, reasonPhrase: "Digest URI Is Not The Request-URI" };
        default:
          if (check.reason === "password") this.throttle.failed(source, account);
          this.log.info(`${message.method} for ${r.extension}@${r.domain} from ${source} refused: ${check.reason}`);
          return { ok: false, statusCode: 403, reasonPhrase: "Forbidden" };
      }
    };

    if (account !== undefined && r.conn !== undefined && this.proven.get(r.conn)?.has(account)) {
      then(verify(() => undefined));
      return;
    }
    const admission = this.throttle.admit(source, account);
    if ("retryAfterMs" in admission) {
      this.log.info(
        `${message.method} for ${r.extension}@${r.domain} from ${source} not checked: too many wrong passwords`,
      );
      then({
        ok: false,
        statusCode: 503,
        reasonPhrase: "Too Many Failed Attempts",
        extraHeaders: [`Retry-After: ${Math.max(1, Math.ceil(admission.retryAfterMs / 1000))}`],
      });
      return;
    }
    if (admission.waitMs === 0) {
      then(verify(admission.release));
      return;
    }
    setTimeout(() => {
      try {
        then(verify(admission.release));
      } catch (error) {
        this.log.error(
          { err: error },
          `${message.method} for ${r.extension}@${r.domain} failed after it was held back`,
        );
      }
    }, admission.waitMs).unref();
  }

  /** How much is remembered: nonce counts of right answers, sources and extensions that guessed wrong. */
  stats(): { nonces: number; sources: number; extensions: number } {
    const nonces = [...this.authenticators.values()].reduce((n, a) => n + a.trackedNonces, 0);
    const { sources, accounts } = this.throttle.size;
    return { nonces, sources, extensions: accounts };
  }

  /** Passwords the digest of `extension` may be computed with: its own and its live tokens. */
  private passwordsOf(extension: ExtensionRow | undefined): string[] {
    if (!extension) return [];
    return [extension.password, ...this.auth.extensionTokens(extension.id)];
  }

  private authenticator(domain: string): DigestAuthenticator {
    let a = this.authenticators.get(domain);
    if (!a) this.authenticators.set(domain, (a = new DigestAuthenticator(domain, { now: this.now })));
    return a;
  }
}
