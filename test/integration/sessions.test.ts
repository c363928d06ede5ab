import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CARRIERS, DEMO_PASSWORD, carry, TestPlatform, type ErrorJson, type SessionJson } from "./harness";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

describe("POST /api/sessions and DELETE /api/sessions", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start();
  });
  afterAll(() => p.close());

  it("signs in with login and password and answers the spec's Session object with a UUID token", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await p.signIn("agent1");
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s).toEqual({
      code: 200,
      token: expect.stringMatching(UUID),
      expires: expect.any(Number),
      user_id: p.userId("agent1"),
      extn: "1001",
      currentAuthority: "agent",
      system_roles: { senior_roles_str: "", roles_str: "agent" },
    });
    // Default lifetime: 24 hours.
    expect(s.expires).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(s.expires).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 24 * 3600);
    expect(res.headers.get("set-cookie")).toMatch(new RegExp(`svc_xtra_session_id=${s.token};.*HttpOnly`, "i"));

    const info = await p.call<{ login: string }>("GET", "/api/users/info", { token: s.token });
    expect(info.status).toBe(200);
    expect(info.body.login).toBe("agent1");
  });

  it("tells administrators and supervisors apart in currentAuthority and system_roles", async () => {
    const admin = await p.session("admin");
    expect(admin.currentAuthority).toBe("admin");
    expect(admin.system_roles.senior_roles_str).toBe("admin");
    const sup = await p.session("supervisor");
    expect(sup.currentAuthority).toBe("supervisor");
    expect(sup.system_roles.roles_str).toBe("supervisor");
  });

  it("accepts an application/x-www-form-urlencoded sign-in, jwt given as the text 'true'", async () => {
    const res = await p.call<SessionJson>("POST", "/api/sessions", {
      form: { login: "agent2", password: DEMO_PASSWORD, jwt: "true" },
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(JWT);
    expect(res.body.refresh_token).toMatch(JWT);
    expect(res.body.user_id).toBe(p.userId("agent2"));
    const info = await p.call("GET", "/api/users/info", { token: res.body.token });
    expect(info.status).toBe(200);
  });

  it("gives a JWT plus refresh_token for jwt true or 'true' and a UUID for false or 'false'", async () => {
    for (const jwt of [true, "true"]) {
      const s = await p.session("agent1", { jwt });
      expect(s.token).toMatch(JWT);
      expect(s.refresh_token).toMatch(JWT);
    }
    for (const jwt of [false, "false"]) {
      const s = await p.session("agent1", { jwt });
      expect(s.token).toMatch(UUID);
      expect(s).not.toHaveProperty("refresh_token");
    }
  });

  it("refuses wrong credentials with 403 {code:403, text:'Wrong username or password'}", async () => {
    const wrong = await p.signIn("agent3", "Wrong@Pass1");
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 403, text: "Wrong username or password" });
    expect(wrong.body).not.toHaveProperty("token");
    const nobody = await p.signIn("no-such-user", "Wrong@Pass1");
    expect(nobody.status).toBe(403);
    expect(nobody.body).toMatchObject({ code: 403, text: "Wrong username or password" });
  });

  it("refuses a sign-in without password or developer key with 400 naming the field", async () => {
    const res = await p.call<ErrorJson>("POST", "/api/sessions", { body: { login: "agent1" } });
    expect(res.status).toBe(400);
    expect(res.body.text).toContain("'password'");
    const none = await p.call<ErrorJson>("POST", "/api/sessions", { body: {} });
    expect(none.status).toBe(400);
    expect(none.body.text).toContain("'login'");
  });

  it("signs out with {code:200, text:'OK'}; the token is then refused and a second sign-out gets 404", async () => {
    const token = await p.token("agent1");
    const out = await p.call("DELETE", "/api/sessions", { token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ code: 200, text: "OK" });
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    const again = await p.call("DELETE", "/api/sessions", { token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 404, text: "Session Does Not Exist" });
  });

  it("signs out with the token in the cookie and clears the cookie", async () => {
    const token = await p.token("agent2");
    const out = await p.call("DELETE", "/api/sessions", { token, carrier: "cookie" });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/svc_xtra_session_id=;/);
    expect((await p.call("GET", "/api/users/info", { token, carrier: "cookie" })).status).toBe(403);
  });

  it("refuses a sign-out without a token with 403", async () => {
    expect((await p.call("DELETE", "/api/sessions")).status).toBe(403);
  });

  it("refuses a disabled user's sign-in and the tokens they already hold", async () => {
    const admin = await p.token("admin");
    const token = await p.token("agent4");
    const id = p.userId("agent4");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { disabled: 1 } })).status).toBe(200);
    expect((await p.signIn("agent4")).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { disabled: 0 } })).status).toBe(200);
    expect((await p.signIn("agent4")).status).toBe(200);
  });
});

