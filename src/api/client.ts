import * as v from "valibot";
import { PlatformError } from "./errors";

/** The spec's default time-out of synchronous requests. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** setTimeout cannot wait longer than this. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Shortest wait between two scheduled renewals, so that short-lived tokens cannot cause a storm. */
const MIN_RENEWAL_GAP_MS = 1000;
/** Wait before trying a failed renewal again (network trouble) while the token still holds. */
const RENEWAL_RETRY_MS = 10_000;

/** A signed-in session: the user token and, for JWTs, what renews it. */
export interface Credentials {
  token: string;
  /** UNIX seconds. */
  expires: number;
  refreshToken?: string;
}

export interface PlatformClientOptions {
  /** Platform address, e.g. "https://pbx.example.com"; "" means the page's own origin. */
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Called once when the platform refuses the session (403), so the app can sign in again. */
  onSessionExpired?: (error: PlatformError) => void;
  /** Called whenever the credentials change (sign-in, refresh, sign-out), e.g. to persist them. */
  onCredentialsChange?: (credentials: Credentials | null) => void;
  /** Renews JWT credentials; set by the sessions module (the refresh request shape lives there). */
  refresh?: (client: PlatformClient, refreshToken: string) => Promise<Credentials>;
  /** Seconds before expiry at which a JWT is renewed. */
  refreshMarginSeconds?: number;
  now?: () => number;
}

/**
 * What a successful answer's body came to, read elsewhere than in the client (`decode`: a worker
 * reads a large body off the page's thread): its value, or why not, which the client turns into
 * the same errors as when it reads a body itself.
 */
export type BodyReading<T> =
  | { value: T }
  /** The body is not JSON. */
  | { notJson: true }
  /** An error body (`{code, text}`, `{code, message}`): the body itself. */
  | { failure: unknown }
  /** The body does not have the answer's shape: the error's message (where and what), and the body. */
  | { invalid: string; body: unknown };

/**
 * The platform's answer (an HTTP success, its body parsed) read as the client reads every answer:
 * an error body is a failure; otherwise the payload (an envelope's `data`) read with `schema`.
 */
export function readAnswer<T>(data: unknown, schema: v.GenericSchema<unknown, T>, envelope = false): BodyReading<T> {
  const failure = errorBodyOf(data);
  if (failure && failure.code !== 200) return { failure: data };
  const payload = envelope ? (data as { data?: unknown } | undefined)?.data : data;
  const result = v.safeParse(schema, payload);
  if (result.success) return { value: result.output };
  const issue = result.issues[0];
  const where = issue ? v.getDotPath(issue) : undefined;
  return {
    invalid: `unexpected answer from the platform${where ? ` at '${where}'` : ""}: ${issue?.message ?? "invalid"}`,
    body: data,
  };
}

/** A body of JSON text, parsed as the client parses answers; `notJson` when it is not JSON. */
export function parseBody(text: string): { data: unknown } | { notJson: true } {
  try {
    return { data: text ? JSON.parse(text) : undefined };
  } catch {
    return { notJson: true };
  }
}

interface CommonRequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Send the body as application/x-www-form-urlencoded instead of JSON. */
  form?: boolean;
  /** Whether the request carries the token (default true). */
  auth?: boolean;
  /** Whether a 403 answer reports the end of the session through onSessionExpired (default true). */
  reportExpiry?: boolean;
  /**
   * fetch's priority: `low` for background reads of many requests (a day's records), so that
   * the browser sends a live request waiting for a connection to the platform before them.
   */
  priority?: RequestPriority;
}

export type RequestOptions<T> = CommonRequestOptions &
  (
    | {
        /** Schema of the successful answer. */
        schema: v.GenericSchema<unknown, T>;
        /** Answer is an envelope `{code, message, data}`: check `code` and decode `data` with `schema`. */
        envelope?: boolean;
        /** Accept a non-JSON answer (the schema then sees the text). */
        text?: boolean;
        decode?: undefined;
      }
    | {
        /**
         * Reads a successful answer's body (its bytes, which it may transfer elsewhere) instead of
         * the client: parsed, checked for an error body and read as `readAnswer` does. An error
         * status is still read by the client.
         */
        decode: (body: ArrayBuffer) => Promise<BodyReading<T>>;
        schema?: undefined;
        envelope?: undefined;
        text?: undefined;
      }
  );

