import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";

interface UserJson {
  id: string;
  login: string;
  name: string;
  extn: string;
  cid_name: string;
  cid_number: string;
  context: string;
  domain: string;
  type: string;
  agent_info: Record<string, unknown>;
  is_admin: number;
  is_super: number | string;
  extn_id: number | null;
  disabled: number;
  [k: string]: unknown;
}

interface Paged<T> {
  rowCount: number;
  page: number;
  pageCount: number;
  data: T[];
}

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

interface ErrorJson {
  code: number;
  text: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The agent_info defaults the spec says are written at agent creation. */
const SPEC_AGENT_DEFAULTS = {
  lag: "2",
  simo: "1",
  status: "On Break",
  agent_type: "callback",
  member_wait: "nowait",
  wrap_up_time: "10",
  max_no_answer: "3",
  busy_delay_time: "10",
  no_answer_delay_time: "30",
  reject_delay_time: "10",
};

/** Password material must never leave the platform in a user object. */
const SECRET_FIELDS = ["password", "password_hash", "salt", "sha1", "ha1", "ha1b"];

describe("reading users", () => {
  let p: TestPlatform;
  let agent1: string;
  let admin: string;

  beforeAll(async () => {
    p = await TestPlatform.start();
    agent1 = await p.token("agent1");
    admin = await p.token("admin");
  });
  afterAll(() => p.close());

  const list = (query: string, token = agent1) => p.call<Paged<UserJson>>("GET", `/api/users${query}`, { token });

  it("lists every user in the paged shape when no query is given", async () => {
    const res = await list("");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rowCount: demo.users.length, page: 1, pageCount: 1, data: expect.any(Array) });
    expect(res.body.data.map((u) => u.login)).toEqual(demo.users.map((u) => u.login));
    const alice = res.body.data.find((u) => u.login === "agent1")!;
    expect(alice).toMatchObject({
      id: String(p.userId("agent1")),
      name: "Alice Agent",
      extn: "1001",
      domain: DEMO_DOMAIN,
      type: "AGENT",
      agent_info: { ...SPEC_AGENT_DEFAULTS },
      is_admin: 0,
      disabled: 0,
      extn_id: expect.any(Number),
    });
    for (const u of res.body.data) for (const secret of SECRET_FIELDS) expect(u).not.toHaveProperty(secret);
  });

  it("pages with page and perPage", async () => {
    const res = await list("?page=2&perPage=2");
    expect(res.body.rowCount).toBe(6);
    expect(res.body.page).toBe(2);
    expect(res.body.pageCount).toBe(3);
    expect(res.body.data.map((u) => u.login)).toEqual(["agent1", "agent2"]);
    const beyond = await list("?page=9&perPage=2");
    expect(beyond.body).toMatchObject({ rowCount: 6, page: 9, pageCount: 3, data: [] });
  });

  it("filters by login, name and type", async () => {
    expect((await list("?login=agent")).body.data.map((u) => u.login)).toEqual([
      "agent1",
      "agent2",
      "agent3",
      "agent4",
    ]);
    expect((await list("?name=bob")).body.data.map((u) => u.login)).toEqual(["agent2"]);
    const agents = await list("?type=AGENT");
    expect(agents.body.rowCount).toBe(4);
    expect(agents.body.data.every((u) => u.type === "AGENT")).toBe(true);
    expect((await list("?type=NORMAL")).body.data.map((u) => u.login)).toEqual(["admin", "supervisor"]);
    expect((await list("?type=ALL")).body.rowCount).toBe(6);
    expect((await list("?type=AGENT&name=Carol")).body.data.map((u) => u.login)).toEqual(["agent3"]);
    // Wildcards in a filter are matched as text.
    expect((await list("?login=%25")).body).toMatchObject({ rowCount: 0, data: [] });
    expect((await list("?login=_")).body.rowCount).toBe(0);
  });

  it("sorts by sortField and sortOrder", async () => {
    expect((await list("?sortField=login&sortOrder=desc")).body.data.map((u) => u.login)).toEqual([
      "supervisor",
      "agent4",
      "agent3",
      "agent2",
      "agent1",
      "admin",
    ]);
    expect((await list("?sortField=name&sortOrder=asc&type=AGENT")).body.data.map((u) => u.name)).toEqual([
      "Alice Agent",
      "Bob Agent",
      "Carol Agent",
      "Dave Agent",
    ]);
  });

