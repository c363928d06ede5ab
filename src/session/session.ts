import { createStore, type StoreApi } from "zustand/vanilla";
// From the REST client's files, not its index: the sign-in screen's code needs only these.
import { PlatformClient, type Credentials } from "../api/client";
import { PlatformError } from "../api/errors";
import {
  captchaPictureUrl,
  credentialsOf,
  getCaptcha,
  refreshSession,
  signIn as requestSession,
  signOut as endSession,
  type Session,
} from "../api/sessions";
import { getCurrentUser, type User } from "../api/users";
import { checkPlatformAddress, displayAddress } from "./platform-address";
import type { SettingsStore } from "./settings";
import { SignInError, captchaWanted, signInErrorOf, type SignInErrorInfo } from "./sign-in-error";
import { readJson, type KeyValueStorage } from "./storage";

/**
 * - `restoring`: a session kept in this tab is being checked after a reload;
 * - `session-expired`: the platform ended the session; the sign-in screen says so.
 */
export type SessionStatus = "restoring" | "signed-out" | "signing-in" | "signed-in" | "signing-out" | "session-expired";

/** Who is signed in, from GET /api/users/info. */
export interface SessionUser {
  id: string;
  login: string;
  name: string;
  /** The user's default extension; "" when they have none. */
  extension: string;
  domain: string;
  /** "admin", "supervisor", "agent", "user", or whatever the platform calls it: a label to show. */
  role: string;
  /** The user's `is_admin` (GET /api/users/info). */
  isAdmin: boolean;
  /**
   * The roles of the sign-in's `system_roles` (`roles_str` and `senior_roles_str`, split at
   * commas); empty when the session came from a token handed over (no sign-in answer to read).
   */
  systemRoles: readonly string[];
}

/** The picture the platform asks about; `pictureUrl` is null when it could not be fetched. */
export interface CaptchaChallenge {
  login: string;
  pictureUrl: string | null;
}

export interface SignInInput {
  login: string;
  password: string;
  /** A developer key instead of the password (the spec's `dev_key`: it never expires until deleted). */
  devKey?: string;
  /** As typed; "" = the page's own origin. */
  platformUrl: string;
  captcha?: string;
}

export interface SessionState {
  status: SessionStatus;
  user: SessionUser | null;
  /** The REST client of the signed-in session (null otherwise): later layers build on it. */
  client: PlatformClient | null;
  /** Platform address of the current or last session ("" = the page's own origin). */
  platformUrl: string;
  /** The login name to offer on the sign-in screen. */
  login: string;
  error: SignInErrorInfo | null;
  captcha: CaptchaChallenge | null;

  signIn(input: SignInInput): Promise<void>;
  /**
   * Signs in with a token (or a developer key, which the platform takes as a token) given by a
   * page that embeds the app, at the platform address the app uses: the page cannot choose it.
   * Only when nobody is signed in; the token cannot be renewed, so the session ends with it.
   * A refusal is not shown on the sign-in screen (the agent typed nothing): it rejects with the
   * `SignInError`, for the page to hear.
   */
  signInWithToken(token: string): Promise<void>;
  /** Ends the session on the platform (best effort) and forgets it here. */
  signOut(): Promise<void>;
  /** Picks up the session this tab had before a reload. */
  restore(): Promise<void>;
  /** Asks for another captcha picture. */
  newCaptcha(): Promise<void>;
  /**
   * Work to do with the session before an explicit sign-out ends it (the call-center layer leaves
   * its queues). Steps run in order, within the sign-out's time limit. Returns the remover.
   */
  addSignOutStep(step: (client: PlatformClient) => Promise<void>): () => void;
}

export type SessionStore = StoreApi<SessionState>;

export interface SessionDeps {
  settings: SettingsStore;
  /** Per-tab storage (sessionStorage): keeps the session across a reload, and only in this tab. */
  tabStorage: KeyValueStorage;
  /** Storage of this browser (localStorage): remembers the login name. */
  deviceStorage: KeyValueStorage;
  fetch?: typeof fetch;
  /** The page's origin, shown as the address when the platform address is "". */
  pageOrigin?: string;
  /** How long sign-out waits for the platform before forgetting the session anyway. */
  signOutWaitMs?: number;
}

