import { randomBytes, randomUUID } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { systemClock, type Clock } from "../clock";
import type { Db } from "../store/db";
import type { ExtensionRow, UserRow } from "../store/users";
import { UserStore } from "../store/users";
import { verifyPassword } from "./passwords";
import type { CaptchaService } from "./captcha";
import { AuthError } from "./auth-error";
import { LoginAttempts, type AttemptRules } from "./login-attempts";

export interface AuthOptions extends AttemptRules {
  /** Lifetime of ordinary tokens, seconds (the spec's session_expires; default 24 h). */
  sessionExpires: number;
  /** Lifetime of JWT refresh tokens, seconds; longer than sessionExpires. */
  refreshExpires: number;
}

/**
 * What a login no user has is checked against, so that it costs the same password check as one
 * that exists (a well-formed scrypt hash no password gives).
 */
const NO_PASSWORD = `scrypt$${"0".repeat(32)}$${"0".repeat(64)}`;

/** Who is making a request, and with what. */
export interface Principal {
  user: UserRow;
  token: string;
  kind: "token" | "jwt" | "dev_key";
}

export type Carrier = "header" | "bearer" | "cookie";

interface OpaqueToken {
  userId: number;
  expiresAt: number;
  /** Set for extension tokens: the extension they let log in. */
  extensionId?: number;
}

interface JwtClaims {
  jti: string;
  sub: string;
  exp: number;
  /** The session (sign-in) the token grew from. */
  sid?: string;
  /** The user's credential generation when the token was made (see endSessionsOf). */
  gen?: number;
  /** Set for extension tokens. */
  extn_id?: number;
  /** A refresh token used already, or an access token signed out. */
  spent: boolean;
}

export interface LoginRequest {
  login?: string;
  password?: string;
  dev_key?: string;
  jwt?: boolean | string;
  captcha_str?: string;
  refresh_token?: string;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Sessions and tokens. Ordinary tokens and JWTs live only as long as the process (the spec:
 * "ordinary tokens are temporary", a restart expires them); developer keys are rows in the
 * database and survive restarts.
 */
export class AuthService {
  private readonly users: UserStore;
  private readonly tokens = new Map<string, OpaqueToken>();
  /** JWT ids that were logged out or (refresh tokens) already used, with their expiry. */
  private readonly spentJwtIds = new Map<string, number>();
  /**
   * Signed-out JWT sessions, with the time after which none of their tokens can be valid. A JWT
   * session is the chain of access and refresh tokens that grew from one sign-in; signing out
   * ends all of it, or a refresh token kept by someone else would carry the session on.
   */
  private readonly endedSessions = new Map<string, number>();
  /** Extension tokens issued as JWTs, kept so that SIP digest can try them as passwords. */
  private readonly extensionJwts = new Map<string, { userId: number; extensionId: number; expiresAt: number }>();
  /**
   * Per user, how many times their credentials changed in this process: a JWT carries the count of
   * its making and is refused once it is behind (the process's JWTs end with it anyway).
   */
  private readonly generations = new Map<number, number>();
  private readonly sessionsEnded = new Set<(userId: number) => void>();
  private readonly secret = randomBytes(32);
  /** Per login, the end of the password sign-ins under way (see oneAtATime). */
  private readonly passwordLogins = new Map<string, Promise<void>>();
  private readonly attempts: LoginAttempts;

  constructor(
    private readonly db: Db,
    private readonly options: AuthOptions,
    captchas: CaptchaService,
    private readonly now: Clock = systemClock,
  ) {
    this.users = new UserStore(db);
    this.attempts = new LoginAttempts(this.users, options, captchas, now);
  }

  /** POST /api/sessions: password, developer key or refresh-token login. */
  async login(req: LoginRequest) {
    const wantsJwt = req.jwt === true || req.jwt === "true";
    if (req.refresh_token !== undefined) return this.refresh(req.refresh_token);
    if (req.dev_key !== undefined && req.password === undefined)
      return this.loginWithDevKey(req.dev_key, req.login, wantsJwt);
    if (req.login === undefined) throw new AuthError("incomplete", "missing required field 'login'");
    if (req.password === undefined)
      throw new AuthError("incomplete", "missing required field 'password' (or 'dev_key')");
    const { login, password, captcha_str } = req;
    return this.oneAtATime(login, () => this.passwordLogin(login, password, captcha_str, wantsJwt));
  }

  /**
   * Runs the password sign-ins of one login one after another. A password is checked off the
   * event loop (scrypt on the thread pool); side by side, guesses would all read the same count
   * of failures and get past the captcha and the lock together.
   */
  private oneAtATime<T>(login: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.passwordLogins.get(login) ?? Promise.resolve()).then(work);
    const done = turn.then(
      () => undefined,
      () => undefined,
    );
    this.passwordLogins.set(login, done);
    void done.then(() => {
      if (this.passwordLogins.get(login) === done) this.passwordLogins.delete(login);
    });
    return turn;
  }

