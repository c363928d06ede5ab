import { afterEach, describe, expect, it, vi } from "vitest";
import { getCurrentUser } from "../api";
import { LOGIN_KEY, SESSION_KEY, createSessionStore, type SessionState, type SessionStore } from "./session";
import { createSettingsStore } from "./settings";
import { memoryStorage, type KeyValueStorage } from "./storage";
import { alice, fakePlatform, json } from "./test-support/fake-platform";

const BASE = "https://pbx.example.com";

function setup(
  opts: { tab?: KeyValueStorage; device?: KeyValueStorage; platform?: ReturnType<typeof fakePlatform> } = {},
) {
  const platform = opts.platform ?? fakePlatform();
  const tab = opts.tab ?? memoryStorage();
  const device = opts.device ?? memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: tab,
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.example.com",
  });
  return { platform, tab, device, settings, session };
}

const signInAlice = (session: SessionStore, extra: Partial<Parameters<SessionState["signIn"]>[0]> = {}) =>
  session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: BASE, ...extra });

/** Answers POST /api/sessions with a refusal, as the platform words it. */
function refuseSignIn(platform: ReturnType<typeof fakePlatform>, status: number, body: unknown) {
  platform.overrides.push(({ method, url }) =>
    method === "POST" && url.pathname === "/api/sessions" ? json(status, body) : undefined,
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe("sign-in", () => {
  it("signs in with a JWT, loads the user and remembers login name and platform address", async () => {
    const { session, platform, tab, device, settings } = setup();
    expect(session.getState().status).toBe("signed-out");
    const done = signInAlice(session);
    expect(session.getState().status).toBe("signing-in");
    await done;

    const s = session.getState();
    expect(s.status).toBe("signed-in");
    expect(s.user).toEqual({
      id: "3",
      login: "agent1",
      name: "Alice Agent",
      extension: "1001",
      domain: "agentbar.local",
      role: "agent",
      isAdmin: false,
      systemRoles: ["agent"],
    });
    expect(s.error).toBeNull();
    expect(s.client?.baseUrl).toBe(BASE);
    expect(platform.calls[0]).toMatchObject({
      method: "POST",
      path: "/api/sessions",
      body: { login: "agent1", jwt: true },
    });
    expect(platform.calls[1]).toMatchObject({ method: "GET", path: "/api/users/info", token: "token-1" });

    expect(device.getItem(LOGIN_KEY)).toBe("agent1");
    expect(settings.getState().platformUrl).toBe(BASE);
    const kept = JSON.parse(tab.getItem(SESSION_KEY)!);
    expect(kept).toMatchObject({ platformUrl: BASE, token: "token-1", refreshToken: "refresh-1", role: "agent" });
    expect(JSON.stringify(kept) + JSON.stringify(device.getItem("agentbar.settings"))).not.toContain(alice.password);
  });

  it("normalises the typed platform address", async () => {
    const { session } = setup();
    await signInAlice(session, { platformUrl: " pbx.example.com/api/ " });
    expect(session.getState().platformUrl).toBe(BASE);
  });

  it("ignores a second submit while the first is under way", async () => {
    const { session, platform } = setup();
    await Promise.all([signInAlice(session), signInAlice(session)]);
    expect(platform.calls.filter((c) => c.path === "/api/sessions")).toHaveLength(1);
  });
});

describe("sign-in with a token a host page gave", () => {
  it("uses the token as it is, at the app's platform address, and keeps the session for a reload", async () => {
    const { session, platform, tab, settings } = setup();
    settings.getState().change({ platformUrl: BASE });
    const { session: minted } = setup({ platform });
    await signInAlice(minted);
    const token = minted.getState().client!.session!.token;

    const fresh = createSessionStore({
      settings,
      tabStorage: tab,
      deviceStorage: memoryStorage(),
      fetch: platform.fetch,
      pageOrigin: "https://app.example.com",
    });
    await fresh.getState().signInWithToken(token);
    expect(fresh.getState()).toMatchObject({
      status: "signed-in",
      user: { login: "agent1" },
      platformUrl: BASE,
      error: null,
    });
    expect(platform.calls.at(-1)).toMatchObject({ method: "GET", path: "/api/users/info", token });
    expect(JSON.parse(tab.getItem(SESSION_KEY)!)).toMatchObject({ platformUrl: BASE, token });
    expect(session.getState().status).toBe("signed-out");
  });

  it("a refused token rejects and leaves the sign-in screen as it was; it does nothing while someone is signed in", async () => {
    const { session, platform } = setup();
    await expect(session.getState().signInWithToken("forged")).rejects.toMatchObject({ kind: "wrong-credentials" });
    expect(session.getState()).toMatchObject({ status: "signed-out", error: null, captcha: null });
    await signInAlice(session);
    const calls = platform.calls.length;
    await session.getState().signInWithToken("another");
    expect(platform.calls).toHaveLength(calls);
    expect(session.getState().user?.login).toBe("agent1");
  });

  it("reads a JWT's expiry; other tokens are taken to last a day", async () => {
    const { tokenExpiry } = await import("./session");
    const jwt = `x.${btoa(JSON.stringify({ exp: 1_900_000_000 })).replace(/=+$/, "")}.y`;
    expect(tokenExpiry(jwt)).toBe(1_900_000_000);
    expect(tokenExpiry("a-developer-key", 1_000_000_000_000)).toBe(1_000_086_400);
  });
});

describe("sign-in errors become data the UI can explain", () => {
  it("wrong credentials, with the attempts left", async () => {
    const { session } = setup();
    await signInAlice(session, { password: "nope" });
    expect(session.getState()).toMatchObject({
      status: "signed-out",
      error: { kind: "wrong-credentials", attemptsLeft: null },
      user: null,
    });

    const { session: s2, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "Wrong username or password", attempts_left: 3 });
    await signInAlice(s2);
    expect(s2.getState().error).toEqual({ kind: "wrong-credentials", attemptsLeft: 3 });
    expect(s2.getState().captcha).toBeNull();
  });

  it("wrong credentials that now need a captcha: the picture is fetched for that login", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, {
      code: 403,
      text: "Wrong username or password",
      attempts_left: 3,
      captcha_required: true,
    });
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "wrong-credentials", attemptsLeft: 3 });
    expect(session.getState().captcha).toEqual({ login: "agent1", pictureUrl: `${BASE}/api/captchas/7` });
    expect(platform.calls.at(-1)).toMatchObject({ method: "GET", path: "/api/captchas" });
  });

  it("captcha required, and a wrong captcha", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "Captcha required", captcha_required: true });
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "captcha-required", wrongCaptcha: false });
    expect(session.getState().captcha?.pictureUrl).toBe(`${BASE}/api/captchas/7`);

    await signInAlice(session, { captcha: "ABCDE" });
    expect(platform.calls.findLast((c) => c.path === "/api/sessions")?.body).toMatchObject({ captcha_str: "ABCDE" });
    expect(session.getState().error).toEqual({ kind: "captcha-required", wrongCaptcha: true });
  });

  it("a captcha picture that cannot be fetched is reported as missing, not as a crash", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "Captcha required", captcha_required: true });
    platform.overrides.push(({ url }) =>
      url.pathname === "/api/captchas" ? json(500, { code: 500, text: "Internal Error" }) : undefined,
    );
    await signInAlice(session);
    expect(session.getState().captcha).toEqual({ login: "agent1", pictureUrl: null });
  });

  it("locked, with the unlock time read as the platform's local time", async () => {
    const s = setup();
    refuseSignIn(s.platform, 403, {
      code: 403,
      text: "User is locked until 2031-05-06 14:35:00",
      locked: true,
      locked_until: "2031-05-06 14:35:00",
    });
    await signInAlice(s.session);
    expect(s.session.getState().error).toEqual({
      kind: "locked",
      until: new Date(2031, 4, 6, 14, 35, 0).getTime(),
      untilText: "2031-05-06 14:35:00",
    });
    expect(s.session.getState().captcha).toBeNull();
  });

  it("disabled account", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "User is disabled" });
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "disabled" });
  });

  it("platform unreachable", async () => {
    const { session, platform } = setup();
    platform.overrides.push(() => {
      throw new TypeError("Failed to fetch");
    });
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "unreachable", address: BASE });
  });

  it("the page's own origin is named when no platform address was given", async () => {
    const { session, platform } = setup();
    platform.overrides.push(() => {
      throw new TypeError("Failed to fetch");
    });
    await signInAlice(session, { platformUrl: "" });
    expect(session.getState().error).toEqual({ kind: "unreachable", address: "https://app.example.com" });
  });

  it("time-out", async () => {
    vi.useFakeTimers();
    const { session, platform } = setup();
    // A platform that never answers: only the client's time-out ends the wait.
    platform.overrides.push(
      ({ signal }) =>
        new Promise<Response>((_, reject) =>
          signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
        ),
    );
    const done = signInAlice(session);
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(session.getState().error).toEqual({ kind: "timeout", address: BASE });
  });

  it("an address that answers like a web site, not the platform", async () => {
    const { session, platform } = setup();
    platform.overrides.push(
      () => new Response("<html>Not here</html>", { status: 404, headers: { "content-type": "text/html" } }),
    );
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "not-a-platform", address: BASE });

    const s2 = setup();
    s2.platform.overrides.push(
      () => new Response("<html>Welcome</html>", { status: 200, headers: { "content-type": "text/html" } }),
    );
    await signInAlice(s2.session);
    expect(s2.session.getState().error).toEqual({ kind: "not-a-platform", address: BASE });
  });

  it("anything else keeps the platform's message", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 500, { code: 500, text: "Internal Error" });
    await signInAlice(session);
    expect(session.getState().error).toEqual({ kind: "other", message: "Internal Error", status: 500 });
  });

  it("a successful sign-in clears the previous error and captcha", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "Captcha required", captcha_required: true });
    await signInAlice(session);
    platform.overrides.length = 0;
    await signInAlice(session, { captcha: "ABCDE" });
    expect(session.getState()).toMatchObject({ status: "signed-in", error: null, captcha: null });
  });
});

