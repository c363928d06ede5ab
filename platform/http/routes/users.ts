import type { FastifyInstance } from "fastify";
import { randomBytes } from "node:crypto";
import type { PlatformContext } from "../../context";
import { extensionPasswordProblem, hashPassword, userPasswordProblem } from "../../auth/passwords";
import { authorityOf } from "../../auth/sessions";
import type { UserRow } from "../../store/users";
import { DEFAULT_AGENT_INFO, extensionJson, parseAgentInfo, userJson } from "../../store/users";
import { SIGNED_IN, principalOf, requireAdmin } from "../app";
import { MAX_INT32, PAGE, PER_PAGE, nameText } from "../validation";
import { envelope, fail } from "../errors";

const USER_TYPES = ["NORMAL", "AGENT", "CONFMAN", "GATEWAY"] as const;
const flag = { type: "integer", enum: [0, 1] } as const;

/** User fields a client may send (POST and PUT), with their types. */
const userFieldSchemas = {
  login: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.@-]+$" },
  name: nameText(100, 1),
  password: { type: "string" },
  extn: { type: "string", pattern: "^[0-9]{2,10}$" },
  cid_name: nameText(100),
  cid_number: { type: "string", maxLength: 32 },
  context: { type: "string", minLength: 1, maxLength: 64 },
  domain: { type: "string", minLength: 1, maxLength: 128 },
  vm_password: { type: "string", maxLength: 32 },
  email: { type: "string", maxLength: 200 },
  type: { type: "string", enum: USER_TYPES },
  tel: { type: "string", maxLength: 32 },
  auto_record: flag,
  disabled: flag,
  agent_info: { type: "object" },
  tel_enabled: flag,
  is_super: flag,
  is_admin: flag,
  idle_timeout: { type: "integer", minimum: 0, maximum: MAX_INT32 },
} as const;

const createBody = {
  type: "object",
  additionalProperties: false,
  required: ["login", "name", "password"],
  properties: {
    ...userFieldSchemas,
    extn_password: { type: "string" },
    mac_address: { type: "string", maxLength: 32 },
    extn_type: { type: "string", enum: ["SIP", "WebRTC", "SIP+WebRTC", "H323", "GATEWAY", "HK"] },
  },
} as const;

const updateBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...userFieldSchemas,
    id: { type: ["string", "integer"] },
    login_attempts: { type: "integer", minimum: 0, maximum: 1000 },
    is_locked: flag,
    action: { type: "string", enum: ["toggle"] },
    extn_id: { type: "integer" },
    request: {
      type: "object",
      additionalProperties: false,
      required: ["action", "extn_id"],
      properties: { action: { type: "string", enum: ["toggle"] }, extn_id: { type: "integer" } },
    },
  },
} as const;

const SORT_FIELDS = ["id", "login", "name", "extn", "type", "domain", "created_at", "updated_at", "last_login_at"];

const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    page: PAGE,
    perPage: PER_PAGE,
    login: { type: "string", maxLength: 64 },
    name: { type: "string", maxLength: 100 },
    type: { type: "string", enum: [...USER_TYPES, "ALL"] },
    sortField: { type: "string", enum: SORT_FIELDS },
    sortOrder: { type: "string", enum: ["asc", "desc", "ASC", "DESC", "ascend", "descend"] },
    hpack: { type: "boolean" },
  },
} as const;

const extnTokenBody = {
  type: "object",
  additionalProperties: false,
  required: ["extn", "domain"],
  properties: {
    extn: { type: "string", minLength: 1, maxLength: 32 },
    domain: { type: "string", minLength: 1, maxLength: 128 },
    jwt: { type: ["boolean", "string"], enum: [true, false, "true", "false"] },
  },
} as const;

type CreateBody = Partial<Record<keyof typeof userFieldSchemas, unknown>> & {
  login: string;
  name: string;
  password: string;
  extn_password?: string;
  mac_address?: string;
  extn_type?: string;
};