  /**
   * The same steps and the same password check for every login, one that no user has included,
   * so that neither the answers nor their time tell which logins exist. Only the right password
   * learns that its user is disabled.
   */
  private async passwordLogin(login: string, password: string, captcha: string | undefined, wantsJwt: boolean) {
    const user = this.users.byLogin(login);
    this.attempts.admit(login, user, captcha);
    const right = await verifyPassword(password, user?.password_hash ?? NO_PASSWORD);
    if (!user || !right) this.attempts.failed(login, user);
    if (user.disabled) throw new AuthError("disabled", "User is disabled");
    this.attempts.succeeded(user);
    return this.issueSession(user, wantsJwt);
  }

  private async loginWithDevKey(key: string, login: string | undefined, wantsJwt: boolean) {
    const row = this.db.prepare("SELECT user_id FROM dev_keys WHERE k = ? AND enabled = 1").get(key) as
      { user_id: number } | undefined;
    const user = row ? this.users.byId(row.user_id) : undefined;
    if (!user || (login !== undefined && login !== user.login))
      throw new AuthError("wrong-credentials", "Wrong username or password");
    if (user.disabled) throw new AuthError("disabled", "User is disabled");
    return this.issueSession(user, wantsJwt);
  }

  private async refresh(refreshToken: string) {
    const claims = await this.verifyJwt(refreshToken, "refresh");
    // A refresh token is good once: presented again, it was copied, and nobody can tell whether by
    // the owner or a thief. The whole session ends; the owner signs in again.
    if (claims?.spent && claims.sid) this.endSession(claims.sid);
    if (!claims || claims.spent) throw new AuthError("invalid-refresh-token", "Invalid or expired refresh token");
    const user = this.users.byId(Number(claims.sub));
    if (!user || user.disabled) throw new AuthError("invalid-refresh-token", "Invalid or expired refresh token");
    // Each refresh token is good for one refresh: the answer carries the next one.
    this.spentJwtIds.set(claims.jti, claims.exp * 1000);
    return this.issueSession(user, true, claims.sid);
  }

  private async issueSession(user: UserRow, wantsJwt: boolean, sid: string = randomUUID()) {
    this.sweep();
    const nowMs = this.now();
    const expiresAt = nowMs + this.options.sessionExpires * 1000;
    const base = {
      code: 200,
      expires: Math.floor(expiresAt / 1000),
      user_id: user.id,
      extn: user.extn,
      currentAuthority: authorityOf(user),
      system_roles: { senior_roles_str: user.is_admin ? "admin" : "", roles_str: user.roles },
    };
    if (!wantsJwt) {
      const token = randomUUID();
      this.tokens.set(token, { userId: user.id, expiresAt });
      return { ...base, token };
    }
    const gen = this.generationOf(user.id);
    const token = await this.signJwt(user.id, "access", expiresAt, { sid, gen });
    const refresh_token = await this.signJwt(user.id, "refresh", nowMs + this.options.refreshExpires * 1000, {
      sid,
      gen,
    });
    return { ...base, token, refresh_token };
  }

  private signJwt(userId: number, typ: "access" | "refresh" | "extension", expiresAt: number, extra = {}) {
    return new SignJWT({ typ, ...extra })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(userId))
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(this.now() / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(this.secret);
  }

