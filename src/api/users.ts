import * as v from "valibot";
import type { PlatformClient } from "./client";
import { flag, idString, paged, text, type Paged } from "./schemas";

const AgentInfoSchema = v.optional(
  v.pipe(
    v.union([v.record(v.string(), v.unknown()), v.string(), v.null()]),
    v.transform((x): Record<string, unknown> => {
      if (x === null) return {};
      if (typeof x !== "string") return x;
      try {
        const parsed: unknown = JSON.parse(x);
        return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
      } catch {
        return {};
      }
    }),
  ),
  {},
);

export const UserSchema = v.object({
  id: idString,
  login: v.string(),
  name: text,
  extn: text,
  cid_name: text,
  cid_number: text,
  context: text,
  domain: text,
  type: v.optional(v.string(), "NORMAL"),
  disabled: flag,
  agent_info: AgentInfoSchema,
  is_admin: flag,
  is_super: flag,
  extn_id: v.optional(v.nullable(idString), null),
  is_locked: flag,
  login_attempts: flag,
  last_login_at: text,
  created_at: text,
  updated_at: text,
  currentAuthority: v.optional(v.string()),
});

export type User = v.InferOutput<typeof UserSchema>;

/** GET /api/users/info — the signed-in user. */
export function getCurrentUser(client: PlatformClient): Promise<User> {
  return client.request("GET", "/api/users/info", { schema: UserSchema });
}

export interface UserQuery {
  page?: number;
  perPage?: number;
  login?: string;
  name?: string;
  type?: "AGENT" | "NORMAL" | "CONFMAN" | "ALL";
  sortField?: string;
  sortOrder?: "asc" | "desc";
}

/** GET /api/users — paged, filtered, sorted. */
export function listUsers(client: PlatformClient, q: UserQuery = {}): Promise<Paged<User>> {
  return client.request("GET", "/api/users", { query: { ...q }, schema: paged(UserSchema) });
}

/** GET /api/users/<id> */
export function getUser(client: PlatformClient, id: string): Promise<User> {
  return client.request("GET", `/api/users/${encodeURIComponent(id)}`, { schema: UserSchema });
}

const ExtensionSchema = v.object({
  id: idString,
  user_id: v.optional(v.nullable(idString), null),
  extn: v.string(),
  name: text,
  type: text,
  domain: text,
  context: text,
  cid_name: text,
  cid_number: text,
  disabled: flag,
});

export type Extension = v.InferOutput<typeof ExtensionSchema>;

/** GET /api/users/<id>/extensions */
export function getUserExtensions(client: PlatformClient, userId: string): Promise<Extension[]> {
  return client.request("GET", `/api/users/${encodeURIComponent(userId)}/extensions`, {
    schema: v.array(ExtensionSchema),
  });
}

/** GET /api/users/<id>/queue/name — the queues the agent is on. */
export async function getUserQueueNames(client: PlatformClient, userId: string): Promise<string[]> {
  const rows = await client.request("GET", `/api/users/${encodeURIComponent(userId)}/queue/name`, {
    schema: v.array(v.object({ name: v.string() })),
  });
  return rows.map((r) => r.name);
}

export interface NewUser {
  login: string;
  name: string;
  password: string;
  type?: "NORMAL" | "AGENT" | "CONFMAN";
  extn?: string;
  context?: string;
  extn_password?: string;
  domain?: string;
  agent_info?: Record<string, unknown>;
  is_admin?: 0 | 1;
}

/** POST /api/users — returns the new user's id and, with an extension, its extension id. */
export async function createUser(client: PlatformClient, u: NewUser): Promise<{ id: string; extn_id?: string }> {
  const data = await client.request("POST", "/api/users", {
    body: u,
    envelope: true,
    schema: v.union([
      v.pipe(
        idString,
        v.transform((id) => ({ id })),
      ),
      v.object({ id: idString, extn_id: v.optional(idString) }),
    ]),
  });
  return data;
}

/** PUT /api/users/<id> */
export function updateUser(client: PlatformClient, id: string, fields: Record<string, unknown>): Promise<string> {
  return client.request("PUT", `/api/users/${encodeURIComponent(id)}`, {
    body: fields,
    envelope: true,
    schema: idString,
  });
}

/** DELETE /api/users/<id> */
export async function deleteUser(client: PlatformClient, id: string): Promise<void> {
  await client.request("DELETE", `/api/users/${encodeURIComponent(id)}`, { schema: v.object({ id: idString }) });
}

const ExtensionTokenSchema = v.object({ extn_id: idString, token: v.string(), domain: v.string() });
export type ExtensionToken = v.InferOutput<typeof ExtensionTokenSchema>;

/** POST /api/users/extn_token — the extension's SIP password / event-channel token. */
export function getExtensionToken(
  client: PlatformClient,
  extn: string,
  domain: string,
  jwt = false,
): Promise<ExtensionToken> {
  return client.request("POST", "/api/users/extn_token", {
    body: { extn, domain, ...(jwt ? { jwt: true } : {}) },
    schema: ExtensionTokenSchema,
  });
}
