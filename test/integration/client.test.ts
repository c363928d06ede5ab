import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  PlatformError,
  captchaPictureUrl,
  createDevKey,
  createUser,
  credentialsOf,
  deleteAllDevKeys,
  deleteDevKey,
  deleteUser,
  getCaptcha,
  getCurrentUser,
  getExtensionToken,
  getUser,
  getUserExtensions,
  getUserQueueNames,
  listDevKeys,
  listUsers,
  refreshSession,
  signIn,
  signOut,
  toggleDevKey,
  updateUser,
  type PlatformClient,
} from "../../src/api";
import { DEMO_DOMAIN, DEMO_PASSWORD, TestPlatform } from "./harness";

/** What the client raises, to look at. */
async function failure(p: Promise<unknown>): Promise<PlatformError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PlatformError);
  return e as PlatformError;
}

describe("the REST client against the local platform", () => {
  let p: TestPlatform;
  const clients: PlatformClient[] = [];
  const onSessionExpired = vi.fn();

  beforeAll(async () => {
    p = await TestPlatform.start();
  });
  afterAll(async () => {
    for (const c of clients) c.dispose();
    await p.close();
  });

  async function signedIn(login: string, jwt = false): Promise<PlatformClient> {
    const client = p.client({ onSessionExpired });
    clients.push(client);
    const session = await signIn(client, { login, password: DEMO_PASSWORD, jwt });
    client.setCredentials(credentialsOf(session));
    return client;
  }

  it("signs in and decodes the session and the current user", async () => {
    const client = p.client();
    clients.push(client);
    const session = await signIn(client, { login: "agent1", password: DEMO_PASSWORD, jwt: true });
    expect(session).toMatchObject({
      user_id: String(p.userId("agent1")),
      extn: "1001",
      currentAuthority: "agent",
      system_roles: { roles_str: "agent" },
      refresh_token: expect.any(String),
    });
    client.setCredentials(credentialsOf(session));
    const me = await getCurrentUser(client);
    expect(me).toMatchObject({
      login: "agent1",
      name: "Alice Agent",
      extn: "1001",
      type: "AGENT",
      currentAuthority: "agent",
    });
    expect(me.agent_info).toMatchObject({ status: "On Break", wrap_up_time: "10" });
  });

  it("raises a PlatformError for refused credentials, with the platform's text and details, and no session-expired signal", async () => {
    onSessionExpired.mockClear();
    const client = p.client({ onSessionExpired });
    clients.push(client);
    const e = await failure(signIn(client, { login: "agent2", password: "Not@Right1" }));
    expect(e).toMatchObject({
      kind: "http",
      status: 403,
      code: 403,
      message: "Wrong username or password",
      endpoint: "POST /api/sessions",
    });
    expect(e.detail("attempts_left")).toBe(4);
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("renews a JWT with its refresh token; the used refresh token is then refused", async () => {
    const client = await signedIn("agent1", true);
    const first = client.session!;
    await client.refreshNow();
    const second = client.session!;
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).toBeTruthy();
    expect((await getCurrentUser(client)).login).toBe("agent1");
    const e = await failure(refreshSession(p.client(), first.refreshToken!));
    expect(e.status).toBe(403);
  });

  it("gets an extension token for the user's own extension and is refused another's without ending the session", async () => {
    onSessionExpired.mockClear();
    const client = await signedIn("agent1");
    const t = await getExtensionToken(client, "1001", DEMO_DOMAIN);
    expect(t).toEqual({ extn_id: expect.stringMatching(/^\d+$/), token: expect.any(String), domain: DEMO_DOMAIN });
    const jwt = await getExtensionToken(client, "1001", DEMO_DOMAIN, true);
    expect(jwt.token.split(".")).toHaveLength(3);
    const e = await failure(getExtensionToken(client, "1002", DEMO_DOMAIN));
    expect(e).toMatchObject({ status: 403, message: "no permission" });
    expect(onSessionExpired).not.toHaveBeenCalled();
    expect((await getCurrentUser(client)).login).toBe("agent1");
  });

  it("decodes the user directory, one user, extensions and queue names", async () => {
    const client = await signedIn("agent2");
    const all = await listUsers(client);
    expect(all.rowCount).toBe(6);
    expect(all.data.map((u) => u.login)).toContain("agent2");
    const agents = await listUsers(client, {
      type: "AGENT",
      page: 1,
      perPage: 3,
      sortField: "login",
      sortOrder: "desc",
    });
    expect(agents).toMatchObject({ rowCount: 4, page: 1, pageCount: 2 });
    expect(agents.data.map((u) => u.login)).toEqual(["agent4", "agent3", "agent2"]);
    const id = String(p.userId("agent2"));
    const bob = await getUser(client, id);
    expect(bob).toMatchObject({ id, login: "agent2", extn: "1002", extn_id: expect.stringMatching(/^\d+$/) });
    const exts = await getUserExtensions(client, id);
    expect(exts).toEqual([expect.objectContaining({ extn: "1002", domain: DEMO_DOMAIN, user_id: id })]);
    expect(await getUserQueueNames(client, id)).toEqual(["sales", "support"]);
    const missing = await failure(getUser(client, "99999"));
    expect(missing).toMatchObject({ kind: "http", status: 404 });
  });

  it("creates, changes and deletes a user as an administrator", async () => {
    const admin = await signedIn("admin");
    const created = await createUser(admin, {
      login: "cli-agent",
      name: "Client Agent",
      password: "Client@Pass1",
      type: "AGENT",
      extn: "1050",
      context: "context-1",
    });
    expect(created).toEqual({ id: expect.stringMatching(/^\d+$/), extn_id: expect.stringMatching(/^\d+$/) });
    expect(await updateUser(admin, created.id, { name: "Client Agent II" })).toBe(created.id);
    expect((await getUser(admin, created.id)).name).toBe("Client Agent II");
    const plain = await createUser(admin, { login: "cli-normal", name: "Client Normal", password: "Client@Pass1" });
    expect(plain).toEqual({ id: expect.stringMatching(/^\d+$/) });
    await deleteUser(admin, created.id);
    expect((await failure(getUser(admin, created.id))).status).toBe(404);

    const weak = await failure(createUser(admin, { login: "cli-weak", name: "Weak", password: "weak" }));
    expect(weak).toMatchObject({
      kind: "http",
      status: 400,
      message: expect.stringContaining("password must be at least 8"),
    });
  });

  it("manages developer keys, and another user's keys are refused without ending the session", async () => {
    onSessionExpired.mockClear();
    const client = await signedIn("agent3");
    const id = String(p.userId("agent3"));
    const key = await createDevKey(client, id, "integration");
    expect(key).toMatchObject({
      userId: id,
      description: "integration",
      enabled: true,
      key: expect.stringMatching(/^[0-9a-f]+$/),
    });
    expect((await listDevKeys(client, id)).map((k) => k.id)).toEqual([key.id]);
    expect((await toggleDevKey(client, id, key.id)).enabled).toBe(false);
    expect((await toggleDevKey(client, id, key.id)).enabled).toBe(true);

    const keyClient = p.client();
    clients.push(keyClient);
    keyClient.setCredentials({ token: key.key, expires: 0 });
    expect((await getCurrentUser(keyClient)).login).toBe("agent3");

    await deleteDevKey(client, id, key.id);
    expect(await listDevKeys(client, id)).toEqual([]);
    await createDevKey(client, id, "one");
    await createDevKey(client, id, "two");
    await deleteAllDevKeys(client, id);
    expect(await listDevKeys(client, id)).toEqual([]);

    const other = await failure(listDevKeys(client, String(p.userId("agent1"))));
    expect(other).toMatchObject({ kind: "http", status: 403, code: 403, message: "Wrong Auth Id" });
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("signals a session ended by the platform once, so the app can sign in again", async () => {
    onSessionExpired.mockClear();
    const client = await signedIn("agent4");
    // The same session ended elsewhere (another tab signed out).
    expect((await p.call("DELETE", "/api/sessions", { token: client.session!.token })).status).toBe(200);
    const e = await failure(getCurrentUser(client));
    expect(e).toMatchObject({ kind: "http", status: 403 });
    await failure(listUsers(client));
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
    expect(onSessionExpired).toHaveBeenCalledWith(e);
  });

  it("signs out: the token is revoked and the client forgets it", async () => {
    onSessionExpired.mockClear();
    const client = await signedIn("agent1", true);
    const token = client.session!.token;
    expect(await signOut(client)).toEqual({ code: 200, text: "OK" });
    expect(client.session).toBeNull();
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it("fetches a captcha whose picture address works", async () => {
    const client = p.client();
    const captcha = await getCaptcha(client, "agent1");
    expect(captcha.captcha_id).toMatch(/^\d+$/);
    const res = await fetch(captchaPictureUrl(client, captcha));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/svg/);
  });
});

describe("the REST client keeps a JWT session alive past the first token's lifetime", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ sessionExpires: 3, refreshExpires: 30 });
  });
  afterAll(() => p.close());

  it("renews in the background before the token expires", async () => {
    const onSessionExpired = vi.fn();
    const client = p.client({ onSessionExpired, refreshMarginSeconds: 1 });
    try {
      const session = await signIn(client, { login: "agent1", password: DEMO_PASSWORD, jwt: true });
      client.setCredentials(credentialsOf(session));
      await vi.waitFor(() => expect(client.session!.token).not.toBe(session.token), { timeout: 10_000 });
      p.clock.passSecond(session.expires);
      // The first token is over; the client's current one is not.
      expect((await p.call("GET", "/api/users/info", { token: session.token })).status).toBe(403);
      expect(client.session!.token).not.toBe(session.token);
      expect((await getCurrentUser(client)).login).toBe("agent1");
      expect(onSessionExpired).not.toHaveBeenCalled();
    } finally {
      client.dispose();
    }
  });
});
