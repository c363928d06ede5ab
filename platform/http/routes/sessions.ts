import type { FastifyInstance } from "fastify";
import type { PlatformContext } from "../../context";
import type { LoginRequest } from "../../auth/sessions";
import { ANYONE, SESSION_COOKIE, sessionCookieOptions, tokenOf } from "../app";
import { fail } from "../errors";
import { MAX_INT32 } from "../validation";

const loginBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    login: { type: "string", minLength: 1, maxLength: 64 },
    password: { type: "string", maxLength: 128 },
    dev_key: { type: "string", minLength: 1, maxLength: 128 },
    jwt: { type: ["boolean", "string"], enum: [true, false, "true", "false"] },
    captcha_str: { type: "string", maxLength: 16 },
    refresh_token: { type: "string", minLength: 1, maxLength: 4096 },
    domain: { type: "string", maxLength: 128 },
  },
} as const;

export function sessionRoutes(app: FastifyInstance, ctx: PlatformContext) {
  app.post<{ Body: LoginRequest }>(
    "/api/sessions",
    { config: ANYONE, schema: { body: loginBody } },
    async (req, reply) => {
      const session = await ctx.auth.login(req.body ?? {});
      reply.setCookie(SESSION_COOKIE, session.token, sessionCookieOptions(ctx.options.sessionExpires));
      return session;
    },
  );

  app.delete("/api/sessions", { config: ANYONE }, async (req, reply) => {
    const found = tokenOf(req);
    if (!found) throw fail(403, "Missing token");
    if (!(await ctx.auth.logout(found.token))) throw fail(404, "Session Does Not Exist");
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return { code: 200, text: "OK" };
  });

  app.get<{ Querystring: { login?: string } }>(
    "/api/captchas",
    {
      config: ANYONE,
      schema: {
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { login: { type: "string", maxLength: 64 } },
        },
      },
    },
    async (req) => {
      const captcha = ctx.captchas.create(req.query.login ?? "");
      return {
        code: 200,
        message: "success",
        data: { captcha_id: captcha.id, pic_path: `/api/captchas/${captcha.id}` },
      };
    },
  );

  app.get<{ Params: { id: number } }>(
    "/api/captchas/:id",
    {
      config: ANYONE,
      schema: {
        params: {
          type: "object",
          properties: { id: { type: "integer", minimum: 0, maximum: MAX_INT32 } },
          required: ["id"],
        },
      },
    },
    async (req, reply) => {
      const svg = ctx.captchas.picture(req.params.id);
      if (!svg) throw fail(404, "Captcha Does Not Exist");
      return reply.type("image/svg+xml").header("Cache-Control", "no-store").send(svg);
    },
  );
}