describe("token carriers", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start();
  });
  afterAll(() => p.close());

  for (const carrier of CARRIERS) {
    it(`accepts an ordinary token, a JWT and a developer key in the ${carrier} carrier`, async () => {
      const token = await p.token("agent1");
      const jwt = (await p.session("agent1", { jwt: true })).token;
      const key = await p.call<{ data: { k: string } }>("POST", `/api/users/${p.userId("agent1")}/dev_keys`, {
        token,
        body: { description: carrier },
      });
      for (const t of [token, jwt, key.body.data.k]) {
        const res = await p.call<{ login: string }>("GET", "/api/users/info", { token: t, carrier });
        expect(res.status).toBe(200);
        expect(res.body.login).toBe("agent1");
      }
    });

    it(`refuses a missing or wrong token in the ${carrier} carrier with 403`, async () => {
      const missing = await p.call<ErrorJson>("GET", "/api/users", { headers: carry("", carrier) });
      expect(missing.status).toBe(403);
      expect(missing.body.code).toBe(403);
      for (const wrong of ["00000000-0000-4000-8000-000000000000", "not-a-token", "a.b.c"]) {
        const res = await p.call<ErrorJson>("GET", "/api/users", { token: wrong, carrier });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe(403);
      }
    });
  }

  it("refuses a request that carries no token at all with 403", async () => {
    const res = await p.call<ErrorJson>("GET", "/api/users");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(403);
  });

  it("refuses a JWT signed with another key and a refresh token used as an access token", async () => {
    const s = await p.session("agent1", { jwt: true });
    const [h, body] = s.token.split(".");
    const forged = `${h}.${body}.${Buffer.from("x".repeat(32)).toString("base64url")}`;
    expect((await p.call("GET", "/api/users/info", { token: forged })).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token: s.refresh_token! })).status).toBe(403);
  });

  it("refuses an extension token as a REST credential", async () => {
    const token = await p.token("agent1");
    const ext = await p.call<{ token: string }>("POST", "/api/users/extn_token", {
      token,
      body: { extn: "1001", domain: "agentbar.local" },
    });
    expect(ext.status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: ext.body.token })).status).toBe(403);
  });
});