  it("refuses an unknown sort field or type, or a page that is not a number, with 400 naming it", async () => {
    for (const [query, field] of [
      ["?sortField=password_hash", "sortField"],
      ["?type=ROBOT", "type"],
      ["?page=first", "page"],
      ["?perPage=0", "perPage"],
    ] as const) {
      const res = await p.call<ErrorJson>("GET", `/api/users${query}`, { token: agent1 });
      expect(res.status, query).toBe(400);
      expect(res.body.text).toContain(`'${field}'`);
    }
  });

  it("gets one user; 404 when absent", async () => {
    const id = p.userId("agent2");
    const res = await p.call<UserJson>("GET", `/api/users/${id}`, { token: agent1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: String(id), login: "agent2", extn: "1002", type: "AGENT" });
    for (const secret of SECRET_FIELDS) expect(res.body).not.toHaveProperty(secret);
    for (const absent of ["99999", "abc"]) {
      const missing = await p.call<ErrorJson>("GET", `/api/users/${absent}`, { token: agent1 });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe(404);
    }
  });

  it("answers /api/users/info with the signed-in user", async () => {
    const res = await p.call<UserJson>("GET", "/api/users/info", { token: agent1 });
    expect(res.body).toMatchObject({ id: String(p.userId("agent1")), login: "agent1", currentAuthority: "agent" });
    const a = await p.call<UserJson>("GET", "/api/users/info", { token: admin });
    expect(a.body).toMatchObject({ login: "admin", is_admin: 1, is_super: "1", currentAuthority: "admin" });
  });

  it("lists a user's extensions as an array; the SIP password only to administrators", async () => {
    const id = p.userId("agent1");
    const own = await p.call<Record<string, unknown>[]>("GET", `/api/users/${id}/extensions`, { token: agent1 });
    expect(own.status).toBe(200);
    expect(own.body).toHaveLength(1);
    expect(own.body[0]).toMatchObject({
      user_id: id,
      extn: "1001",
      domain: DEMO_DOMAIN,
      name: "Alice Agent",
      disabled: 0,
    });
    expect(own.body[0]).not.toHaveProperty("password");

    const asAdmin = await p.call<Record<string, unknown>[]>("GET", `/api/users/${id}/extensions`, { token: admin });
    expect(asAdmin.body[0]).toMatchObject({ extn: "1001", password: demo.extensionPassword });

    const none = await p.call("GET", `/api/users/${p.userId("admin")}/extensions`, { token: admin });
    expect(none.body).toEqual([]);
  });

  it("refuses another user's extensions to a non-administrator", async () => {
    const res = await p.call<ErrorJson>("GET", `/api/users/${p.userId("agent2")}/extensions`, { token: agent1 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 403, text: "no permission" });
  });

  it("lists an agent's queues as [{name}], [] when none, 404 for an absent user", async () => {
    const res = await p.call("GET", `/api/users/${p.userId("agent2")}/queue/name`, { token: agent1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: "sales" }, { name: "support" }]);
    expect((await p.call("GET", `/api/users/${p.userId("agent1")}/queue/name`, { token: agent1 })).body).toEqual([
      { name: "support" },
    ]);
    expect((await p.call("GET", `/api/users/${p.userId("admin")}/queue/name`, { token: agent1 })).body).toEqual([]);
    expect((await p.call("GET", "/api/users/99999/queue/name", { token: agent1 })).status).toBe(404);
  });
});

