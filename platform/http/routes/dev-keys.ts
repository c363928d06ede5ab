import type { FastifyInstance, FastifyRequest } from "fastify";
import { randomBytes } from "node:crypto";
import type { PlatformContext } from "../../context";
import { timestamp } from "../../store/db";
import { SIGNED_IN, principalOf } from "../app";
import { envelope, fail } from "../errors";

interface DevKeyRow {
  id: number;
  user_id: number;
  k: string;
  description: string;
  enabled: number;
  created_at: string;
  updated_at: string;
  deleted_at: string;
}

const keyBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    action: { type: "string", enum: ["toggle"] },
    description: { type: "string", maxLength: 200 },
    // The spec's type: "number or numeric string".
    enabled: { enum: [0, 1, "0", "1"] },
  },
} as const;

/**
 * Developer keys: long-lived tokens a user makes for integrations. A user manages only their own
 * keys; an administrator may manage anyone's. Errors use the spec's texts: 403 'Wrong Auth Id',
 * 406 'Missing Args'.
 */
export function devKeyRoutes(app: FastifyInstance, ctx: PlatformContext) {
  const { db } = ctx;

  /** The user whose keys the path names, after checking the caller may manage them. */
  const owner = (req: FastifyRequest<{ Params: { user_id: string } }>): number => {
    const id = Number(req.params.user_id);
    if (!Number.isInteger(id) || id <= 0) throw fail(406, "Missing Args");
    const p = principalOf(req);
    if (p.user.id !== id && !p.user.is_admin) throw fail(403, "Wrong Auth Id");
    if (!ctx.users.byId(id)) throw fail(404, "User Does Not Exist");
    return id;
  };

  const keyOf = (userId: number, keyId: string): DevKeyRow => {
    const id = Number(keyId);
    if (!Number.isInteger(id) || id <= 0) throw fail(406, "Missing Args");
    const row = db.prepare("SELECT * FROM dev_keys WHERE id = ? AND user_id = ?").get(id, userId) as
      DevKeyRow | undefined;
    if (!row) throw fail(404, "Key Does Not Exist");
    return row;
  };

  app.post<{ Params: { user_id: string }; Body: { description?: string } | undefined }>(
    "/api/users/:user_id/dev_keys",
    {
      config: SIGNED_IN,
      schema: {
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: { description: { type: "string", maxLength: 200 } },
        },
      },
    },
    async (req) => {
      const userId = owner(req);
      const now = timestamp();
      const k = randomBytes(24).toString("hex");
      const info = db
        .prepare(
          "INSERT INTO dev_keys (user_id, k, description, enabled, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
        )
        .run(userId, k, req.body?.description ?? "", now, now);
      return envelope(db.prepare("SELECT * FROM dev_keys WHERE id = ?").get(info.lastInsertRowid) as DevKeyRow);
    },
  );

  app.get<{ Params: { user_id: string } }>("/api/users/:user_id/dev_keys", { config: SIGNED_IN }, async (req) => {
    const userId = owner(req);
    return db.prepare("SELECT * FROM dev_keys WHERE user_id = ? ORDER BY id").all(userId) as DevKeyRow[];
  });

  app.put<{
    Params: { user_id: string; key_id: string };
    Body: { action?: "toggle"; description?: string; enabled?: 0 | 1 | "0" | "1" };
  }>("/api/users/:user_id/dev_keys/:key_id", { config: SIGNED_IN, schema: { body: keyBody } }, async (req) => {
    const userId = owner(req);
    const key = keyOf(userId, req.params.key_id);
    const body = req.body ?? {};
    if (body.action === undefined && body.description === undefined && body.enabled === undefined) {
      throw fail(406, "Missing Args");
    }
    const enabled =
      body.action === "toggle"
        ? key.enabled
          ? 0
          : 1
        : body.enabled === undefined
          ? key.enabled
          : Number(body.enabled);
    db.prepare("UPDATE dev_keys SET enabled = ?, description = ?, updated_at = ? WHERE id = ?").run(
      enabled,
      body.description ?? key.description,
      timestamp(),
      key.id,
    );
    return envelope(db.prepare("SELECT * FROM dev_keys WHERE id = ?").get(key.id) as DevKeyRow);
  });

  app.delete<{ Params: { user_id: string; key_id: string } }>(
    "/api/users/:user_id/dev_keys/:key_id",
    { config: SIGNED_IN },
    async (req) => {
      const userId = owner(req);
      const key = keyOf(userId, req.params.key_id);
      db.prepare("DELETE FROM dev_keys WHERE id = ?").run(key.id);
      return envelope(String(key.id));
    },
  );

  app.delete<{ Params: { user_id: string } }>("/api/users/:user_id/dev_keys", { config: SIGNED_IN }, async (req) => {
    const userId = owner(req);
    db.prepare("DELETE FROM dev_keys WHERE user_id = ?").run(userId);
    return { code: 200, text: "OK" };
  });
}
