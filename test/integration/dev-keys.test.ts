import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestPlatform, type SessionJson } from "./harness";

interface DevKeyJson {
  id: number;
  user_id: number;
  k: string;
  description: string;
  enabled: number;
  created_at: string;
  updated_at: string;
  deleted_at: string;
}

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe("developer keys", () => {
  let p: TestPlatform;
  let agent1: string;
  let agent1Id: number;
  let agent2Id: number;
  let admin: string;
  const keys = (userId: number) => `/api/users/${userId}/dev_keys`;

  beforeAll(async () => {
    p = await TestPlatform.start();
    agent1 = await p.token("agent1");
    admin = await p.token("admin");
    agent1Id = p.userId("agent1");
    agent2Id = p.userId("agent2");
  });
  afterAll(() => p.close());

  const create = async (token: string, userId: number, description?: string) => {
    const res = await p.call<Envelope<DevKeyJson>>("POST", keys(userId), {
      token,
      ...(description !== undefined ? { body: { description } } : {}),
    });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const works = async (key: string) => (await p.call("GET", "/api/users/info", { token: key })).status === 200;

  it("creates a key for the caller: envelope whose data is the key object", async () => {
    const res = await p.call<Envelope<DevKeyJson>>("POST", keys(agent1Id), {
      token: agent1,
      body: { description: "CRM sync" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: "success",
      data: {
        id: expect.any(Number),
        user_id: agent1Id,
        k: expect.stringMatching(/^[0-9a-f]{32,}$/),
        description: "CRM sync",
        enabled: 1,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        deleted_at: "",
      },
    });
    const key = res.body.data.k;
    const info = await p.call<{ login: string }>("GET", "/api/users/info", { token: key });
    expect(info.body.login).toBe("agent1");
  });

  it("creates a key without a body (the description is optional)", async () => {
    const key = await create(agent1, agent1Id);
    expect(key.description).toBe("");
    expect(await works(key.k)).toBe(true);
  });

  it("lists the caller's keys as an array", async () => {
    const mine = await create(agent1, agent1Id, "listed");
    const res = await p.call<DevKeyJson[]>("GET", keys(agent1Id), { token: agent1 });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toContainEqual(mine);
    expect(res.body.every((k) => k.user_id === agent1Id)).toBe(true);
    const empty = await p.call("GET", keys(p.userId("agent4")), { token: await p.token("agent4") });
    expect(empty.body).toEqual([]);
  });

  it("toggles a key off and on; a disabled key neither authenticates nor signs in", async () => {
    const key = await create(agent1, agent1Id, "toggle");
    const off = await p.call<Envelope<DevKeyJson>>("PUT", `${keys(agent1Id)}/${key.id}`, {
      token: agent1,
      body: { action: "toggle" },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ code: 200, message: "success", data: { id: key.id, enabled: 0, k: key.k } });
    expect(await works(key.k)).toBe(false);
    expect((await p.call("POST", "/api/sessions", { body: { dev_key: key.k } })).status).toBe(403);

    const on = await p.call<Envelope<DevKeyJson>>("PUT", `${keys(agent1Id)}/${key.id}`, {
      token: agent1,
      body: { action: "toggle" },
    });
    expect(on.body.data.enabled).toBe(1);
    expect(await works(key.k)).toBe(true);
  });

  it("updates key fields", async () => {
    const key = await create(agent1, agent1Id, "before");
    const res = await p.call<Envelope<DevKeyJson>>("PUT", `${keys(agent1Id)}/${key.id}`, {
      token: agent1,
      body: { description: "after", enabled: 0 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: key.id, description: "after", enabled: 0 });
    const listed = (await p.call<DevKeyJson[]>("GET", keys(agent1Id), { token: agent1 })).body.find(
      (k) => k.id === key.id,
    );
    expect(listed).toMatchObject({ description: "after", enabled: 0 });
  });

  it("takes enabled as a number or a numeric string, as the spec types it", async () => {
    const key = await create(agent1, agent1Id, "numeric");
    const put = (enabled: unknown) =>
      p.call<Envelope<DevKeyJson>>("PUT", `${keys(agent1Id)}/${key.id}`, { token: agent1, body: { enabled } });
    expect((await put("0")).body.data.enabled).toBe(0);
    expect(await works(key.k)).toBe(false);
    expect((await put("1")).body.data.enabled).toBe(1);
    expect(await works(key.k)).toBe(true);
    expect((await put(0)).body.data.enabled).toBe(0);
    expect((await put(1)).body.data.enabled).toBe(1);
  });

  it("answers 406 'Missing Args' for an update without fields and for a non-numeric id", async () => {
    const key = await create(agent1, agent1Id);
    const empty = await p.call("PUT", `${keys(agent1Id)}/${key.id}`, { token: agent1, body: {} });
    expect(empty.status).toBe(406);
    expect(empty.body).toEqual({ code: 406, text: "Missing Args" });
    const badUser = await p.call("GET", "/api/users/abc/dev_keys", { token: agent1 });
    expect(badUser.status).toBe(406);
    expect(badUser.body).toEqual({ code: 406, text: "Missing Args" });
    const badKey = await p.call("DELETE", `${keys(agent1Id)}/abc`, { token: agent1 });
    expect(badKey.status).toBe(406);
  });

  it("refuses a wrongly typed or unknown field with 400 naming it, and changes nothing", async () => {
    const key = await create(agent1, agent1Id, "typed");
    const before = p.snapshot();
    for (const enabled of ["off", "2", 2, true, "", null]) {
      const wrongType = await p.call<{ text: string }>("PUT", `${keys(agent1Id)}/${key.id}`, {
        token: agent1,
        body: { enabled },
      });
      expect(wrongType.status, JSON.stringify(enabled)).toBe(400);
      expect(wrongType.body.text).toContain("'enabled'");
    }
    const unknown = await p.call<{ text: string }>("PUT", `${keys(agent1Id)}/${key.id}`, {
      token: agent1,
      body: { description: "x", k: "my-own-key" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.text).toContain("'k'");
    const badCreate = await p.call<{ text: string }>("POST", keys(agent1Id), {
      token: agent1,
      body: { description: 42 },
    });
    expect(badCreate.status).toBe(400);
    expect(badCreate.body.text).toContain("'description'");
    expect(p.snapshot()).toEqual(before);
  });

  it("deletes one key: envelope whose data is the key id; the key stops working", async () => {
    const key = await create(agent1, agent1Id, "delete me");
    const res = await p.call("DELETE", `${keys(agent1Id)}/${key.id}`, { token: agent1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: "success", data: String(key.id) });
    expect(await works(key.k)).toBe(false);
    const listed = (await p.call<DevKeyJson[]>("GET", keys(agent1Id), { token: agent1 })).body;
    expect(listed.map((k) => k.id)).not.toContain(key.id);
    expect((await p.call("DELETE", `${keys(agent1Id)}/${key.id}`, { token: agent1 })).status).toBe(404);
  });

  it("deletes all of a user's keys, with the Content-Type header the spec shows, answering {code, text}", async () => {
    const token = await p.token("agent3");
    const id = p.userId("agent3");
    const a = await create(token, id, "a");
    const b = await create(token, id, "b");
    const res = await p.call("DELETE", keys(id), { token, headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, text: "OK" });
    expect(await works(a.k)).toBe(false);
    expect(await works(b.k)).toBe(false);
    expect((await p.call("GET", keys(id), { token })).body).toEqual([]);
    // The caller's own session is not a key: it goes on.
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(200);
  });

  it("refuses to let a user see or manage another user's keys: 403 'Wrong Auth Id', nothing changes", async () => {
    const theirs = await create(admin, agent2Id, "agent2's");
    const before = p.snapshot();
    const attempts: [string, string, unknown?][] = [
      ["GET", keys(agent2Id)],
      ["POST", keys(agent2Id), { description: "sneaky" }],
      ["PUT", `${keys(agent2Id)}/${theirs.id}`, { action: "toggle" }],
      ["DELETE", `${keys(agent2Id)}/${theirs.id}`],
      ["DELETE", keys(agent2Id)],
    ];
    for (const [method, path, body] of attempts) {
      const res = await p.call(method, path, { token: agent1, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ code: 403, text: "Wrong Auth Id" });
    }
    // Under one's own path, another user's key is not found either.
    expect(
      (await p.call("PUT", `${keys(agent1Id)}/${theirs.id}`, { token: agent1, body: { action: "toggle" } })).status,
    ).toBe(404);
    expect(p.snapshot()).toEqual(before);
    expect(await works(theirs.k)).toBe(true);
  });

  it("lets an administrator create, list and delete another user's keys", async () => {
    const key = await create(admin, agent2Id, "made by admin");
    expect(key.user_id).toBe(agent2Id);
    const info = await p.call<{ login: string }>("GET", "/api/users/info", { token: key.k });
    expect(info.body.login).toBe("agent2");
    const listed = await p.call<DevKeyJson[]>("GET", keys(agent2Id), { token: admin });
    expect(listed.body.map((k) => k.id)).toContain(key.id);
    expect((await p.call("DELETE", `${keys(agent2Id)}/${key.id}`, { token: admin })).status).toBe(200);
    expect(await works(key.k)).toBe(false);
  });

  it("signs in with a developer key instead of a password (with or without the login)", async () => {
    const key = await create(agent1, agent1Id, "sign-in");
    const bare = await p.call<SessionJson>("POST", "/api/sessions", { body: { dev_key: key.k } });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ code: 200, user_id: agent1Id, extn: "1001" });
    expect(await works(bare.body.token)).toBe(true);
    const withLogin = await p.call<SessionJson>("POST", "/api/sessions", { form: { login: "agent1", dev_key: key.k } });
    expect(withLogin.status).toBe(200);
    const otherLogin = await p.call("POST", "/api/sessions", { body: { login: "agent2", dev_key: key.k } });
    expect(otherLogin.status).toBe(403);
    const unknown = await p.call("POST", "/api/sessions", { body: { dev_key: "f".repeat(48) } });
    expect(unknown.status).toBe(403);
  });
});

describe("developer keys never expire", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ sessionExpires: 1 });
  });
  afterAll(() => p.close());

  it("outlives session_expires while an ordinary token does not", async () => {
    const session = await p.session("agent1");
    const key = (
      await p.call<Envelope<DevKeyJson>>("POST", `/api/users/${p.userId("agent1")}/dev_keys`, { token: session.token })
    ).body.data.k;
    p.clock.passSecond(session.expires);
    expect((await p.call("GET", "/api/users/info", { token: session.token })).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token: key })).status).toBe(200);
  });
});

describe("a platform restart", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start();
  });
  afterAll(() => p.close());

  it("keeps developer keys and ends ordinary tokens and JWTs", async () => {
    const token = await p.token("agent1");
    const jwt = await p.session("agent1", { jwt: true });
    const id = p.userId("agent1");
    const key = (
      await p.call<Envelope<DevKeyJson>>("POST", `/api/users/${id}/dev_keys`, { token, body: { description: "kept" } })
    ).body.data;

    await p.restart();

    for (const carrier of ["header", "bearer", "cookie"] as const) {
      const res = await p.call<{ login: string }>("GET", "/api/users/info", { token: key.k, carrier });
      expect(res.status, carrier).toBe(200);
      expect(res.body.login).toBe("agent1");
    }
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token: jwt.token })).status).toBe(403);
    expect((await p.call("POST", "/api/sessions", { body: { refresh_token: jwt.refresh_token } })).status).toBe(403);
    expect((await p.call("POST", "/api/sessions", { body: { dev_key: key.k } })).status).toBe(200);
    const listed = await p.call<DevKeyJson[]>("GET", `/api/users/${id}/dev_keys`, { token: key.k });
    expect(listed.body).toContainEqual(key);
  });
});