describe("JWT refresh and revocation", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start();
  });
  afterAll(() => p.close());

  it("renews with {refresh_token}: a new pair that works; the used refresh token is refused", async () => {
    const first = await p.session("agent1", { jwt: true });
    const res = await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: first.refresh_token } });
    expect(res.status).toBe(200);
    const next = res.body;
    expect(next).toMatchObject({ code: 200, user_id: p.userId("agent1"), extn: "1001", currentAuthority: "agent" });
    expect(next.token).toMatch(JWT);
    expect(next.refresh_token).toMatch(JWT);
    expect(next.token).not.toBe(first.token);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect((await p.call("GET", "/api/users/info", { token: next.token, carrier: "bearer" })).status).toBe(200);

    const again = await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: next.refresh_token } });
    expect(again.status).toBe(200);

    // A spent refresh token presented again ends the whole session (security-sessions.test.ts).
    const reused = await p.call<ErrorJson>("POST", "/api/sessions", { body: { refresh_token: first.refresh_token } });
    expect(reused.status).toBe(403);
    expect(reused.body.code).toBe(403);
  });

  it("refuses an access token or garbage in place of a refresh token", async () => {
    const s = await p.session("agent1", { jwt: true });
    for (const refresh_token of [s.token, "garbage"]) {
      const res = await p.call("POST", "/api/sessions", { body: { refresh_token } });
      expect(res.status).toBe(403);
    }
  });

  it("sign-out revokes the JWT and its refresh token", async () => {
    const s = await p.session("agent2", { jwt: true });
    expect((await p.call("DELETE", "/api/sessions", { token: s.token, carrier: "bearer" })).status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: s.token, carrier: "bearer" })).status).toBe(403);
    const refresh = await p.call("POST", "/api/sessions", { body: { refresh_token: s.refresh_token } });
    expect(refresh.status).toBe(403);
  });

  it("sign-out after a refresh ends the whole session, older access tokens included", async () => {
    const first = await p.session("agent3", { jwt: true });
    const next = (await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: first.refresh_token } }))
      .body;
    expect((await p.call("DELETE", "/api/sessions", { token: next.token })).status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: first.token })).status).toBe(403);
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: next.refresh_token } })).status).toBe(403);
  });
});

describe("lifetime (session_expires)", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ sessionExpires: 1, refreshExpires: 4 });
  });
  afterAll(() => p.close());

  it("refuses an expired ordinary token and an expired JWT in every carrier with 403; the refresh token outlives them", async () => {
    const ordinary = await p.session("agent1");
    const jwt = await p.session("agent2", { jwt: true });
    const untouched = await p.session("agent4");
    expect(ordinary.expires - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(1);
    p.clock.passSecond(Math.max(ordinary.expires, jwt.expires, untouched.expires));

    for (const carrier of CARRIERS) {
      for (const token of [ordinary.token, jwt.token]) {
        const res = await p.call<ErrorJson>("GET", "/api/users/info", { token, carrier });
        expect(res.status, `${carrier} ${token === jwt.token ? "JWT" : "token"}`).toBe(403);
        expect(res.body.code).toBe(403);
      }
    }

    const renewed = await p.call<SessionJson>("POST", "/api/sessions", { body: { refresh_token: jwt.refresh_token } });
    expect(renewed.status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: renewed.body.token })).status).toBe(200);

    // The session is over: signing out of it is signing out of nothing.
    const out = await p.call("DELETE", "/api/sessions", { token: untouched.token });
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ code: 404, text: "Session Does Not Exist" });
  });

  it("refuses an expired refresh token: only login and password work then", async () => {
    const s = await p.session("agent3", { jwt: true });
    const refreshExpires = JSON.parse(Buffer.from(s.refresh_token!.split(".")[1]!, "base64url").toString())
      .exp as number;
    p.clock.passSecond(refreshExpires);
    const res = await p.call("POST", "/api/sessions", { body: { refresh_token: s.refresh_token } });
    expect(res.status).toBe(403);
    expect((await p.signIn("agent3")).status).toBe(200);
  });
});

describe("web cookie: the lifetime counts from the previous request", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ sessionExpires: 2 });
  });
  afterAll(() => p.close());

  it("keeps a cookie session alive while it is used and ends it after a longer gap", async () => {
    const cookie = await p.token("agent1");
    const header = await p.token("agent2");

    p.clock.advance(1200);
    const first = await p.call("GET", "/api/users/info", { token: cookie, carrier: "cookie" });
    expect(first.status).toBe(200);
    // The browser's copy of the cookie must slide too, or it would vanish while in use.
    expect(first.headers.get("set-cookie")).toMatch(new RegExp(`svc_xtra_session_id=${cookie};.*Max-Age=2`, "i"));

    p.clock.advance(1200);
    // Past the first window: the cookie lives on, a token used in a header does not slide.
    expect((await p.call("GET", "/api/users/info", { token: cookie, carrier: "cookie" })).status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: header })).status).toBe(403);

    p.clock.advance(2300);
    expect((await p.call("GET", "/api/users/info", { token: cookie, carrier: "cookie" })).status).toBe(403);
  });
});
