import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, TestPlatform, type SessionJson } from "./harness";
import { RpcClient } from "./rpc-client";

/**
 * Sessions end when credentials change: after a password change or while the user is disabled,
 * no token issued before works again (ordinary, JWT, refresh, cookie, extension token, an open
 * event channel), and a spent refresh token presented again ends its whole session.
 */
let p: TestPlatform;
let admin: string;
const clients: RpcClient[] = [];

beforeAll(async () => {
  p = await TestPlatform.start();
  admin = await p.token("admin");
});
afterAll(async () => {
  for (const c of clients) c.close();
  await p.close();
});

const NEW_PASSWORD = "Changed@2027";

/** Every credential a signed-in user may hold, each shown to work. */
async function credentialsOf(login: string, extn: string) {
  const ordinary = await p.token(login);
  const jwt = await p.session(login, { jwt: true });
  const extension = (
    await p.call<{ token: string }>("POST", "/api/users/extn_token", {
      token: ordinary,
      body: { extn, domain: DEMO_DOMAIN },
    })
  ).body.token;
  const channel = await RpcClient.connect(p.url);
  clients.push(channel);
  expect((await channel.login(ordinary, `${extn}@${DEMO_DOMAIN}`)).result).toMatchObject({ message: "logged in" });
  for (const token of [ordinary, jwt.token])
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(200);
  expect((await p.call("GET", "/api/users/info", { token: ordinary, carrier: "cookie" })).status).toBe(200);
  return { ordinary, jwt, extension, channel };
}

/** None of them works any more, and the open channel has been closed. */
async function expectAllEnded(c: Awaited<ReturnType<typeof credentialsOf>>, extn: string) {
  for (const token of [c.ordinary, c.jwt.token])
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
  expect((await p.call("GET", "/api/users/info", { token: c.ordinary, carrier: "cookie" })).status).toBe(403);
  expect((await p.call("POST", "/api/sessions", { body: { refresh_token: c.jwt.refresh_token } })).status).toBe(403);
  const late = await RpcClient.connect(p.url);
  clients.push(late);
  expect((await late.login(c.extension, `${extn}@${DEMO_DOMAIN}`)).error).toMatchObject({ code: -32001 });
  await c.channel.until(() => c.channel.closed);
}

describe("a password change", () => {
  it("ends every session of the user; the new password signs in at once", async () => {
    const id = p.userId("agent3");
    const before = await credentialsOf("agent3", "1003");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { password: NEW_PASSWORD } })).status).toBe(
      200,
    );
    await expectAllEnded(before, "1003");

    const fresh = await p.signIn("agent3", NEW_PASSWORD, { jwt: true });
    expect(fresh.status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: fresh.body.token })).status).toBe(200);
    // Other users keep their sessions.
    expect((await p.call("GET", "/api/users/info", { token: admin })).status).toBe(200);
  });

  it("ends the sessions of the administrator who changes their own password too", async () => {
    const own = await p.token("supervisor");
    const changer = await p.token("admin");
    const id = p.userId("admin");
    expect((await p.call("PUT", `/api/users/${id}`, { token: changer, body: { password: NEW_PASSWORD } })).status).toBe(
      200,
    );
    expect((await p.call("GET", "/api/users/info", { token: changer })).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token: own })).status).toBe(200);
    admin = (await p.signIn("admin", NEW_PASSWORD)).body.token;
  });
});

describe("disabling a user", () => {
  it("ends every session, and enabling the user again brings none of them back", async () => {
    const id = p.userId("agent4");
    const before = await credentialsOf("agent4", "1004");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { disabled: 1 } })).status).toBe(200);
    await expectAllEnded(before, "1004");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { disabled: 0 } })).status).toBe(200);
    for (const token of [before.ordinary, before.jwt.token])
      expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: before.jwt.refresh_token } })).status).toBe(
      403,
    );
    expect((await p.signIn("agent4")).status).toBe(200);
  });

  it("ends the sessions of a deleted user", async () => {
    const created = await p.call<{ data: number }>("POST", "/api/users", {
      token: admin,
      body: { login: "temp", name: "Temp", password: "Temp@2026x" },
    });
    const temp = (await p.signIn("temp", "Temp@2026x")).body.token;
    expect((await p.call("DELETE", `/api/users/${created.body.data}`, { token: admin })).status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: temp })).status).toBe(403);
  });
});

describe("a spent refresh token presented again", () => {
  it("ends the whole session it belongs to: every access and refresh token renewed from it", async () => {
    const first = await p.session("agent1", { jwt: true });
    const second = (
      await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: first.refresh_token } })
    ).body;
    const third = (
      await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: second.refresh_token } })
    ).body;
    expect((await p.call("GET", "/api/users/info", { token: third.token })).status).toBe(200);
    const other = await p.session("agent1", { jwt: true });

    // Someone replays the first refresh token: the thief or the owner, nobody can tell which.
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: first.refresh_token } })).status).toBe(403);

    for (const token of [first.token, second.token, third.token])
      expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: third.refresh_token } })).status).toBe(403);
    // Another sign-in of the same user is another session and goes on.
    expect((await p.call("GET", "/api/users/info", { token: other.token })).status).toBe(200);
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: other.refresh_token } })).status).toBe(200);
  });
});