export const SESSION_KEY = "agentbar.session";
export const LOGIN_KEY = "agentbar.login";
/**
 * Set in the tab when the platform ends the session, so that "your session ended" is still said
 * after a reload (the page may notice the end, say by a refused request, just before one).
 */
export const SESSION_ENDED_KEY = "agentbar.session-ended";
/**
 * Failed sign-ins per login since its last success, in this browser: a platform that refuses
 * with the spec's `{code, text}` alone does not say when the captcha is due.
 */
export const SIGN_IN_FAILURES_KEY = "agentbar.sign-in-failures";

/** What survives a reload: never the password. */
interface StoredSession extends Credentials {
  platformUrl: string;
  role: string;
  systemRoles: string[];
}

function readStoredSession(storage: KeyValueStorage): StoredSession | undefined {
  const raw = readJson(storage, SESSION_KEY) as Partial<StoredSession> | undefined;
  if (!raw || typeof raw.token !== "string" || !raw.token || typeof raw.expires !== "number") return undefined;
  return {
    platformUrl: typeof raw.platformUrl === "string" ? raw.platformUrl : "",
    token: raw.token,
    expires: raw.expires,
    ...(typeof raw.refreshToken === "string" ? { refreshToken: raw.refreshToken } : {}),
    role: typeof raw.role === "string" ? raw.role : "",
    systemRoles: Array.isArray(raw.systemRoles)
      ? raw.systemRoles.filter((r): r is string => typeof r === "string")
      : [],
  };
}

/** The roles `system_roles` lists: `roles_str` and `senior_roles_str`, each a comma-separated list. */
function systemRolesOf(session: Session): string[] {
  const { roles_str, senior_roles_str } = session.system_roles;
  return [...new Set(`${roles_str},${senior_roles_str}`.split(/[,;\s]+/).filter(Boolean))];
}

function roleOf(info: User, fromSession: string): string {
  return info.currentAuthority || fromSession || (info.is_admin ? "admin" : info.type === "AGENT" ? "agent" : "user");
}

