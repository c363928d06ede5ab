import type { Db } from "./db";
import { timestamp } from "./db";

export interface UserRow {
  id: number;
  login: string;
  name: string;
  password_hash: string;
  extn: string;
  cid_name: string;
  cid_number: string;
  context: string;
  domain: string;
  vm_password: string;
  email: string;
  type: string;
  tel: string;
  auto_record: number;
  disabled: number;
  agent_info: string;
  tel_enabled: number;
  is_super: number;
  is_admin: number;
  roles: string;
  extn_id: number | null;
  login_attempts: number;
  is_locked: number;
  locked_until: string;
  idle_timeout: number;
  last_login_at: string;
  first_login: string;
  last_login_attempt_at: string;
  created_at: string;
  updated_at: string;
  deleted_at: string;
}

export interface ExtensionRow {
  id: number;
  user_id: number | null;
  extn: string;
  name: string;
  type: string;
  domain: string;
  context: string;
  cid_name: string;
  cid_number: string;
  password: string;
  vm_password: string;
  mac_address: string;
  codec: string;
  auto_record: number;
  disabled: number;
  timeout: number;
  call_limit: number;
  description: string;
  created_at: string;
  updated_at: string;
  deleted_at: string;
}

/** agent_info written when an AGENT is created (spec: "Defaults written at agent creation"). */
export const DEFAULT_AGENT_INFO = {
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
} as const;

/** Columns a client may set through POST/PUT /api/users (password is handled apart). */
export const USER_WRITABLE_FIELDS = [
  "login",
  "name",
  "extn",
  "cid_name",
  "cid_number",
  "context",
  "domain",
  "vm_password",
  "email",
  "type",
  "tel",
  "auto_record",
  "disabled",
  "agent_info",
  "tel_enabled",
  "is_super",
  "is_admin",
  "login_attempts",
  "is_locked",
  "idle_timeout",
] as const;

export type UserWritableField = (typeof USER_WRITABLE_FIELDS)[number];

/**
 * The user object as the API shows it to `viewer`: no password material, agent_info as an object.
 * The voicemail password only to the user themselves and administrators. `is_super` as the spec
 * shows it: the string '1' when set (administrators are created so), else 0.
 */
export function userJson(row: UserRow, viewer: Pick<UserRow, "id" | "is_admin">) {
  return {
    id: String(row.id),
    login: row.login,
    name: row.name,
    extn: row.extn,
    cid_name: row.cid_name,
    cid_number: row.cid_number,
    context: row.context,
    domain: row.domain,
    ...(viewer.is_admin || viewer.id === row.id ? { vm_password: row.vm_password } : {}),
    email: row.email,
    type: row.type,
    tel: row.tel,
    auto_record: row.auto_record,
    disabled: row.disabled,
    agent_info: parseAgentInfo(row.agent_info),
    tel_enabled: row.tel_enabled,
    is_super: row.is_super ? ("1" as const) : 0,
    is_admin: row.is_admin,
    extn_id: row.extn_id,
    login_attempts: row.login_attempts,
    is_locked: row.is_locked,
    idle_timeout: row.idle_timeout,
    last_login_at: row.last_login_at,
    first_login: row.first_login,
    last_login_attempt_at: row.last_login_attempt_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** Extension records as the API shows them; the SIP password only to administrators. */
export function extensionJson(row: ExtensionRow, withPassword: boolean) {
  const { password, ...rest } = row;
  return withPassword ? { ...rest, password } : rest;
}

export function parseAgentInfo(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export class UserStore {
  constructor(private readonly db: Db) {}

  byId(id: number): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE id = ?").get(id) as UserRow | undefined;
  }

  byLogin(login: string): UserRow | undefined {
    return this.db.prepare("SELECT * FROM users WHERE login = ?").get(login) as UserRow | undefined;
  }

  extensionsOf(userId: number): ExtensionRow[] {
    return this.db.prepare("SELECT * FROM extensions WHERE user_id = ? ORDER BY id").all(userId) as ExtensionRow[];
  }

  extension(extn: string, domain: string): ExtensionRow | undefined {
    return this.db.prepare("SELECT * FROM extensions WHERE extn = ? AND domain = ?").get(extn, domain) as
      ExtensionRow | undefined;
  }

  extensionById(id: number): ExtensionRow | undefined {
    return this.db.prepare("SELECT * FROM extensions WHERE id = ?").get(id) as ExtensionRow | undefined;
  }

  /** Names of the queues the user is on (as an agent with a tier). */
  queueNames(userId: number): { name: string }[] {
    return this.db
      .prepare(
        "SELECT q.name AS name FROM tiers t JOIN queues q ON q.id = t.queue_id WHERE t.user_id = ? ORDER BY t.level, t.position, q.name",
      )
      .all(userId) as { name: string }[];
  }

  defaultDomain(): string {
    const row = this.db.prepare("SELECT name FROM domains ORDER BY id LIMIT 1").get() as { name: string } | undefined;
    return row?.name ?? "";
  }

  domainExists(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM domains WHERE name = ?").get(name) !== undefined;
  }

  insertUser(fields: Partial<Omit<UserRow, "id">> & { login: string; name: string; password_hash: string }): number {
    const now = timestamp();
    const row = { ...fields, created_at: now, updated_at: now };
    const cols = Object.keys(row);
    const info = this.db
      .prepare(`INSERT INTO users (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`)
      .run(row);
    return Number(info.lastInsertRowid);
  }

  insertExtension(
    fields: Partial<Omit<ExtensionRow, "id">> & { extn: string; domain: string; password: string },
  ): number {
    const now = timestamp();
    const row = { ...fields, created_at: now, updated_at: now };
    const cols = Object.keys(row);
    const info = this.db
      .prepare(`INSERT INTO extensions (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`)
      .run(row);
    return Number(info.lastInsertRowid);
  }

  /** Updates the named columns of a user; the column names come from a fixed allow-list. */
  updateUser(id: number, fields: Partial<Omit<UserRow, "id">>): void {
    const cols = Object.keys(fields);
    if (cols.length === 0) return;
    const sets = [...cols.map((c) => `${c} = @${c}`), "updated_at = @updated_at"].join(", ");
    this.db.prepare(`UPDATE users SET ${sets} WHERE id = @id`).run({ ...fields, updated_at: timestamp(), id });
  }

  deleteUser(id: number): void {
    this.db.prepare("DELETE FROM users WHERE id = ?").run(id);
  }
}