type UpdateBody = Partial<Record<keyof typeof userFieldSchemas, unknown>> & {
  id?: string | number;
  login_attempts?: number;
  is_locked?: number;
  action?: "toggle";
  extn_id?: number;
  request?: { action: "toggle"; extn_id: number };
};

/** Fields a user may change on their own record; the rest need an administrator. */
const SELF_EDITABLE = new Set(["name", "cid_name", "email", "tel", "vm_password"]);

export function userRoutes(app: FastifyInstance, ctx: PlatformContext) {
  const { db, users } = ctx;

  const userOr404 = (id: string): UserRow => {
    const n = Number(id);
    const user = Number.isInteger(n) ? users.byId(n) : undefined;
    if (!user) throw fail(404, "User Does Not Exist");
    return user;
  };

  app.get<{
    Querystring: {
      page?: number;
      perPage?: number;
      login?: string;
      name?: string;
      type?: string;
      sortField?: string;
      sortOrder?: string;
    };
  }>("/api/users", { config: SIGNED_IN, schema: { querystring: listQuery } }, async (req) => {
    const q = req.query;
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.login) {
      where.push("login LIKE ? ESCAPE '\\'");
      args.push(`%${likeEscape(q.login)}%`);
    }
    if (q.name) {
      where.push("name LIKE ? ESCAPE '\\'");
      args.push(`%${likeEscape(q.name)}%`);
    }
    if (q.type && q.type !== "ALL") {
      where.push("type = ?");
      args.push(q.type);
    }
    const whereSql = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const rowCount = (db.prepare(`SELECT COUNT(*) AS n FROM users ${whereSql}`).get(...args) as { n: number }).n;
    const order = /^desc/i.test(q.sortOrder ?? "") ? "DESC" : "ASC";
    const sortField = q.sortField ?? "id";
    const perPage = q.perPage ?? (q.page ? 20 : Math.max(rowCount, 1));
    const page = q.page ?? 1;
    const rows = db
      .prepare(`SELECT * FROM users ${whereSql} ORDER BY ${sortField} ${order}, id ASC LIMIT ? OFFSET ?`)
      .all(...args, perPage, (page - 1) * perPage) as UserRow[];
    const viewer = principalOf(req).user;
    return {
      rowCount,
      page,
      pageCount: Math.max(1, Math.ceil(rowCount / perPage)),
      data: rows.map((r) => userJson(r, viewer)),
    };
  });

  app.get("/api/users/info", { config: SIGNED_IN }, async (req) => {
    const p = principalOf(req);
    return { ...userJson(p.user, p.user), currentAuthority: authorityOf(p.user) };
  });

  app.get("/api/users/total", { config: SIGNED_IN }, async () => {
    return { count: (db.prepare("SELECT COUNT(*) AS n FROM users").get() as { n: number }).n };
  });

  app.get<{ Params: { id: string } }>("/api/users/:id", { config: SIGNED_IN }, async (req) =>
    userJson(userOr404(req.params.id), principalOf(req).user),
  );

  app.get<{ Params: { id: string } }>("/api/users/:id/extensions", { config: SIGNED_IN }, async (req) => {
    const p = principalOf(req);
    const user = userOr404(req.params.id);
    if (p.user.id !== user.id && !p.user.is_admin) throw fail(403, "no permission");
    return users.extensionsOf(user.id).map((e) => extensionJson(e, Boolean(p.user.is_admin)));
  });

  app.get<{ Params: { id: string } }>("/api/users/:id/queue/name", { config: SIGNED_IN }, async (req) => {
    const user = userOr404(req.params.id);
    return users.queueNames(user.id);
  });

  const create = async (b: CreateBody) => {
    const problem = userPasswordProblem(b.password);
    if (problem) throw fail(400, `password ${problem}`);
    // Hashed before anything is read, so that what is checked below is still so when written.
    const passwordHash = await hashPassword(b.password);
    if (users.byLogin(b.login)) throw fail(400, `login '${b.login}' is already taken`);
    const domain = (b.domain as string | undefined) ?? users.defaultDomain();
    if (!users.domainExists(domain)) throw fail(400, `unknown domain '${domain}'`);
    const extn = b.extn as string | undefined;
    if (extn !== undefined) {
      if (b.context === undefined) throw fail(400, "missing required field 'context' (needed to create the extension)");
      if (users.extension(extn, domain)) throw fail(400, `extension ${extn} already exists in ${domain}`);
      if (b.extn_password !== undefined) {
        const extnProblem = extensionPasswordProblem(b.extn_password);
        if (extnProblem) throw fail(400, `extn_password ${extnProblem}`);
      }
    }
    const type = (b.type as string | undefined) ?? "NORMAL";
    const agentInfo =
      type === "AGENT"
        ? { ...DEFAULT_AGENT_INFO, ...((b.agent_info as object | undefined) ?? {}) }
        : (b.agent_info ?? {});
    const isAdmin = (b.is_admin as number | undefined) ?? 0;

    return db.transaction(() => {
      const id = users.insertUser({
        login: b.login,
        name: b.name,
        password_hash: passwordHash,
        type,
        domain,
        context: (b.context as string | undefined) ?? "context-1",
        cid_name: (b.cid_name as string | undefined) ?? b.name,
        cid_number: (b.cid_number as string | undefined) ?? extn ?? "",
        vm_password: (b.vm_password as string | undefined) ?? "",
        email: (b.email as string | undefined) ?? "",
        tel: (b.tel as string | undefined) ?? "",
        auto_record: (b.auto_record as number | undefined) ?? 0,
        disabled: (b.disabled as number | undefined) ?? 0,
        tel_enabled: (b.tel_enabled as number | undefined) ?? 0,
        is_admin: isAdmin,
        is_super: isAdmin ? 1 : ((b.is_super as number | undefined) ?? 0),
        idle_timeout: (b.idle_timeout as number | undefined) ?? 0,
        agent_info: JSON.stringify(agentInfo),
        roles: type === "AGENT" ? "agent" : "",
      });
      if (extn === undefined) return envelope(id);
      const extnId = users.insertExtension({
        user_id: id,
        extn,
        name: b.name,
        domain,
        context: b.context as string,
        cid_name: (b.cid_name as string | undefined) ?? b.name,
        cid_number: (b.cid_number as string | undefined) ?? extn,
        password: b.extn_password ?? generatedExtensionPassword(),
        mac_address: b.mac_address ?? "",
        type: b.extn_type ?? "SIP+WebRTC",
      });
      users.updateUser(id, { extn, extn_id: extnId });
      return envelope({ id, extn_id: extnId });
    })();
  };

  for (const path of ["/api/users", "/api/users/create"]) {
    app.post<{ Body: CreateBody }>(path, { config: SIGNED_IN, schema: { body: createBody } }, async (req) => {
      requireAdmin(req);
      return create(req.body);
    });
  }

  app.put<{ Params: { id: string }; Body: UpdateBody }>(
    "/api/users/:id",
    { config: SIGNED_IN, schema: { body: updateBody } },
    async (req) => {
      const p = principalOf(req);
      const b = req.body ?? {};
      const isAdmin = Boolean(p.user.is_admin);
      const { id: _ignoredId, action: _a, extn_id: _e, request: _r, password, ...fields } = b;
      if (password !== undefined && !isAdmin) throw fail(403, "no permission to change 'password'");
      const problem = typeof password === "string" ? userPasswordProblem(password) : undefined;
      if (problem) throw fail(400, `password ${problem}`);
      // Hashed before the user is read, so that what is checked below is still so when written.
      const passwordHash = typeof password === "string" ? await hashPassword(password) : undefined;
      const user = userOr404(req.params.id);
      if (!isAdmin && p.user.id !== user.id) throw fail(403, "no permission");

      const toggle = b.request ?? (b.action === "toggle" ? { action: b.action, extn_id: b.extn_id } : undefined);
      if (toggle) {
        if (toggle.extn_id === undefined) throw fail(400, "missing required field 'extn_id'");
        const ext = users.extensionById(toggle.extn_id);
        if (!ext || ext.user_id !== user.id) throw fail(404, "Extension Does Not Exist");
        users.updateUser(user.id, { extn: ext.extn, extn_id: ext.id });
        return envelope(String(user.id));
      }

      for (const key of Object.keys(fields)) {
        if (!isAdmin && !SELF_EDITABLE.has(key)) throw fail(403, `no permission to change '${key}'`);
      }
      const changes: Partial<UserRow> = passwordHash === undefined ? {} : { password_hash: passwordHash };
      if (typeof fields.login === "string" && fields.login !== user.login && users.byLogin(fields.login)) {
        throw fail(400, `login '${fields.login}' is already taken`);
      }
      if (typeof fields.domain === "string" && !users.domainExists(fields.domain)) {
        throw fail(400, `unknown domain '${fields.domain}'`);
      }
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        if (key === "agent_info") {
          // agent_info is merged so that one setting (say wrap_up_time) can change alone.
          changes.agent_info = JSON.stringify({ ...parseAgentInfo(user.agent_info), ...(value as object) });
        } else {
          (changes as Record<string, unknown>)[key] = value;
        }
      }
      if (changes.type === "AGENT" && user.type !== "AGENT") {
        // A user made an agent gets the agent defaults a new agent would, under what they already have.
        changes.agent_info = JSON.stringify({
          ...DEFAULT_AGENT_INFO,
          ...parseAgentInfo(changes.agent_info ?? user.agent_info),
        });
      }
      if (changes.is_locked === 0) {
        changes.locked_until = "";
        changes.login_attempts ??= 0;
      }
      users.updateUser(user.id, changes);
      // New credentials, or none: whoever held the old ones is signed out everywhere.
      if (changes.password_hash !== undefined || changes.disabled === 1) ctx.auth.endSessionsOf(user.id);
      return envelope(String(user.id));
    },
  );

  app.delete<{ Params: { id: string } }>("/api/users/:id", { config: SIGNED_IN }, async (req) => {
    const p = requireAdmin(req);
    const user = userOr404(req.params.id);
    if (user.id === p.user.id) throw fail(400, "an administrator cannot delete their own account");
    users.deleteUser(user.id);
    ctx.auth.endSessionsOf(user.id);
    return { id: String(user.id) };
  });

  for (const path of ["/api/users/extn_token", "/api/sessions/extn_token"]) {
    app.post<{ Body: { extn: string; domain: string; jwt?: boolean | string } }>(
      path,
      { config: SIGNED_IN, schema: { body: extnTokenBody } },
      async (req) => {
        const p = principalOf(req);
        const ext = users.extension(req.body.extn, req.body.domain);
        if (!ext) throw fail(404, `Extension ${req.body.extn}@${req.body.domain} Does Not Exist`);
        if (ext.user_id !== p.user.id && !p.user.is_admin) throw fail(403, "no permission");
        // Worded as a permission refusal: a bare 403 means "session over" to clients (spec: Errors).
        if (ext.disabled) throw fail(403, `no permission: extension ${ext.extn} is disabled`);
        // The token stands for the extension: whoever asked for it, it signs in as the owner.
        return ctx.auth.issueExtensionToken(
          ext.user_id ?? p.user.id,
          ext,
          req.body.jwt === true || req.body.jwt === "true",
        );
      },
    );
  }
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A password meeting the extension rules, for extensions created without one. */
function generatedExtensionPassword(): string {
  return `Ab1${randomBytes(9).toString("base64url")}`.slice(0, 16);
}
