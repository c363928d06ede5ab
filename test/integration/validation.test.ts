import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, DEMO_PASSWORD, TestPlatform } from "./harness";

interface ErrorJson {
  code: number;
  text: string;
}

describe("bad requests get a clear 400 and change nothing", () => {
  let p: TestPlatform;
  let admin: string;
  let agent1: string;
  let agent1Id: number;
  let keyId: number;

  beforeAll(async () => {
    p = await TestPlatform.start();
    admin = await p.token("admin");
    agent1 = await p.token("agent1");
    agent1Id = p.userId("agent1");
    const key = await p.call<{ data: { id: number } }>("POST", `/api/users/${agent1Id}/dev_keys`, {
      token: agent1,
      body: {},
    });
    keyId = key.body.data.id;
  });
  afterAll(() => p.close());

  /** Sends a request that must be refused with 400 naming `mentions`, and proves nothing was written. */
  async function refused(
    method: string,
    path: string,
    request: { body?: unknown; raw?: string; token?: string },
    mentions: string,
  ) {
    const before = p.snapshot();
    const res = await p.call<ErrorJson>(method, path, { token: admin, ...request });
    expect(res.status, `${method} ${path} ${request.raw ?? JSON.stringify(request.body)}`).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.text).toContain(mentions);
    expect(p.snapshot()).toEqual(before);
    return res.body.text;
  }

  const writes = () => [
    ["POST", "/api/sessions"],
    ["POST", "/api/users"],
    ["PUT", `/api/users/${agent1Id}`],
    ["POST", "/api/users/extn_token"],
    ["POST", `/api/users/${agent1Id}/dev_keys`],
    ["PUT", `/api/users/${agent1Id}/dev_keys/${keyId}`],
  ];

  it("refuses malformed JSON with a message saying so", async () => {
    for (const [method, path] of writes()) {
      for (const raw of ['{"login": "agent1",', "{login: agent1}", "[1, 2", "'x'"]) {
        const text = await refused(method!, path!, { raw }, "JSON");
        expect(text).toMatch(/malformed JSON/i);
      }
    }
  });

  it("refuses a body that is JSON but not an object", async () => {
    for (const [method, path] of writes()) {
      for (const raw of ["[]", '"agent1"', "42", "true"]) await refused(method!, path!, { raw }, "body must be");
    }
  });

  it("refuses unknown fields, naming them", async () => {
    await refused(
      "POST",
      "/api/sessions",
      { body: { login: "agent1", password: "Wrong@Pass9", remember: true } },
      "'remember'",
    );
    await refused(
      "POST",
      "/api/users",
      { body: { login: "zed", name: "Zed", password: "Zed@Pass123", salary: 1000 } },
      "'salary'",
    );
    await refused("PUT", `/api/users/${agent1Id}`, { body: { name: "A", nickname: "Al" } }, "'nickname'");
    await refused(
      "PUT",
      `/api/users/${agent1Id}`,
      { body: { request: { action: "toggle", extn_id: 1, now: true } } },
      "'request.now'",
    );
    await refused(
      "POST",
      "/api/users/extn_token",
      { body: { extn: "1001", domain: DEMO_DOMAIN, ttl: 60 }, token: agent1 },
      "'ttl'",
    );
  });

  it("refuses wrong types, naming the field", async () => {
    await refused("POST", "/api/sessions", { body: { login: 1001, password: DEMO_PASSWORD } }, "'login'");
    await refused("POST", "/api/sessions", { body: { login: "agent1", password: DEMO_PASSWORD, jwt: "yes" } }, "'jwt'");
    await refused(
      "POST",
      "/api/users",
      { body: { login: "zed", name: "Zed", password: "Zed@Pass123", type: "BOSS" } },
      "'type'",
    );
    await refused(
      "POST",
      "/api/users",
      { body: { login: "zed", name: "Zed", password: "Zed@Pass123", auto_record: "1" } },
      "'auto_record'",
    );
    await refused(
      "POST",
      "/api/users",
      { body: { login: "zed", name: "Zed", password: "Zed@Pass123", agent_info: "callback" } },
      "'agent_info'",
    );
    await refused("PUT", `/api/users/${agent1Id}`, { body: { disabled: true } }, "'disabled'");
    await refused(
      "PUT",
      `/api/users/${agent1Id}`,
      { body: { request: { action: "toggle", extn_id: "1" } } },
      "'request.extn_id'",
    );
    await refused(
      "POST",
      "/api/users/extn_token",
      { body: { extn: 1001, domain: DEMO_DOMAIN }, token: agent1 },
      "'extn'",
    );
  });

  it("refuses missing required fields, naming them", async () => {
    await refused("POST", "/api/users", { body: { name: "Zed", password: "Zed@Pass123" } }, "'login'");
    await refused("POST", "/api/users", { body: { login: "zed", password: "Zed@Pass123" } }, "'name'");
    await refused("POST", "/api/users", { body: { login: "zed", name: "Zed" } }, "'password'");
    await refused("PUT", `/api/users/${agent1Id}`, { body: { request: { action: "toggle" } } }, "'request.extn_id'");
    await refused("POST", "/api/users/extn_token", { body: { domain: DEMO_DOMAIN }, token: agent1 }, "'extn'");
  });

  it("refuses a change of login to one already taken", async () => {
    await refused("PUT", `/api/users/${agent1Id}`, { body: { login: "agent2" } }, "'agent2'");
  });

  it("does not count a malformed sign-in as a failed attempt", async () => {
    await refused("POST", "/api/sessions", { raw: '{"login":"agent3","password":"nope"' }, "JSON");
    const res = await p.signIn("agent3", "Wrong@Pass9");
    expect(res.body).toMatchObject({ attempts_left: 4 });
  });
});

describe("routes", () => {
  let p: TestPlatform;
  let token: string;
  beforeAll(async () => {
    p = await TestPlatform.start();
    token = await p.token("agent1");
  });
  afterAll(() => p.close());

  it("answers an unknown API route with 404 {code, text}, with or without a token", async () => {
    for (const t of [token, undefined]) {
      for (const [method, path] of [
        ["GET", "/api/nothing"],
        ["POST", "/api/users/1/nothing"],
        ["PATCH", "/api/users/1"],
        ["GET", "/api"],
      ] as const) {
        const res = await p.call<ErrorJson>(method, path, { ...(t ? { token: t } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ code: 404, text: expect.stringContaining(path) });
      }
    }
  });

  it("treats a trailing slash like none", async () => {
    const res = await p.call<{ rowCount: number }>("GET", "/api/users/", { token });
    expect(res.status).toBe(200);
    expect(res.body.rowCount).toBe(6);
  });
});
