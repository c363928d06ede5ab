import { afterEach, describe, expect, it, vi } from "vitest";
import * as v from "valibot";
import { DEFAULT_TIMEOUT_MS, PlatformClient, type Credentials, type PlatformClientOptions } from "./client";
import { PlatformError } from "./errors";
import { signOut } from "./sessions";
import { listUsers } from "./users";

interface SeenRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  priority: RequestPriority | undefined;
}

type Handler = (req: SeenRequest, signal: AbortSignal) => Response | Promise<Response>;

/** A fetch that records what it was asked and answers with `handler`. */
function fakeFetch(handler: Handler) {
  const seen: SeenRequest[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    const req: SeenRequest = {
      url: new URL(String(input)),
      method: init.method ?? "GET",
      headers: { ...(init.headers as Record<string, string>) },
      body: init.body as string | undefined,
      priority: init.priority,
    };
    seen.push(req);
    return handler(req, init.signal!);
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, seen };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A fetch that never answers, but gives up when its signal aborts, as the real one does. */
const hanging: Handler = (_req, signal) =>
  new Promise<Response>((_resolve, reject) => {
    signal.addEventListener("abort", () => reject(new DOMException("This operation was aborted", "AbortError")));
  });

function clientWith(handler: Handler, options: Partial<PlatformClientOptions> = {}) {
  const { fetch, seen } = fakeFetch(handler);
  const client = new PlatformClient({ baseUrl: "http://pbx.test/", fetch, ...options });
  return { client, seen, fetch };
}

const Info = v.object({ login: v.string() });

/** The error a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<PlatformError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PlatformError);
  return e as PlatformError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("PlatformClient requests", () => {
  it("sends the token in X-XTRA-AUTH-ID, the query in the URL and a JSON body, and decodes the answer", async () => {
    const { client, seen } = clientWith(() => json(200, { login: "agent1", extra: true }));
    client.setCredentials({ token: "tok-1", expires: Date.now() / 1000 + 3600 });
    const out = await client.request("PUT", "/api/users/3", {
      query: { page: 2, name: "a b", skip: undefined },
      body: { name: "X" },
      schema: Info,
    });
    expect(out).toEqual({ login: "agent1" });
    const req = seen[0]!;
    expect(req.method).toBe("PUT");
    expect(req.url.href).toBe("http://pbx.test/api/users/3?page=2&name=a+b");
    expect(req.headers["X-XTRA-AUTH-ID"]).toBe("tok-1");
    expect(req.headers["Content-Type"]).toBe("application/json");
    expect(JSON.parse(req.body!)).toEqual({ name: "X" });
  });

  it("asks at the priority given: a background read at low, every other request at the browser's default", async () => {
    const { client, seen } = clientWith(() => json(200, { login: "agent1" }));
    await client.request("GET", "/api/cdrs", { schema: Info, priority: "low" });
    await client.request("GET", "/api/users/info", { schema: Info });
    expect(seen.map((r) => r.priority)).toEqual(["low", undefined]);
  });

  it("sends a form body urlencoded and no token when the request is not authenticated", async () => {
    const { client, seen } = clientWith(() => json(200, { login: "agent1" }));
    client.setCredentials({ token: "tok-1", expires: Date.now() / 1000 + 3600 });
    await client.request("POST", "/api/sessions", {
      auth: false,
      form: true,
      body: { login: "agent1", jwt: true, x: undefined },
      schema: Info,
    });
    expect(seen[0]!.headers["Content-Type"]).toBe("application/x-www-form-urlencoded");
    expect(seen[0]!.body).toBe("login=agent1&jwt=true");
    expect(seen[0]!.headers).not.toHaveProperty("X-XTRA-AUTH-ID");
  });

  it("decodes an envelope's data, code 0 'OK' counting as success", async () => {
    const { client } = clientWith(() => json(200, { code: 0, message: "OK", data: { login: "a" } }));
    expect(await client.request("GET", "/x", { envelope: true, schema: Info })).toEqual({ login: "a" });
  });

  it("turns an envelope with code != 200 into a 'platform' error carrying its message", async () => {
    const { client } = clientWith(() => json(200, { code: 500, message: "can not find group?" }));
    const e = await failure(
      client.request("POST", "/api/cc/ccc/ccDial", { body: {}, envelope: true, schema: v.unknown() }),
    );
    expect(e).toMatchObject({
      kind: "platform",
      status: 200,
      code: 500,
      message: "can not find group?",
      endpoint: "POST /api/cc/ccc/ccDial",
    });
  });

  it("turns a {code, text} error body into an 'http' error with the status, code and text", async () => {
    const { client } = clientWith(() => json(404, { code: 404, text: "Session Does Not Exist" }));
    const e = await failure(client.request("DELETE", "/api/sessions", { schema: v.unknown() }));
    expect(e).toMatchObject({
      kind: "http",
      status: 404,
      code: 404,
      message: "Session Does Not Exist",
      endpoint: "DELETE /api/sessions",
    });
  });

  it("keeps the details of an error body (locked_until)", async () => {
    const { client } = clientWith(() =>
      json(403, { code: 403, text: "User is locked", locked: true, locked_until: "2026-01-01 12:00:00" }),
    );
    const e = await failure(client.request("POST", "/api/sessions", { auth: false, body: {}, schema: v.unknown() }));
    expect(e.isAuthError).toBe(true);
    expect(e.detail("locked_until")).toBe("2026-01-01 12:00:00");
  });

  it("turns an error page that is not JSON into an 'http' error with the status", async () => {
    const { client } = clientWith(
      () =>
        new Response("<html>Bad Gateway</html>", {
          status: 502,
          statusText: "Bad Gateway",
          headers: { "content-type": "text/html" },
        }),
    );
    const e = await failure(client.request("GET", "/api/users", { schema: v.unknown() }));
    expect(e).toMatchObject({ kind: "http", status: 502, code: 502, message: "Bad Gateway" });
  });

  it("turns a network failure into a 'network' error naming the endpoint", async () => {
    const { client } = clientWith(() => Promise.reject(new TypeError("fetch failed")));
    const e = await failure(client.request("GET", "/api/users/info", { schema: Info }));
    expect(e).toMatchObject({ kind: "network", status: 0, endpoint: "GET /api/users/info" });
    expect(e.message).toContain("fetch failed");
  });

  it("gives up after the spec's 60 s by default", async () => {
    vi.useFakeTimers();
    const { client } = clientWith(hanging);
    let settled: PlatformError | "pending" = "pending";
    const p = client.request("GET", "/api/users", { schema: v.unknown() }).catch((e: PlatformError) => (settled = e));
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    expect(settled).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(settled).toMatchObject({
      kind: "timeout",
      status: 0,
      endpoint: "GET /api/users",
      message: expect.stringContaining("60 s"),
    });
    expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
  });

  it("applies a configured time-out", async () => {
    vi.useFakeTimers();
    const { client } = clientWith(hanging, { timeoutMs: 250 });
    const p = failure(client.request("GET", "/api/users", { schema: v.unknown() }));
    await vi.advanceTimersByTimeAsync(250);
    expect(await p).toMatchObject({ kind: "timeout", message: expect.stringContaining("250 ms") });
  });

  it("names the field when the answer does not have the endpoint's shape", async () => {
    const { client } = clientWith(() => json(200, { expires: 1, user_id: 3 }));
    const e = await failure(
      client.request("POST", "/api/sessions", {
        auth: false,
        schema: v.object({ token: v.string(), expires: v.number() }),
      }),
    );
    expect(e.kind).toBe("decode");
    expect(e.message).toContain("'token'");

    const users = clientWith(() => json(200, { rowCount: 1, page: 1, pageCount: 1, data: [{ id: "1", login: 42 }] }));
    const nested = await failure(listUsers(users.client));
    expect(nested.kind).toBe("decode");
    expect(nested.message).toContain("'data.0.login'");
    expect(nested.endpoint).toBe("GET /api/users");
  });

  it("refuses a success answer that is not JSON as a decode error", async () => {
    const { client } = clientWith(() => new Response("OK", { status: 200, headers: { "content-type": "text/plain" } }));
    expect(await failure(client.request("GET", "/api/users/info", { schema: Info }))).toMatchObject({ kind: "decode" });
  });
});

describe("the end of a session (403)", () => {
  const inAnHour = () => ({ token: "tok", expires: Math.floor(Date.now() / 1000) + 3600 });

  it("signals onSessionExpired once for a refused token, however many requests fail", async () => {
    const onSessionExpired = vi.fn();
    const { client } = clientWith(() => json(403, { code: 403, text: "Wrong or expired token" }), { onSessionExpired });
    client.setCredentials(inAnHour());
    const first = await failure(client.request("GET", "/api/users", { schema: v.unknown() }));
    await failure(client.request("GET", "/api/users/info", { schema: v.unknown() }));
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
    expect(onSessionExpired).toHaveBeenCalledWith(first);
    expect(first).toMatchObject({ kind: "http", status: 403, isAuthError: true });

    // A new session can end too.
    client.setCredentials(inAnHour());
    await failure(client.request("GET", "/api/users", { schema: v.unknown() }));
    expect(onSessionExpired).toHaveBeenCalledTimes(2);
  });

  it("also signals for a 403 envelope inside HTTP 200", async () => {
    const onSessionExpired = vi.fn();
    const { client } = clientWith(() => json(200, { code: 403, message: "token expired" }), { onSessionExpired });
    client.setCredentials(inAnHour());
    await failure(client.request("GET", "/api/cc/agent_state", { schema: v.unknown() }));
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
  });

  it("does not signal for a refused permission", async () => {
    const onSessionExpired = vi.fn();
    for (const text of ["no permission", "Wrong Auth Id", "no permission: extension 1001 is disabled"]) {
      const { client } = clientWith(() => json(403, { code: 403, text }), { onSessionExpired });
      client.setCredentials(inAnHour());
      const e = await failure(client.request("GET", "/api/users/2/dev_keys", { schema: v.unknown() }));
      expect(e.message).toBe(text);
    }
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("checks the session before taking a 403 of one endpoint for its end, however the refusal is worded", async () => {
    const onSessionExpired = vi.fn();
    const { client, seen } = clientWith(
      (req) =>
        req.url.pathname === "/api/users/info"
          ? json(200, { id: "2", login: "agent1" })
          : json(403, { code: 403, text: "Forbidden" }),
      { onSessionExpired },
    );
    client.setCredentials(inAnHour());
    const e = await failure(client.request("GET", "/api/media_files", { schema: v.unknown() }));
    expect(e).toMatchObject({ status: 403, message: "Forbidden" });
    expect(seen.map((r) => r.url.pathname)).toEqual(["/api/media_files", "/api/users/info"]);
    expect(onSessionExpired).not.toHaveBeenCalled();
    expect(client.session).not.toBeNull();

    // Two refusals at once check the session once.
    await Promise.all([
      failure(client.request("GET", "/api/a", { schema: v.unknown() })),
      failure(client.request("GET", "/api/b", { schema: v.unknown() })),
    ]);
    expect(seen.filter((r) => r.url.pathname === "/api/users/info")).toHaveLength(2);
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("does not end the session when the check gets no answer", async () => {
    const onSessionExpired = vi.fn();
    const { client } = clientWith(
      (req) => {
        if (req.url.pathname === "/api/users/info") throw new TypeError("Failed to fetch");
        return json(403, { code: 403, text: "Forbidden" });
      },
      { onSessionExpired },
    );
    client.setCredentials(inAnHour());
    await failure(client.request("GET", "/api/cdrs", { schema: v.unknown() }));
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("does not signal for a refused sign-in or when no one is signed in", async () => {
    const onSessionExpired = vi.fn();
    const { client } = clientWith(() => json(403, { code: 403, text: "Wrong username or password" }), {
      onSessionExpired,
    });
    await failure(client.request("GET", "/api/users", { schema: v.unknown() }));
    client.setCredentials(inAnHour());
    await failure(client.request("POST", "/api/sessions", { auth: false, body: {}, schema: v.unknown() }));
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("signs out without reporting an already ended session, and forgets the credentials", async () => {
    const onSessionExpired = vi.fn();
    const onCredentialsChange = vi.fn();
    const { client } = clientWith(() => json(403, { code: 403, text: "Wrong or expired token" }), {
      onSessionExpired,
      onCredentialsChange,
    });
    client.setCredentials(inAnHour());
    await failure(signOut(client));
    expect(onSessionExpired).not.toHaveBeenCalled();
    expect(client.session).toBeNull();
    expect(onCredentialsChange).toHaveBeenLastCalledWith(null);
  });
});

describe("JWT renewal", () => {
  const T0 = new Date("2026-03-02T09:00:00Z").getTime();
  const creds = (expiresInS: number, n: number): Credentials => ({
    token: `jwt-${n}`,
    expires: Math.floor(Date.now() / 1000) + expiresInS,
    refreshToken: `refresh-${n}`,
  });

  function renewingClient(refresh: PlatformClientOptions["refresh"], options: Partial<PlatformClientOptions> = {}) {
    return clientWith((req) => json(200, { login: req.headers["X-XTRA-AUTH-ID"] ?? "" }), { refresh, ...options });
  }

  it("renews a minute before expiry and again before the renewed token expires", async () => {
    vi.useFakeTimers({ now: T0 });
    let n = 1;
    const refresh = vi.fn(async () => creds(3600, ++n));
    const onCredentialsChange = vi.fn();
    const { client } = renewingClient(refresh, { onCredentialsChange });
    client.setCredentials(creds(3600, 1));

    await vi.advanceTimersByTimeAsync((3600 - 60) * 1000 - 1);
    expect(refresh).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(refresh).toHaveBeenCalledWith(client, "refresh-1");
    expect(client.session?.token).toBe("jwt-2");
    expect(onCredentialsChange).toHaveBeenLastCalledWith(expect.objectContaining({ token: "jwt-2" }));
    expect(await client.request("GET", "/api/users/info", { schema: Info })).toEqual({ login: "jwt-2" });

    await vi.advanceTimersByTimeAsync(3600 * 1000);
    expect(refresh).toHaveBeenCalledTimes(2);
    expect(client.session?.token).toBe("jwt-3");
    client.dispose();
  });

  it("makes a request just before expiry wait for the renewal and use the new token", async () => {
    vi.useFakeTimers({ now: T0 });
    let release!: (c: Credentials) => void;
    const refresh = vi.fn(() => new Promise<Credentials>((resolve) => (release = resolve)));
    const { client, seen } = renewingClient(refresh);
    client.setCredentials(creds(20, 1));

    const answer = client.request("GET", "/api/users/info", { schema: Info });
    await vi.advanceTimersByTimeAsync(0);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(seen).toHaveLength(0);

    release(creds(3600, 2));
    expect(await answer).toEqual({ login: "jwt-2" });
    expect(seen).toHaveLength(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    client.dispose();
  });

  it("renews short-lived tokens without a storm of refreshes", async () => {
    vi.useFakeTimers({ now: T0 });
    let n = 1;
    const refresh = vi.fn(async () => creds(2, ++n));
    const { client } = renewingClient(refresh);
    client.setCredentials(creds(2, 1));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(refresh.mock.calls.length).toBeGreaterThan(0);
    expect(refresh.mock.calls.length).toBeLessThanOrEqual(10);
    client.dispose();
  });

  it("waits out lifetimes longer than a timer can, without renewing early", async () => {
    vi.useFakeTimers({ now: T0 });
    const refresh = vi.fn(async () => creds(40 * 86400, 2));
    const { client } = renewingClient(refresh);
    client.setCredentials(creds(30 * 86400, 1));
    await vi.advanceTimersByTimeAsync(29 * 86400 * 1000);
    expect(refresh).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(86400 * 1000);
    expect(refresh).toHaveBeenCalledTimes(1);
    client.dispose();
  });

  it("reports the end of the session when the refresh token is refused", async () => {
    vi.useFakeTimers({ now: T0 });
    const refused = new PlatformError("http", 403, 403, "Invalid or expired refresh token", "POST /api/sessions");
    const refresh = vi.fn(() => Promise.reject(refused));
    const onSessionExpired = vi.fn();
    const { client } = renewingClient(refresh, { onSessionExpired });
    client.setCredentials(creds(120, 1));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
    expect(onSessionExpired).toHaveBeenCalledWith(refused);
    client.dispose();
  });

  it("tries again after a network failure while the token still holds", async () => {
    vi.useFakeTimers({ now: T0 });
    const refresh = vi
      .fn<NonNullable<PlatformClientOptions["refresh"]>>()
      .mockRejectedValueOnce(new PlatformError("network", 0, 0, "platform unreachable", "POST /api/sessions"))
      .mockResolvedValueOnce(creds(3600, 2));
    const onSessionExpired = vi.fn();
    const { client } = renewingClient(refresh, { onSessionExpired });
    client.setCredentials(creds(120, 1));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(client.session?.token).toBe("jwt-1");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    expect(client.session?.token).toBe("jwt-2");
    expect(onSessionExpired).not.toHaveBeenCalled();
    client.dispose();
  });

  it("does not bring a session back when the user signs out during a renewal", async () => {
    vi.useFakeTimers({ now: T0 });
    let release!: (c: Credentials) => void;
    const refresh = vi.fn(() => new Promise<Credentials>((resolve) => (release = resolve)));
    const { client } = renewingClient(refresh);
    client.setCredentials(creds(120, 1));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    client.setCredentials(null);
    release(creds(3600, 2));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.session).toBeNull();
    client.dispose();
  });
});
