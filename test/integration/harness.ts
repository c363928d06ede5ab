import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PlatformOptions } from "../../platform/config";
import { defaultOptions } from "../../platform/config";
import { startPlatform, type Platform, type PlatformParts } from "../../platform/platform";
import type { DemoData } from "../../platform/demo-data";
import { PlatformClient, type PlatformClientOptions } from "../../src/api/client";
import { refreshSession } from "../../src/api/sessions";

/** The demo file every test platform is filled from, read once so tests can name its users. */
export const demo = JSON.parse(readFileSync(defaultOptions.demoFile, "utf8")) as DemoData;
export const DEMO_PASSWORD = demo.password;
export const DEMO_DOMAIN = demo.domain;

/** The three ways the spec lets a request carry its token. */
export type Carrier = "header" | "bearer" | "cookie";
export const CARRIERS: Carrier[] = ["header", "bearer", "cookie"];

export interface CallOptions {
  token?: string;
  carrier?: Carrier;
  /** Sent as JSON unless `form` is set. */
  body?: unknown;
  form?: Record<string, string>;
  /** Sent as given (malformed bodies). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** Headers that present `token` in one carrier. */
export function carry(token: string, carrier: Carrier = "header"): Record<string, string> {
  switch (carrier) {
    case "header":
      return { "X-XTRA-AUTH-ID": token };
    case "bearer":
      return { Authorization: `Bearer ${token}` };
    case "cookie":
      return { Cookie: `svc_xtra_session_id=${token}` };
  }
}

/**
 * The clock of a test's platform: real time plus the time the test skipped, so that a test of
 * lifetimes and locks moves time on instead of sleeping through it.
 */
export class TestClock {
  private skipped = 0;
  readonly now = (): number => Date.now() + this.skipped;

  advance(ms: number): void {
    this.skipped += ms;
  }

  /** Moves time on until the UNIX second `epochSeconds` is well past. */
  passSecond(epochSeconds: number): void {
    this.advance(Math.max(0, (epochSeconds + 1) * 1000 + 100 - this.now()));
  }
}

/**
 * A local platform started in-process on an ephemeral port with its own data folder in the
 * temporary directory, which `close()` deletes. `restart()` stops it and starts a new process
 * state on the same data folder, as a service restart would.
 */
export class TestPlatform {
  private constructor(
    public platform: Platform,
    /** The platform's clock: sign-in, tokens, locks and captchas read it. */
    readonly clock: TestClock,
    readonly dataDir: string,
    private readonly options: Partial<PlatformOptions>,
    private readonly parts: PlatformParts,
  ) {}

  /** `parts` hands in a switch (say the call center's in-memory one) instead of none. */
  static async start(overrides: Partial<PlatformOptions> = {}, parts: PlatformParts = {}): Promise<TestPlatform> {
    const dataDir = mkdtempSync(join(tmpdir(), "agentbar-it-"));
    const options = { port: 0, host: "127.0.0.1", logLevel: "silent" as const, ...overrides, dataDir };
    const clock = new TestClock();
    const withClock = { now: clock.now, ...parts };
    try {
      return new TestPlatform(await startPlatform(options, withClock), clock, dataDir, options, withClock);
    } catch (e) {
      rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
  }

  get url(): string {
    return this.platform.url;
  }

  get db() {
    return this.platform.ctx.db;
  }

  async restart(): Promise<void> {
    await this.platform.close();
    this.platform = await startPlatform(this.options, this.parts);
  }

  async close(): Promise<void> {
    await this.platform.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async call<T = unknown>(method: string, path: string, o: CallOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...(o.token ? carry(o.token, o.carrier) : {}), ...o.headers };
    let body: string | undefined;
    if (o.raw !== undefined) {
      body = o.raw;
      headers["Content-Type"] ??= "application/json";
    } else if (o.form) {
      body = new URLSearchParams(o.form).toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["Content-Type"] = "application/json";
    }
    const res = await fetch(this.url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  /** POST /api/sessions; answers whatever the platform says. */
  signIn(login: string, password = DEMO_PASSWORD, extra: Record<string, unknown> = {}) {
    return this.call<SessionJson & ErrorJson>("POST", "/api/sessions", { body: { login, password, ...extra } });
  }

  /** Signs in and returns the session, failing the test if the platform refuses. */
  async session(login: string, extra: Record<string, unknown> = {}): Promise<SessionJson> {
    const res = await this.signIn(login, DEMO_PASSWORD, extra);
    if (res.status !== 200) throw new Error(`sign-in of ${login} failed: ${res.status} ${res.text}`);
    return res.body;
  }

  async token(login: string): Promise<string> {
    return (await this.session(login)).token;
  }

  /** The id of a user by login, read from the database. */
  userId(login: string): number {
    const row = this.db.prepare("SELECT id FROM users WHERE login = ?").get(login) as { id: number } | undefined;
    if (!row) throw new Error(`no user ${login}`);
    return row.id;
  }

  /**
   * Every row of every table, to prove that a refused request wrote nothing. Sign-in bookkeeping
   * is part of it, so take the snapshot after signing in.
   */
  snapshot(): Record<string, unknown[]> {
    const tables = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[];
    return Object.fromEntries(
      tables.map(({ name }) => [name, this.db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]),
    );
  }

  /** The product's REST client pointed at this platform, renewing JWTs the product's way. */
  client(options: Partial<PlatformClientOptions> = {}): PlatformClient {
    return new PlatformClient({ baseUrl: this.url, refresh: refreshSession, ...options });
  }
}

export interface SessionJson {
  code: number;
  token: string;
  expires: number;
  user_id: number;
  extn: string;
  currentAuthority: string;
  system_roles: { senior_roles_str: string; roles_str: string };
  refresh_token?: string;
}

export interface ErrorJson {
  code: number;
  text: string;
  captcha_required?: boolean;
  attempts_left?: number;
  locked?: boolean;
  locked_until?: string;
}

/**
 * An HTTP request with its path sent exactly as given (fetch would tidy it up), to try the
 * spellings of a path a browser, a proxy or an attacker may send.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        // A connection of its own: a refusal may close it, which a kept-alive socket would carry over.
        agent: false,
        headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
