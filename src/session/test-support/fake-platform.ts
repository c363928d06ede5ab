/**
 * A scripted stand-in of the platform's session endpoints for unit tests of the session layer:
 * real HTTP shapes (status codes, error bodies) without a server.
 */
export interface FakeUser {
  id: number;
  login: string;
  password: string;
  name: string;
  extn: string;
  domain: string;
  authority: string;
}

export type Route = (req: {
  method: string;
  url: URL;
  body: Record<string, unknown>;
  token: string | null;
  signal: AbortSignal | null;
}) => Response | Promise<Response> | undefined;

export const alice: FakeUser = {
  id: 3,
  login: "agent1",
  password: "Agentbar@2026",
  name: "Alice Agent",
  extn: "1001",
  domain: "agentbar.local",
  authority: "agent",
};

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function fakePlatform(users: FakeUser[] = [alice]) {
  let serial = 0;
  const tokens = new Map<string, FakeUser>();
  const refreshTokens = new Map<string, FakeUser>();
  const calls: {
    method: string;
    path: string;
    body: Record<string, unknown>;
    token: string | null;
    keepalive?: true;
  }[] = [];
  /** Routes tried before the built-in ones; the first to answer wins. */
  const overrides: Route[] = [];

  const issue = (user: FakeUser, jwt: boolean, expiresIn = 3600) => {
    const token = `token-${++serial}`;
    tokens.set(token, user);
    const refresh = jwt ? `refresh-${serial}` : undefined;
    if (refresh) refreshTokens.set(refresh, user);
    return json(200, {
      code: 200,
      token,
      expires: Math.floor(Date.now() / 1000) + expiresIn,
      user_id: user.id,
      extn: user.extn,
      currentAuthority: user.authority,
      system_roles: { senior_roles_str: user.authority === "admin" ? "admin" : "", roles_str: user.authority },
      ...(refresh ? { refresh_token: refresh } : {}),
    });
  };

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const method = init.method ?? "GET";
    const body = init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    const headers = new Headers(init.headers);
    const token = headers.get("x-xtra-auth-id");
    calls.push({ method, path: url.pathname, body, token, ...(init.keepalive ? { keepalive: true as const } : {}) });
    for (const route of overrides) {
      const answer = await route({ method, url, body, token, signal: init.signal ?? null });
      if (answer) return answer;
    }
    const key = `${method} ${url.pathname}`;
    if (key === "POST /api/sessions") {
      if (typeof body.refresh_token === "string") {
        const user = refreshTokens.get(body.refresh_token);
        refreshTokens.delete(body.refresh_token);
        return user ? issue(user, true) : json(403, { code: 403, text: "Invalid or expired refresh token" });
      }
      const user = users.find((u) => u.login === body.login);
      if (!user || user.password !== body.password) return json(403, { code: 403, text: "Wrong username or password" });
      return issue(user, body.jwt === true);
    }
    const user = token ? tokens.get(token) : undefined;
    if (key === "GET /api/captchas") {
      return json(200, { code: 200, message: "success", data: { captcha_id: 7, pic_path: "/api/captchas/7" } });
    }
    if (!user) return json(403, { code: 403, text: "Wrong or expired token" });
    if (key === "GET /api/users/info") {
      return json(200, {
        id: user.id,
        login: user.login,
        name: user.name,
        extn: user.extn,
        domain: user.domain,
        type: "AGENT",
        is_admin: user.authority === "admin" ? 1 : 0,
        currentAuthority: user.authority,
      });
    }
    if (key === "DELETE /api/sessions") {
      tokens.delete(token!);
      return json(200, { code: 200, text: "OK" });
    }
    return json(404, { code: 404, text: `Not Found: ${key}` });
  };

  return {
    fetch: fetch as typeof globalThis.fetch,
    calls,
    tokens,
    overrides,
    /** Every session ends, as after a platform restart. */
    endAllSessions: () => tokens.clear(),
  };
}