describe("a platform that refuses with the spec's {code, text} alone", () => {
  it("asks for the captcha from the second wrong password on, by the spec's rule, and counts again after a success", async () => {
    const { session, platform, device } = setup();
    await signInAlice(session, { password: "wrong-1" });
    expect(session.getState()).toMatchObject({
      error: { kind: "wrong-credentials", attemptsLeft: null },
      captcha: null,
    });
    await signInAlice(session, { password: "wrong-2" });
    expect(session.getState()).toMatchObject({
      error: { kind: "wrong-credentials", attemptsLeft: null },
      captcha: { login: "agent1", pictureUrl: `${BASE}/api/captchas/7` },
    });

    // The platform does not say whether the password or the characters were wrong: both are said, with a new picture.
    await signInAlice(session, { password: "wrong-3", captcha: "ABCDE" });
    expect(session.getState().error).toEqual({ kind: "wrong-credentials-or-captcha" });
    expect(session.getState().captcha).not.toBeNull();
    expect(platform.calls.filter((c) => c.path === "/api/captchas")).toHaveLength(2);

    // The count is the browser's: a reload still asks for the picture.
    const again = setup({ platform, device });
    await signInAlice(again.session, { password: "wrong-4" });
    expect(again.session.getState().captcha).not.toBeNull();

    await signInAlice(again.session, { captcha: "ABCDE" });
    expect(again.session.getState().status).toBe("signed-in");
    await again.session.getState().signOut();
    await signInAlice(again.session, { password: "wrong-5" });
    expect(again.session.getState().captcha).toBeNull();
  });

  it("reads a lock and a disabled account from the refusal's words", async () => {
    const { session, platform } = setup();
    refuseSignIn(platform, 403, { code: 403, text: "User is locked until 2031-05-06 14:35:00" });
    await signInAlice(session);
    expect(session.getState().error).toEqual({
      kind: "locked",
      until: new Date(2031, 4, 6, 14, 35, 0).getTime(),
      untilText: "2031-05-06 14:35:00",
    });
    expect(session.getState().captcha).toBeNull();

    const s2 = setup();
    refuseSignIn(s2.platform, 403, { code: 403, text: "Account locked" });
    await signInAlice(s2.session);
    expect(s2.session.getState().error).toEqual({ kind: "locked", until: null, untilText: "" });
  });
});