export function createSessionStore(deps: SessionDeps): SessionStore {
  const pageOrigin = deps.pageOrigin ?? (typeof location !== "undefined" ? location.origin : "");
  const stored = readStoredSession(deps.tabStorage);
  /** The client whose session is (being) established; anything else reporting back is stale. */
  let current: PlatformClient | null = null;
  let role = stored?.role ?? "";
  let systemRoles: string[] = stored?.systemRoles ?? [];
  const signOutSteps = new Set<(client: PlatformClient) => Promise<void>>();

  // The store first: every step below reads and writes it, and its actions are those steps, which
  // run only once it exists (the store's initial state calls none of them).
  const store = createStore<SessionState>()((set, get) => ({
    status: stored ? "restoring" : deps.tabStorage.getItem(SESSION_ENDED_KEY) ? "session-expired" : "signed-out",
    user: null,
    client: null,
    platformUrl: stored?.platformUrl ?? deps.settings.getState().platformUrl,
    login: deps.deviceStorage.getItem(LOGIN_KEY) ?? "",
    error: null,
    captcha: null,

    async signIn(input) {
      const { status } = get();
      if (status !== "signed-out" && status !== "session-expired") return;
      const checked = checkPlatformAddress(input.platformUrl);
      const platformUrl = checked.ok ? checked.url : input.platformUrl.trim();
      const login = input.login.trim();
      const captcha = input.captcha?.trim() ?? "";
      await establish(platformUrl, login, captcha, async (client) => {
        const session = await requestSession(client, {
          login,
          ...(input.devKey ? { devKey: input.devKey } : { password: input.password }),
          jwt: true,
          ...(captcha ? { captcha } : {}),
        });
        role = session.currentAuthority;
        systemRoles = systemRolesOf(session);
        client.setCredentials(credentialsOf(session));
      });
    },

    async signInWithToken(token) {
      const { status, platformUrl, login } = get();
      if (status !== "signed-out" && status !== "session-expired") return;
      await establish(
        platformUrl,
        login,
        "",
        async (client) => {
          // No sign-in answer: the platform's system_roles are not known for this session.
          systemRoles = [];
          client.setCredentials({ token, expires: tokenExpiry(token) });
        },
        true,
      );
    },

    async signOut() {
      const client = current;
      if (!client || get().status !== "signed-in") return;
      // Cleared first so that a 403 to the sign-out itself is not taken for an expired session.
      current = null;
      set({ status: "signing-out" });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const steps = [...signOutSteps];
      await Promise.race([
        (async () => {
          for (const step of steps) await step(client).catch((e: unknown) => logFailure("sign-out", e));
          await endSession(client).catch((e: unknown) => logFailure("sign-out", e));
        })(),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.signOutWaitMs ?? 5000))),
      ]);
      clearTimeout(timer);
      forget(client);
      set({ status: "signed-out", user: null, client: null, error: null, captcha: null });
    },

    async restore() {
      const record = readStoredSession(deps.tabStorage);
      if (!record) {
        if (get().status === "restoring") set({ status: "signed-out" });
        return;
      }
      deps.tabStorage.removeItem(SESSION_ENDED_KEY);
      if (get().status !== "restoring" && get().status !== "signed-out") return;
      const client = makeClient(record.platformUrl, true);
      current = client;
      role = record.role;
      systemRoles = record.systemRoles;
      set({ status: "restoring", platformUrl: record.platformUrl });
      const { platformUrl: _, role: __, systemRoles: ___, ...credentials } = record;
      client.setCredentials(credentials);
      try {
        const info = await getCurrentUser(client);
        if (current !== client) return;
        signedIn(client, record.platformUrl, info);
      } catch (e) {
        if (current !== client) return;
        logFailure("restoring the session", e);
        if (e instanceof PlatformError && e.isAuthError) return expire(client);
        // The platform may be back in a moment: the kept session stays for the next reload.
        client.dispose();
        current = null;
        set({
          status: "signed-out",
          error: signInErrorOf(e, { address: displayAddress(record.platformUrl, pageOrigin), sentCaptcha: false }),
        });
      }
    },

    addSignOutStep(step) {
      signOutSteps.add(step);
      return () => void signOutSteps.delete(step);
    },

    async newCaptcha() {
      const { captcha, platformUrl } = get();
      if (!captcha) return;
      const next = await loadCaptcha(platformUrl, captcha.login);
      if (get().captcha === captcha) set({ captcha: next });
    },
  }));

  const keep = (platformUrl: string, credentials: Credentials | null) => {
    if (credentials)
      deps.tabStorage.setItem(
        SESSION_KEY,
        JSON.stringify({ platformUrl, ...credentials, role, systemRoles } satisfies StoredSession),
      );
    else deps.tabStorage.removeItem(SESSION_KEY);
  };

  const forget = (client: PlatformClient) => {
    client.dispose();
    if (current === client) current = null;
    deps.tabStorage.removeItem(SESSION_KEY);
  };

  const expire = (client: PlatformClient) => {
    // A token refused while signing in with it is a failed sign-in (its catch says so), not an ended session.
    if (current !== client || store.getState().status === "signing-in") return;
    forget(client);
    deps.tabStorage.setItem(SESSION_ENDED_KEY, "1");
    store.setState({ status: "session-expired", user: null, client: null, error: null, captcha: null });
  };

  const makeClient = (platformUrl: string, withSession: boolean): PlatformClient => {
    const client: PlatformClient = new PlatformClient({
      baseUrl: platformUrl,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(withSession
        ? {
            // The client renews the JWT before it expires; each renewal is kept for the next reload.
            refresh: refreshSession,
            onCredentialsChange: (credentials) => {
              if (current === client) keep(platformUrl, credentials);
            },
            onSessionExpired: () => expire(client),
          }
        : {}),
    });
    return client;
  };

  const failures = {
    all: (): Record<string, number> => {
      const kept = readJson(deps.deviceStorage, SIGN_IN_FAILURES_KEY);
      return kept && typeof kept === "object" ? (kept as Record<string, number>) : {};
    },
    of: (login: string): number => {
      const n = failures.all()[login];
      return typeof n === "number" && Number.isFinite(n) ? n : 0;
    },
    set(login: string, n: number) {
      const { [login]: _, ...others } = failures.all();
      deps.deviceStorage.setItem(SIGN_IN_FAILURES_KEY, JSON.stringify(n > 0 ? { ...others, [login]: n } : others));
    },
  };

  const signedIn = (client: PlatformClient, platformUrl: string, info: User) => {
    role = roleOf(info, role);
    if (failures.of(info.login)) failures.set(info.login, 0);
    keep(platformUrl, client.session);
    deps.tabStorage.removeItem(SESSION_ENDED_KEY);
    deps.deviceStorage.setItem(LOGIN_KEY, info.login);
    deps.settings.getState().change({ platformUrl });
    const user: SessionUser = {
      id: info.id,
      login: info.login,
      name: info.name || info.login,
      extension: info.extn,
      domain: info.domain,
      role,
      isAdmin: info.is_admin === 1,
      systemRoles,
    };
    store.setState({ status: "signed-in", user, client, platformUrl, login: info.login, error: null, captcha: null });
  };

  const loadCaptcha = async (platformUrl: string, login: string): Promise<CaptchaChallenge> => {
    const client = makeClient(platformUrl, false);
    try {
      return { login, pictureUrl: captchaPictureUrl(client, await getCaptcha(client, login)) };
    } catch (e) {
      console.warn("agentbar: could not fetch a captcha", e);
      return { login, pictureUrl: null };
    }
  };

  /**
   * Signs in: `authenticate` gives the client its credentials, then the user is read. A failure is
   * shown on the sign-in screen, or (`quiet`) only thrown.
   */
  const establish = async (
    platformUrl: string,
    login: string,
    captcha: string,
    authenticate: (client: PlatformClient) => Promise<void>,
    quiet = false,
  ) => {
    store.setState({ status: "signing-in", platformUrl, login });
    const client = makeClient(platformUrl, true);
    current = client;
    try {
      await authenticate(client);
      const info = await getCurrentUser(client);
      if (current !== client) return;
      signedIn(client, platformUrl, info);
    } catch (e) {
      if (current !== client) return;
      forget(client);
      const errorContext = {
        address: displayAddress(platformUrl, pageOrigin),
        sentCaptcha: Boolean(captcha),
        failuresBefore: failures.of(login),
      };
      const error = signInErrorOf(e, errorContext);
      if (error.kind === "wrong-credentials" || error.kind === "wrong-credentials-or-captcha")
        failures.set(login, errorContext.failuresBefore + 1);
      logFailure("sign-in", e);
      if (quiet) {
        store.setState({ status: "signed-out" });
        throw new SignInError(error);
      }
      // The platform checks each captcha once, so every refusal that wants one needs a new picture.
      const next =
        captchaWanted(e, errorContext) && error.kind !== "locked" ? await loadCaptcha(platformUrl, login) : null;
      store.setState({ status: "signed-out", error, captcha: next });
    }
  };

  return store;
}

/** A JWT's expiry (UNIX seconds); a day from now for other tokens and developer keys, whose end the client cannot know. */
export function tokenExpiry(token: string, now = Date.now()): number {
  try {
    const exp = (JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown }).exp;
    if (typeof exp === "number" && Number.isFinite(exp)) return exp;
  } catch {
    // Not a JWT.
  }
  return Math.floor(now / 1000) + 24 * 3600;
}

function logFailure(what: string, e: unknown) {
  if (e instanceof PlatformError)
    console.info(`agentbar: ${what} failed: ${e.endpoint} -> ${e.kind} ${e.status} ${e.message}`);
  else console.warn(`agentbar: ${what} failed`, e);
}