/**
 * The transport of the REST client: base URL, token, time-out, error mapping and JWT renewal.
 * Endpoint functions (sessions.ts, users.ts, ...) describe each endpoint's path and real shape.
 */
export class PlatformClient {
  private credentials: Credentials | null = null;
  private refreshing: { from: Credentials; done: Promise<void> } | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private expiredSignalled = false;
  private checkingSession: Promise<boolean> | null = null;
  private keepingAlive = false;
  readonly baseUrl: string;

  constructor(private readonly options: PlatformClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  get session(): Credentials | null {
    return this.credentials;
  }

  setCredentials(credentials: Credentials | null): void {
    this.credentials = credentials;
    this.expiredSignalled = false;
    this.scheduleRefresh();
    this.options.onCredentialsChange?.(credentials);
  }

  /**
   * While on, requests are sent with fetch's `keepalive`: the browser delivers them even when the
   * page is frozen or closed before they are answered (a page being frozen runs no more tasks, and
   * an ordinary request started then waits until the page wakes up). Keep-alive bodies are small
   * (64 KiB in flight per page), which every call-center command is.
   */
  keepAlive(on: boolean): void {
    this.keepingAlive = on;
  }

  /** Stops the renewal timer (sign-out, tests). */
  dispose(): void {
    clearTimeout(this.refreshTimer);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    const c = this.credentials;
    if (!c?.refreshToken || !this.options.refresh) return;
    const margin = (this.options.refreshMarginSeconds ?? 60) * 1000;
    const left = c.expires * 1000 - this.now();
    // Renew `margin` early; a token with less life than that left is renewed halfway to its end.
    const delay = Math.max(left - margin, left / 2, MIN_RENEWAL_GAP_MS);
    if (delay > MAX_TIMER_MS) {
      this.refreshTimer = setTimeout(() => this.scheduleRefresh(), MAX_TIMER_MS);
      return;
    }
    this.refreshTimer = setTimeout(() => void this.renewInBackground(c), delay);
  }

  private async renewInBackground(from: Credentials): Promise<void> {
    try {
      await this.refreshNow();
    } catch (e) {
      // A refused refresh token has already been reported as the end of the session. Otherwise
      // (network trouble) try again while the token still holds; requests also renew before use.
      if (e instanceof PlatformError && e.status === 403) return;
      if (this.credentials !== from) return;
      const left = from.expires * 1000 - this.now();
      if (left > 0)
        this.refreshTimer = setTimeout(
          () => void this.renewInBackground(from),
          Math.min(RENEWAL_RETRY_MS, Math.max(left / 2, MIN_RENEWAL_GAP_MS)),
        );
    }
  }

  /** Renews JWT credentials now (single flight). A refused refresh token ends the session. */
  refreshNow(): Promise<void> {
    const c = this.credentials;
    if (!c?.refreshToken || !this.options.refresh) return Promise.resolve();
    if (this.refreshing?.from === c) return this.refreshing.done;
    const done = this.options
      .refresh(this, c.refreshToken)
      .then(
        (next) => {
          // Signed out, or signed in anew, meanwhile: the newer state stands.
          if (this.credentials === c) this.setCredentials(next);
        },
        (e: unknown) => {
          if (e instanceof PlatformError && e.status === 403 && this.credentials === c) this.signalExpired(e);
          throw e;
        },
      )
      .finally(() => {
        if (this.refreshing?.done === done) this.refreshing = null;
      });
    this.refreshing = { from: c, done };
    return done;
  }

  /**
   * The token to send; a JWT about to expire is renewed first. Only the renewal waits: otherwise
   * the request leaves in the same task, ahead of whatever the page renders next (a reload's
   * token and queue requests then travel while the signed-in screen draws).
   */
  private freshToken(): string | undefined | Promise<string | undefined> {
    const c = this.credentials;
    if (!c) return undefined;
    const margin = Math.min(this.options.refreshMarginSeconds ?? 60, 30);
    if (!c.refreshToken || !this.options.refresh || c.expires * 1000 - this.now() >= margin * 1000) return c.token;
    // A failed renewal: the request then fails with 403 and the session-expired path takes over.
    return this.refreshNow().then(
      () => this.credentials?.token,
      () => this.credentials?.token,
    );
  }

  async request<T>(method: string, path: string, opts: RequestOptions<T>): Promise<T> {
    const endpoint = `${method} ${path}`;
    const url = new URL(this.baseUrl + path, typeof location !== "undefined" ? location.href : "http://localhost/");
    for (const [k, val] of Object.entries(opts.query ?? {}))
      if (val !== undefined) url.searchParams.set(k, String(val));

    const headers: Record<string, string> = { Accept: "application/json" };
    let body: string | undefined;
    if (opts.body !== undefined) {
      if (opts.form) {
        headers["Content-Type"] = "application/x-www-form-urlencoded";
        body = new URLSearchParams(
          Object.entries(opts.body as Record<string, unknown>)
            .filter(([, val]) => val !== undefined)
            .map(([k, val]) => [k, String(val)]),
        ).toString();
      } else {
        headers["Content-Type"] = "application/json";
        body = JSON.stringify(opts.body);
      }
    }
    const authed = opts.auth !== false;
    const watchesSession = authed && opts.reportExpiry !== false;
    if (authed) {
      const fresh = this.freshToken();
      const token = fresh instanceof Promise ? await fresh : fresh;
      if (token) headers["X-XTRA-AUTH-ID"] = token;
    }

    const controller = new AbortController();
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let response: Response;
    let text = "";
    let bytes: ArrayBuffer | undefined;
    try {
      const doFetch = this.options.fetch ?? globalThis.fetch.bind(globalThis);
      // Tokens travel in a header; cookies are left out so a stale cookie can never take precedence.
      response = await doFetch(url.toString(), {
        method,
        headers,
        body,
        signal: controller.signal,
        credentials: "omit",
        ...(this.keepingAlive ? { keepalive: true } : {}),
        ...(opts.priority ? { priority: opts.priority } : {}),
      });
      if (opts.decode && response.ok) bytes = await response.arrayBuffer();
      else text = await response.text();
    } catch (e) {
      if (controller.signal.aborted) {
        const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
        throw new PlatformError("timeout", 0, 0, `no answer from the platform within ${limit}`, endpoint);
      }
      throw new PlatformError("network", 0, 0, `platform unreachable (${(e as Error).message})`, endpoint);
    } finally {
      clearTimeout(timer);
    }

    if (bytes && opts.decode) return this.settle(await opts.decode(bytes), response.status, endpoint, watchesSession);

    let data: unknown = text;
    const isJson = (response.headers.get("content-type") ?? "").includes("json");
    if (isJson || (!opts.text && text)) {
      const parsed = parseBody(text);
      if ("data" in parsed) data = parsed.data;
      else if (!opts.text) {
        if (!response.ok)
          throw await this.httpError(response.status, undefined, endpoint, watchesSession, response.statusText);
        return this.settle(parsed, response.status, endpoint, watchesSession);
      }
    }

    if (!response.ok) throw await this.httpError(response.status, data, endpoint, watchesSession, response.statusText);
    return this.settle(readAnswer(data, opts.schema!, opts.envelope), response.status, endpoint, watchesSession);
  }

  /** A successful answer's value, or the error its reading came to. */
  private async settle<T>(
    reading: BodyReading<T>,
    status: number,
    endpoint: string,
    watchesSession: boolean,
  ): Promise<T> {
    if ("value" in reading) return reading.value;
    if ("notJson" in reading)
      throw new PlatformError("decode", status, status, "the platform's answer is not JSON", endpoint);
    if ("invalid" in reading)
      throw new PlatformError("decode", status, status, reading.invalid, endpoint, reading.body);
    const data = reading.failure;
    const failure = errorBodyOf(data)!;
    const kind = failure.text !== undefined ? "http" : "platform";
    const err = new PlatformError(
      kind,
      status,
      failure.code,
      failure.text ?? failure.message ?? "error",
      endpoint,
      data,
    );
    if (failure.code === 403) await this.refused(err, watchesSession);
    throw err;
  }

  /**
   * GET a file (a recording) with the token in the header: the token must never travel in a URL,
   * where it would end up in logs and history. The caller plays it through a blob URL.
   */
  async download(path: string): Promise<Blob> {
    const endpoint = `GET ${path}`;
    const url = new URL(this.baseUrl + path, typeof location !== "undefined" ? location.href : "http://localhost/");
    const headers: Record<string, string> = {};
    const token = await this.freshToken();
    if (token) headers["X-XTRA-AUTH-ID"] = token;
    const controller = new AbortController();
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const doFetch = this.options.fetch ?? globalThis.fetch.bind(globalThis);
      const response = await doFetch(url.toString(), {
        method: "GET",
        headers,
        signal: controller.signal,
        credentials: "omit",
      });
      if (!response.ok) {
        const text = await response.text().catch(() => "");
        let data: unknown = text;
        try {
          data = text ? JSON.parse(text) : undefined;
        } catch {
          // An error page that is not JSON: its text is the message.
        }
        throw await this.httpError(response.status, data, endpoint, true, response.statusText);
      }
      return await response.blob();
    } catch (e) {
      if (e instanceof PlatformError) throw e;
      if (controller.signal.aborted)
        throw new PlatformError("timeout", 0, 0, "no answer from the platform in time", endpoint);
      throw new PlatformError("network", 0, 0, `platform unreachable (${(e as Error).message})`, endpoint);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The error of a failed answer; a 403 is first checked against the session (`refused`). */
  private async httpError(
    status: number,
    data: unknown,
    endpoint: string,
    watchesSession: boolean,
    statusText: string,
  ): Promise<PlatformError> {
    const body = errorBodyOf(data);
    const message =
      body?.text ?? body?.message ?? (typeof data === "string" && data ? data : statusText || `HTTP ${status}`);
    const err = new PlatformError("http", status, body?.code ?? status, message, endpoint, data);
    if (status === 403) await this.refused(err, watchesSession);
    return err;
  }

  /**
   * A 403 on an authenticated request: the session is gone (a missing, wrong or expired token), or
   * only this endpoint is refused to this user. A refusal worded as a permission is the latter; any
   * other is checked with the session's own request (GET /api/users/info) before the session is
   * taken for ended, so that an endpoint the platform keeps for administrators, however it words
   * the refusal, does not sign an agent out. Resolves once that is known.
   */
  private async refused(err: PlatformError, watchesSession: boolean): Promise<void> {
    const c = this.credentials;
    if (!watchesSession || !c || /permission|wrong auth id/i.test(err.message) || this.expiredSignalled) return;
    if (err.endpoint !== SESSION_CHECK && !(await this.sessionGone())) return;
    if (this.credentials === c) this.signalExpired(err);
  }

  /** Whether the platform refuses the session itself (single flight); false when it cannot tell (no answer). */
  private sessionGone(): Promise<boolean> {
    this.checkingSession ??= this.request("GET", "/api/users/info", { reportExpiry: false, schema: v.unknown() })
      .then(
        () => false,
        (e: unknown) => e instanceof PlatformError && (e.status === 403 || e.code === 403),
      )
      .finally(() => (this.checkingSession = null));
    return this.checkingSession;
  }

  private signalExpired(err: PlatformError): void {
    if (this.expiredSignalled) return;
    this.expiredSignalled = true;
    this.options.onSessionExpired?.(err);
  }
}

/** The request that tells whether a session holds: a 403 to it is the session's end. */
const SESSION_CHECK = "GET /api/users/info";

/** `{code, text}` or `{code, message}` bodies, the platform's two error forms. */
function errorBodyOf(data: unknown): { code: number; text?: string; message?: string } | undefined {
  if (!data || typeof data !== "object" || Array.isArray(data)) return undefined;
  const d = data as Record<string, unknown>;
  const code =
    typeof d.code === "number"
      ? d.code
      : typeof d.code === "string" && /^\d+$/.test(d.code)
        ? Number(d.code)
        : undefined;
  if (code === undefined) return undefined;
  const text = typeof d.text === "string" ? d.text : undefined;
  const message = typeof d.message === "string" ? d.message : undefined;
  if (text === undefined && message === undefined) return code === 200 || code === 0 ? undefined : { code };
  // The envelope dictionary lists code 0 with message OK as success too.
  return { code: code === 0 ? 200 : code, text, message };
}