describe("the session across a reload", () => {
  it("a reload finds the session kept in the tab and restores it without the password", async () => {
    const first = setup();
    await signInAlice(first.session);

    // A reload: new stores over the same storages and the same platform.
    const { session, platform } = setup({ tab: first.tab, device: first.device, platform: first.platform });
    expect(session.getState().status).toBe("restoring");
    await session.getState().restore();
    expect(session.getState()).toMatchObject({
      status: "signed-in",
      user: { login: "agent1", name: "Alice Agent", role: "agent" },
      platformUrl: BASE,
    });
    // The roles of the sign-in's system_roles are kept for the reload: users/info does not repeat them.
    expect(session.getState().user?.systemRoles).toEqual(["agent"]);
    expect(platform.calls.at(-1)).toMatchObject({ path: "/api/users/info", token: "token-1" });
    expect(platform.calls.filter((c) => c.path === "/api/sessions")).toHaveLength(1);
  });

  it("without a kept session the app starts signed out with the remembered login name", async () => {
    const first = setup();
    await signInAlice(first.session);
    await first.session.getState().signOut();
    const { session } = setup({ tab: first.tab, device: first.device });
    expect(session.getState()).toMatchObject({ status: "signed-out", login: "agent1", platformUrl: BASE });
    await session.getState().restore();
    expect(session.getState().status).toBe("signed-out");
  });

  it("a kept session the platform no longer knows ends as session-expired", async () => {
    const first = setup();
    await signInAlice(first.session);
    first.platform.endAllSessions();
    const { session, tab } = setup({ tab: first.tab, device: first.device, platform: first.platform });
    await session.getState().restore();
    expect(session.getState()).toMatchObject({ status: "session-expired", user: null, login: "agent1" });
    expect(tab.getItem(SESSION_KEY)).toBeNull();
  });

  it("an unreachable platform at reload shows the reason and keeps the session for the next try", async () => {
    const first = setup();
    await signInAlice(first.session);
    first.platform.overrides.push(() => {
      throw new TypeError("Failed to fetch");
    });
    const { session, tab } = setup({ tab: first.tab, device: first.device, platform: first.platform });
    await session.getState().restore();
    expect(session.getState()).toMatchObject({ status: "signed-out", error: { kind: "unreachable", address: BASE } });
    expect(tab.getItem(SESSION_KEY)).not.toBeNull();
  });

  it("a renewed JWT is kept, so that a reload uses the new one", async () => {
    const { session, tab } = setup();
    await signInAlice(session);
    await session.getState().client!.refreshNow();
    expect(JSON.parse(tab.getItem(SESSION_KEY)!)).toMatchObject({
      token: "token-2",
      refreshToken: "refresh-2",
      role: "agent",
    });
  });
});