describe("creating, changing and deleting users", () => {
  let p: TestPlatform;
  let admin: string;
  let agent1: string;

  beforeAll(async () => {
    p = await TestPlatform.start();
    admin = await p.token("admin");
    agent1 = await p.token("agent1");
  });
  afterAll(() => p.close());

  const get = async (id: string | number) => (await p.call<UserJson>("GET", `/api/users/${id}`, { token: admin })).body;

  it("creates a NORMAL user: envelope whose data is the new id; defaults as the spec says", async () => {
    const res = await p.call<Envelope<number>>("POST", "/api/users", {
      token: admin,
      body: { login: "nina", name: "Nina Normal", password: "Nina@Pass1" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: "success", data: expect.any(Number) });
    const user = await get(res.body.data);
    expect(user).toMatchObject({
      id: String(res.body.data),
      login: "nina",
      name: "Nina Normal",
      type: "NORMAL",
      cid_name: "Nina Normal",
      context: "context-1",
      domain: DEMO_DOMAIN,
      agent_info: {},
      is_admin: 0,
      is_super: 0,
      extn: "",
      extn_id: null,
    });
    expect((await p.signIn("nina", "Nina@Pass1")).status).toBe(200);
  });

  it("creates an AGENT with an extension: data {id, extn_id}, the spec's default agent_info, a working extension", async () => {
    const res = await p.call<Envelope<{ id: number; extn_id: number }>>("POST", "/api/users", {
      token: admin,
      body: {
        login: "erin",
        name: "Erin Agent",
        password: "Erin@Pass1",
        type: "AGENT",
        extn: "1020",
        context: "context-1",
        extn_password: "Erin1234Ext",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: "success",
      data: { id: expect.any(Number), extn_id: expect.any(Number) },
    });
    const { id, extn_id } = res.body.data;
    const user = await get(id);
    expect(user).toMatchObject({
      type: "AGENT",
      extn: "1020",
      extn_id,
      cid_number: "1020",
      agent_info: SPEC_AGENT_DEFAULTS,
    });
    expect(user.agent_info).toEqual(SPEC_AGENT_DEFAULTS);

    const signIn = await p.signIn("erin", "Erin@Pass1");
    expect(signIn.status).toBe(200);
    const session = signIn.body;
    expect(session).toMatchObject({ extn: "1020", currentAuthority: "agent" });
    const exts = await p.call<Record<string, unknown>[]>("GET", `/api/users/${id}/extensions`, { token: admin });
    expect(exts.body).toEqual([
      expect.objectContaining({ id: extn_id, extn: "1020", password: "Erin1234Ext", user_id: id }),
    ]);
    const token = await p.call<{ extn_id: string }>("POST", "/api/users/extn_token", {
      token: session.token,
      body: { extn: "1020", domain: DEMO_DOMAIN },
    });
    expect(token.status).toBe(200);
    expect(token.body.extn_id).toBe(String(extn_id));
  });

  it("keeps agent_info given at creation over the defaults", async () => {
    const res = await p.call<Envelope<number>>("POST", "/api/users/create", {
      token: admin,
      body: { login: "fred", name: "Fred", password: "Fred@Pass1", type: "AGENT", agent_info: { wrap_up_time: "30" } },
    });
    expect(res.status).toBe(200);
    expect((await get(res.body.data)).agent_info).toEqual({ ...SPEC_AGENT_DEFAULTS, wrap_up_time: "30" });
  });

  it("refuses passwords that break a rule, saying which rule, and writes nothing", async () => {
    const before = p.snapshot();
    const cases: [string, string][] = [
      ["Ab1@", "password must be at least 8 characters long"],
      ["Abcdefgh1@abcdefgh1@x", "password must be at most 20 characters long"],
      ["abcdefg1@", "password must contain an upper-case letter"],
      ["ABCDEFG1@", "password must contain a lower-case letter"],
      ["Abcdefgh@", "password must contain a digit"],
      ["Abcdefgh1", "password must contain a special character"],
    ];
    for (const [password, message] of cases) {
      const res = await p.call<ErrorJson>("POST", "/api/users", {
        token: admin,
        body: { login: "weak", name: "Weak", password },
      });
      expect(res.status, password).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.text).toContain(message);
    }
    const extn = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: {
        login: "weak",
        name: "Weak",
        password: "Good@Pass1",
        extn: "1030",
        context: "context-1",
        extn_password: "alllower1",
      },
    });
    expect(extn.status).toBe(400);
    expect(extn.body.text).toContain("extn_password must contain an upper-case letter");
    // Extension passwords need no special character.
    const plain = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: {
        login: "weak",
        name: "Weak",
        password: "Good@Pass1",
        extn: "1030",
        context: "context-1",
        extn_password: "Abcdefg1",
      },
    });
    expect(plain.status).toBe(200);
    const after = p.snapshot();
    expect((after.users as unknown[]).length).toBe((before.users as unknown[]).length + 1);
  });

  it("refuses a login or an extension that is already taken, or an extension without context, and writes nothing", async () => {
    const before = p.snapshot();
    const takenLogin = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: { login: "agent1", name: "Again", password: "Good@Pass1" },
    });
    expect(takenLogin.status).toBe(400);
    expect(takenLogin.body.text).toContain("'agent1'");
    const takenExtn = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: { login: "newbie", name: "Newbie", password: "Good@Pass1", extn: "1001", context: "context-1" },
    });
    expect(takenExtn.status).toBe(400);
    expect(takenExtn.body.text).toContain("1001");
    const noContext = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: { login: "newbie", name: "Newbie", password: "Good@Pass1", extn: "1031" },
    });
    expect(noContext.status).toBe(400);
    expect(noContext.body.text).toContain("'context'");
    const badDomain = await p.call<ErrorJson>("POST", "/api/users", {
      token: admin,
      body: { login: "newbie", name: "Newbie", password: "Good@Pass1", domain: "elsewhere.example" },
    });
    expect(badDomain.status).toBe(400);
    expect(badDomain.body.text).toContain("elsewhere.example");
    expect(p.snapshot()).toEqual(before);
  });

  it("creates an administrator with is_super the string '1', as the spec shows it", async () => {
    const res = await p.call<Envelope<number>>("POST", "/api/users", {
      token: admin,
      body: { login: "olga", name: "Olga Admin", password: "Olga@Pass1", is_admin: 1 },
    });
    expect(res.status).toBe(200);
    expect(await get(res.body.data)).toMatchObject({ is_admin: 1, is_super: "1" });
    expect((await p.call<UserJson>("GET", `/api/users/${res.body.data}`, { token: agent1 })).body.is_super).toBe("1");
  });

  it("shows the voicemail password to the user and to administrators only", async () => {
    const id = p.userId("agent3");
    const agent3 = await p.token("agent3");
    expect((await p.call("PUT", `/api/users/${id}`, { token: agent3, body: { vm_password: "2468" } })).status).toBe(
      200,
    );
    expect((await p.call<UserJson>("GET", `/api/users/${id}`, { token: agent3 })).body.vm_password).toBe("2468");
    expect((await p.call<UserJson>("GET", "/api/users/info", { token: agent3 })).body.vm_password).toBe("2468");
    expect((await get(id)).vm_password).toBe("2468");
    const listed = (await p.call<Paged<UserJson>>("GET", "/api/users", { token: agent3 })).body.data;
    expect(listed.find((u) => u.login === "agent3")!.vm_password).toBe("2468");
    expect(listed.filter((u) => u.login !== "agent3").every((u) => !("vm_password" in u))).toBe(true);
    expect(
      (await p.call<Paged<UserJson>>("GET", "/api/users", { token: admin })).body.data.every((u) => "vm_password" in u),
    ).toBe(true);
    const asOther = await p.call<UserJson>("GET", `/api/users/${id}`, { token: agent1 });
    expect(asOther.status).toBe(200);
    expect(asOther.body).not.toHaveProperty("vm_password");
  });

  it("refuses user creation to a non-administrator with 403 'no permission'", async () => {
    const before = p.snapshot();
    const res = await p.call<ErrorJson>("POST", "/api/users", {
      token: agent1,
      body: { login: "mallory", name: "Mallory", password: "Mall@ry123", is_admin: 1 },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 403, text: "no permission" });
    expect(p.snapshot()).toEqual(before);
  });

  it("changes user fields: envelope whose data is the id string; agent_info changes one setting at a time", async () => {
    const id = p.userId("agent2");
    const res = await p.call("PUT", `/api/users/${id}`, {
      token: admin,
      body: { name: "Robert Agent", agent_info: { wrap_up_time: "25" } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: "success", data: String(id) });
    const user = await get(id);
    expect(user.name).toBe("Robert Agent");
    expect(user.agent_info).toEqual({ ...SPEC_AGENT_DEFAULTS, wrap_up_time: "25" });
  });

  it("gives a user made an AGENT the default agent_info, keeping settings given with the change", async () => {
    const id = p.userId("supervisor");
    const res = await p.call("PUT", `/api/users/${id}`, {
      token: admin,
      body: { type: "AGENT", agent_info: { max_no_answer: "5" } },
    });
    expect(res.status).toBe(200);
    const user = await get(id);
    expect(user.type).toBe("AGENT");
    expect(user.agent_info).toEqual({ ...SPEC_AGENT_DEFAULTS, max_no_answer: "5" });
  });

  it("ignores an id in the body", async () => {
    const id = p.userId("agent3");
    const other = p.userId("agent4");
    const res = await p.call("PUT", `/api/users/${id}`, { token: admin, body: { id: other, tel: "+15550100" } });
    expect(res.body).toEqual({ code: 200, message: "success", data: String(id) });
    expect((await get(id)).tel).toBe("+15550100");
    expect((await get(other)).tel).toBe("");
  });

  it("lets a user change their own name but not their type, and nothing of another user", async () => {
    const id = p.userId("agent1");
    expect((await p.call("PUT", `/api/users/${id}`, { token: agent1, body: { name: "Alice A." } })).status).toBe(200);
    expect((await get(id)).name).toBe("Alice A.");
    const before = p.snapshot();
    const type = await p.call<ErrorJson>("PUT", `/api/users/${id}`, {
      token: agent1,
      body: { name: "Boss", is_admin: 1 },
    });
    expect(type.status).toBe(403);
    expect(type.body.text).toContain("'is_admin'");
    const other = await p.call<ErrorJson>("PUT", `/api/users/${p.userId("agent2")}`, {
      token: agent1,
      body: { name: "Hacked" },
    });
    expect(other.status).toBe(403);
    expect(other.body.text).toBe("no permission");
    expect(p.snapshot()).toEqual(before);
  });

  it("changes a password with the same rules", async () => {
    const id = p.userId("agent4");
    const weak = await p.call<ErrorJson>("PUT", `/api/users/${id}`, { token: admin, body: { password: "weakpass" } });
    expect(weak.status).toBe(400);
    expect(weak.body.text).toContain("password must contain an upper-case letter");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { password: "Dave@New2026" } })).status).toBe(
      200,
    );
    expect((await p.signIn("agent4")).status).toBe(403);
    expect((await p.signIn("agent4", "Dave@New2026")).status).toBe(200);
  });

  it("makes another of the user's extensions the default one with {action:'toggle', extn_id} or {request:{...}}", async () => {
    const id = p.userId("agent3");
    const original = (await get(id)).extn_id!;
    // A second extension for the user (extensions are managed by resources outside this API part).
    const second = Number(
      p.db
        .prepare(
          "INSERT INTO extensions (user_id, extn, domain, password, name) VALUES (?, '1033', ?, 'Extn1234Demo', 'Carol desk')",
        )
        .run(id, DEMO_DOMAIN).lastInsertRowid,
    );
    const flat = await p.call("PUT", `/api/users/${id}`, { token: admin, body: { action: "toggle", extn_id: second } });
    expect(flat.body).toEqual({ code: 200, message: "success", data: String(id) });
    expect(await get(id)).toMatchObject({ extn: "1033", extn_id: second });
    expect((await p.session("agent3")).extn).toBe("1033");

    const nested = await p.call("PUT", `/api/users/${id}`, {
      token: admin,
      body: { request: { action: "toggle", extn_id: original } },
    });
    expect(nested.status).toBe(200);
    expect(await get(id)).toMatchObject({ extn: "1003", extn_id: original });

    const foreign = (await get(p.userId("agent1"))).extn_id!;
    const before = p.snapshot();
    expect(
      (await p.call("PUT", `/api/users/${id}`, { token: admin, body: { action: "toggle", extn_id: foreign } })).status,
    ).toBe(404);
    expect(p.snapshot()).toEqual(before);
  });

  it("answers 404 when changing or deleting an absent user", async () => {
    expect((await p.call("PUT", "/api/users/99999", { token: admin, body: { name: "Ghost" } })).status).toBe(404);
    expect((await p.call("DELETE", "/api/users/99999", { token: admin })).status).toBe(404);
  });

  it("deletes a user: {id}; their sessions, keys and extensions go with them", async () => {
    const created = await p.call<Envelope<{ id: number; extn_id: number }>>("POST", "/api/users", {
      token: admin,
      body: { login: "gone", name: "Gone Soon", password: "Gone@Pass1", extn: "1040", context: "context-1" },
    });
    const id = created.body.data.id;
    const token = await (async () => (await p.signIn("gone", "Gone@Pass1")).body.token)();
    const key = (await p.call<Envelope<{ k: string }>>("POST", `/api/users/${id}/dev_keys`, { token })).body.data.k;

    const agentTry = await p.call("DELETE", `/api/users/${id}`, { token: agent1 });
    expect(agentTry.status).toBe(403);

    const res = await p.call("DELETE", `/api/users/${id}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: String(id) });
    expect((await p.call("GET", `/api/users/${id}`, { token: admin })).status).toBe(404);
    expect((await p.call("GET", "/api/users/info", { token })).status).toBe(403);
    expect((await p.call("GET", "/api/users/info", { token: key })).status).toBe(403);
    expect(
      (await p.call("POST", "/api/users/extn_token", { token: admin, body: { extn: "1040", domain: DEMO_DOMAIN } }))
        .status,
    ).toBe(404);
    expect((await p.signIn("gone", "Gone@Pass1")).status).toBe(403);
  });

  it("does not let an administrator delete their own account", async () => {
    const res = await p.call<ErrorJson>("DELETE", `/api/users/${p.userId("admin")}`, { token: admin });
    expect(res.status).toBe(400);
    expect((await get(p.userId("admin"))).login).toBe("admin");
  });
});

describe("extension tokens", () => {
  let p: TestPlatform;
  let agent1: string;
  beforeAll(async () => {
    p = await TestPlatform.start();
    agent1 = await p.token("agent1");
  });
  afterAll(() => p.close());

  for (const path of ["/api/users/extn_token", "/api/sessions/extn_token"]) {
    it(`gives {extn_id, token, domain} for the user's own extension at ${path}; the token is a SIP password of it`, async () => {
      const extnId = (await p.call<UserJson>("GET", "/api/users/info", { token: agent1 })).body.extn_id!;
      const res = await p.call<{ extn_id: string; token: string; domain: string }>("POST", path, {
        token: agent1,
        body: { extn: "1001", domain: DEMO_DOMAIN },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ extn_id: String(extnId), token: expect.stringMatching(UUID), domain: DEMO_DOMAIN });
      expect(p.platform.ctx.auth.extensionTokens(extnId)).toContain(res.body.token);
    });
  }

  it("gives a JWT extension token when asked", async () => {
    const res = await p.call<{ token: string }>("POST", "/api/users/extn_token", {
      token: agent1,
      body: { extn: "1001", domain: DEMO_DOMAIN, jwt: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("refuses a token for another user's extension unless the caller is an administrator", async () => {
    const res = await p.call<ErrorJson>("POST", "/api/users/extn_token", {
      token: agent1,
      body: { extn: "1002", domain: DEMO_DOMAIN },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 403, text: "no permission" });
    const admin = await p.token("admin");
    const asAdmin = await p.call<{ token: string }>("POST", "/api/users/extn_token", {
      token: admin,
      body: { extn: "1002", domain: DEMO_DOMAIN },
    });
    expect(asAdmin.status).toBe(200);
    // The extension signs in as its owner, not as the administrator who asked.
    const holder = await p.platform.ctx.auth.resolveAnyToken(asAdmin.body.token);
    expect(holder?.user.login).toBe("agent2");
  });

  it("answers 404 for an unknown extension and 400 naming a missing field", async () => {
    const unknown = await p.call("POST", "/api/users/extn_token", {
      token: agent1,
      body: { extn: "9999", domain: DEMO_DOMAIN },
    });
    expect(unknown.status).toBe(404);
    const missing = await p.call<ErrorJson>("POST", "/api/users/extn_token", { token: agent1, body: { extn: "1001" } });
    expect(missing.status).toBe(400);
    expect(missing.body.text).toContain("'domain'");
  });

  it("refuses a token for a disabled extension with 'no permission' wording, so that the toolbar does not take it for an ended session", async () => {
    p.db.prepare("UPDATE extensions SET disabled = 1 WHERE extn = '1001'").run();
    const res = await p.call<ErrorJson>("POST", "/api/users/extn_token", {
      token: agent1,
      body: { extn: "1001", domain: DEMO_DOMAIN },
    });
    p.db.prepare("UPDATE extensions SET disabled = 0 WHERE extn = '1001'").run();
    expect(res.status).toBe(403);
    expect(res.body.text).toMatch(/^no permission/);
  });
});