  /** The claims of a JWT of this type that is signed, unexpired and of a live session and credential generation. */
  private async verifyJwt(token: string, typ: string): Promise<JwtClaims | undefined> {
    if (!JWT_SHAPE.test(token)) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ["HS256"],
        currentDate: new Date(this.now()),
      });
      if (payload.typ !== typ || !payload.jti || !payload.sub || !payload.exp) return undefined;
      if (typeof payload.sid === "string" && this.endedSessions.has(payload.sid)) return undefined;
      if ((payload.gen ?? 0) !== this.generationOf(Number(payload.sub))) return undefined;
      return { ...(payload as Omit<JwtClaims, "spent">), spent: this.spentJwtIds.has(payload.jti) };
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return undefined;
      throw e;
    }
  }

  /** Resolves the token of a REST request; undefined for a missing, wrong or expired token. */
  async authenticate(token: string, carrier: Carrier): Promise<Principal | undefined> {
    const now = this.now();
    const opaque = this.tokens.get(token);
    if (opaque) {
      if (opaque.expiresAt <= now) {
        this.tokens.delete(token);
        return undefined;
      }
      if (opaque.extensionId !== undefined) return undefined; // extension tokens are not REST credentials
      const user = this.activeUser(opaque.userId);
      if (!user) return undefined;
      // The web cookie's window slides: it expires only after session_expires without requests.
      if (carrier === "cookie") opaque.expiresAt = now + this.options.sessionExpires * 1000;
      return { user, token, kind: "token" };
    }
    const claims = await this.verifyJwt(token, "access");
    if (claims && !claims.spent) {
      const user = this.activeUser(Number(claims.sub));
      return user ? { user, token, kind: "jwt" } : undefined;
    }
    const key = this.db.prepare("SELECT user_id FROM dev_keys WHERE k = ? AND enabled = 1").get(token) as
      { user_id: number } | undefined;
    if (key) {
      const user = this.activeUser(key.user_id);
      return user ? { user, token, kind: "dev_key" } : undefined;
    }
    return undefined;
  }

  private activeUser(id: number): UserRow | undefined {
    const user = this.users.byId(id);
    return user && !user.disabled ? user : undefined;
  }

  /** DELETE /api/sessions. Returns false when the token names no active session. */
  async logout(token: string): Promise<boolean> {
    const opaque = this.tokens.get(token);
    if (opaque && opaque.extensionId === undefined) {
      this.tokens.delete(token);
      return opaque.expiresAt > this.now();
    }
    const claims = await this.verifyJwt(token, "access");
    if (!claims || claims.spent) return false;
    this.spentJwtIds.set(claims.jti, claims.exp * 1000);
    if (claims.sid) this.endSession(claims.sid);
    return true;
  }

  private endSession(sid: string): void {
    this.endedSessions.set(sid, this.now() + this.options.refreshExpires * 1000);
    this.sweep();
  }

  /**
   * Ends every session of a user, because their credentials changed (a new password, disabled,
   * deleted): ordinary and extension tokens are dropped, JWTs made before are refused from now on,
   * and listeners (the event channel) close what those sessions hold open. Developer keys are
   * credentials of their own, managed apart.
   */
  endSessionsOf(userId: number): void {
    this.generations.set(userId, this.generationOf(userId) + 1);
    for (const [token, t] of this.tokens) if (t.userId === userId) this.tokens.delete(token);
    for (const [token, t] of this.extensionJwts) if (t.userId === userId) this.extensionJwts.delete(token);
    for (const listener of this.sessionsEnded) listener(userId);
  }

  /** Called with the user whose sessions endSessionsOf ended. */
  onSessionsEnded(listener: (userId: number) => void): void {
    this.sessionsEnded.add(listener);
  }

  private generationOf(userId: number): number {
    return this.generations.get(userId) ?? 0;
  }

  /** POST /api/users/extn_token: a token that logs the extension in (SIP digest password, /ws). */
  async issueExtensionToken(userId: number, extension: ExtensionRow, wantsJwt: boolean) {
    const expiresAt = this.now() + this.options.sessionExpires * 1000;
    let token: string;
    if (wantsJwt) {
      token = await this.signJwt(userId, "extension", expiresAt, {
        extn_id: extension.id,
        gen: this.generationOf(userId),
      });
      this.extensionJwts.set(token, { userId, extensionId: extension.id, expiresAt });
    } else {
      token = randomUUID();
      this.tokens.set(token, { userId, expiresAt, extensionId: extension.id });
    }
    this.sweep();
    return { extn_id: String(extension.id), token, domain: extension.domain };
  }

  /** The live extension tokens of an extension: the passwords SIP digest accepts besides its own. */
  extensionTokens(extensionId: number): string[] {
    const now = this.now();
    const out: string[] = [];
    for (const [token, t] of this.tokens) if (t.extensionId === extensionId && t.expiresAt > now) out.push(token);
    for (const [token, t] of this.extensionJwts)
      if (t.extensionId === extensionId && t.expiresAt > now) out.push(token);
    return out;
  }

  /**
   * Resolves a user or extension token presented on the /ws JSON-RPC channel (loginParams.xui_sessid).
   */
  async resolveAnyToken(token: string): Promise<{ user: UserRow; extensionId?: number } | undefined> {
    const now = this.now();
    const opaque = this.tokens.get(token);
    if (opaque && opaque.expiresAt > now) {
      const user = this.activeUser(opaque.userId);
      return user
        ? { user, ...(opaque.extensionId !== undefined ? { extensionId: opaque.extensionId } : {}) }
        : undefined;
    }
    const ext = this.extensionJwts.get(token);
    if (ext && ext.expiresAt > now) {
      const claims = await this.verifyJwt(token, "extension");
      const user = claims && !claims.spent ? this.activeUser(Number(claims.sub)) : undefined;
      return user ? { user, extensionId: ext.extensionId } : undefined;
    }
    const principal = await this.authenticate(token, "header");
    return principal ? { user: principal.user } : undefined;
  }

  /** Drops expired tokens and spent JWT ids so that the maps do not grow without bound. */
  private sweep() {
    const now = this.now();
    for (const [k, t] of this.tokens) if (t.expiresAt <= now) this.tokens.delete(k);
    for (const [k, exp] of this.spentJwtIds) if (exp <= now) this.spentJwtIds.delete(k);
    for (const [k, exp] of this.endedSessions) if (exp <= now) this.endedSessions.delete(k);
    for (const [k, t] of this.extensionJwts) if (t.expiresAt <= now) this.extensionJwts.delete(k);
  }
}

export function authorityOf(user: UserRow): string {
  if (user.is_admin) return "admin";
  const roles = user.roles.split(",").map((r) => r.trim());
  if (roles.includes("supervisor")) return "supervisor";
  if (user.type === "AGENT" || roles.includes("agent")) return "agent";
  return "user";
}