describe("session end", () => {
  it("a 403 on a signed-in request ends the session: sign-in screen, login name kept", async () => {
    const { session, platform, tab } = setup();
    await signInAlice(session);
    const client = session.getState().client!;
    platform.endAllSessions();
    await expect(getCurrentUser(client)).rejects.toMatchObject({ status: 403 });
    expect(session.getState()).toMatchObject({
      status: "session-expired",
      user: null,
      client: null,
      login: "agent1",
      error: null,
    });
    expect(tab.getItem(SESSION_KEY)).toBeNull();

    await signInAlice(session);
    expect(session.getState().status).toBe("signed-in");
  });

  it("a reload after the session ended still says so, until the agent signs in again", async () => {
    const first = setup();
    await signInAlice(first.session);
    first.platform.endAllSessions();
    await expect(getCurrentUser(first.session.getState().client!)).rejects.toMatchObject({ status: 403 });

    const reloaded = setup({ tab: first.tab, device: first.device, platform: first.platform });
    await reloaded.session.getState().restore();
    expect(reloaded.session.getState()).toMatchObject({ status: "session-expired", login: "agent1" });

    await signInAlice(reloaded.session);
    const again = setup({ tab: first.tab, device: first.device, platform: first.platform });
    expect(again.session.getState().status).toBe("restoring");
    await again.session.getState().restore();
    expect(again.session.getState().status).toBe("signed-in");
  });

  it("sign-out ends the session on the platform and forgets it here", async () => {
    const { session, platform, tab, device } = setup();
    await signInAlice(session);
    const done = session.getState().signOut();
    expect(session.getState().status).toBe("signing-out");
    await done;
    expect(platform.calls.at(-1)).toMatchObject({ method: "DELETE", path: "/api/sessions", token: "token-1" });
    expect(platform.tokens.size).toBe(0);
    expect(session.getState()).toMatchObject({ status: "signed-out", user: null, client: null, login: "agent1" });
    expect(tab.getItem(SESSION_KEY)).toBeNull();
    expect(device.getItem(LOGIN_KEY)).toBe("agent1");
  });

  it("sign-out works when the platform is gone, and a refused sign-out is not a session expiry", async () => {
    const { session, platform } = setup();
    await signInAlice(session);
    platform.endAllSessions();
    await session.getState().signOut();
    expect(session.getState().status).toBe("signed-out");

    await signInAlice(session);
    platform.overrides.push(() => {
      throw new TypeError("Failed to fetch");
    });
    await session.getState().signOut();
    expect(session.getState().status).toBe("signed-out");
  });

  it("sign-out does not wait for a platform that never answers", async () => {
    vi.useFakeTimers();
    const { session, platform } = setup();
    await signInAlice(session);
    platform.overrides.push(() => new Promise<Response>(() => {}));
    const done = session.getState().signOut();
    await vi.advanceTimersByTimeAsync(5_000);
    await done;
    expect(session.getState().status).toBe("signed-out");
  });
});
