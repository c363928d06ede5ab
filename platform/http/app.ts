import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import fastifyStatic from "@fastify/static";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Carrier, Principal } from "../auth/sessions";
import type { PlatformContext } from "../context";
import { AuthError } from "../auth/auth-error";
import { HttpError, authRefusal, fail } from "./errors";
import { describeSchemaError } from "../schema-error";
import { validatorCompiler } from "./validation";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a token (sign-in, captchas). */
    public?: boolean;
  }
}

export const SESSION_COOKIE = "svc_xtra_session_id";

/**
 * The web interface keeps its session in a cookie; it is HttpOnly and same-site so that scripts
 * cannot read it and other sites cannot send it.
 */
export const sessionCookieOptions = (maxAge: number) => ({ path: "/", httpOnly: true, sameSite: "lax" as const, maxAge });

/** The token of a request from any of the three carriers the spec allows. */
export function tokenOf(req: FastifyRequest): { token: string; carrier: Carrier } | undefined {
  const header = req.headers["x-xtra-auth-id"];
  if (typeof header === "string" && header) return { token: header, carrier: "header" };
  const auth = req.headers.authorization;
  const bearer = typeof auth === "string" ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
  if (bearer) return { token: bearer, carrier: "bearer" };
  const cookieToken = req.cookies?.[SESSION_COOKIE];
  if (cookieToken) return { token: cookieToken, carrier: "cookie" };
  return undefined;
}

/** The authenticated caller of a route that is not public. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw fail(403, "Not authenticated");
  return req.principal;
}

export function requireAdmin(req: FastifyRequest): Principal {
  const p = principalOf(req);
  if (!p.user.is_admin) throw fail(403, "no permission");
  return p;
}

export async function buildHttpApp(ctx: PlatformContext): Promise<FastifyInstance> {
  const app = Fastify({
    logger: ctx.options.logLevel === "silent" ? false : { level: ctx.options.logLevel },
    bodyLimit: 1024 * 1024,
    // The spec's paths mix trailing slashes (`/api/users/`); treat them alike.
    routerOptions: { ignoreTrailingSlash: true },
    schemaErrorFormatter: (errors, dataVar) => new HttpError(400, { code: 400, text: describeSchemaError(errors, dataVar) }),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest("principal", null);

  await app.register(cors, {
    // Tokens travel in headers, not cookies, so any origin may call the API (as the real platform's
    // cross_domain option does); cookies are never honoured cross-origin.
    origin: true,
    credentials: false,
    allowedHeaders: ["Content-Type", "X-XTRA-AUTH-ID", "Authorization"],
    methods: ["GET", "POST", "PUT", "DELETE"],
  });
  await app.register(cookie);
  await app.register(formbody);
  // Many clients send Content-Type: application/json on every request, and the spec shows it on
  // DELETE /api/users/<id>/dev_keys, which has no body: an empty JSON body is no body.
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parseJson(req, body.toString(), done);
  });

  app.addHook("onRequest", async (req, reply) => {
    // An unknown route is a 404 whoever asks: the API's paths are public knowledge.
    if (!req.url.startsWith("/api/") || req.is404 || req.routeOptions.config?.public) return;
    const found = tokenOf(req);
    if (!found) throw fail(403, "Missing token: send X-XTRA-AUTH-ID, Authorization: Bearer or the session cookie");
    const principal = await ctx.auth.authenticate(found.token, found.carrier);
    if (!principal) throw fail(403, "Wrong or expired token");
    req.principal = principal;
    // The cookie's lifetime counts from the previous request; the browser's copy must follow, or
    // it would drop a session that is still in use.
    if (found.carrier === "cookie" && principal.kind === "token") {
      reply.setCookie(SESSION_COOKIE, found.token, sessionCookieOptions(ctx.options.sessionExpires));
    }
  });

  app.setErrorHandler((error: unknown, req: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AuthError) error = authRefusal(error);
    if (error instanceof HttpError) return reply.status(error.status).send(error.body);
    const e = error as { statusCode?: number; code?: string; message?: string };
    if (e.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error instanceof SyntaxError) {
      return reply.status(400).send({ code: 400, text: `malformed JSON body: ${e.message ?? ""}`.trim() });
    }
    if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
      return reply.status(e.statusCode).send({ code: e.statusCode, text: e.message ?? "Bad Request" });
    }
    req.log.error({ err: error }, "request failed");
    return reply.status(500).send({ code: 500, text: "Internal Error" });
  });

  // The app's pages may be framed only by the hosts its config.json allows (and itself).
  const csp = `frame-ancestors ${ctx.appConfig.frameAncestors}`;
  app.addHook("onSend", async (_req, reply) => {
    if (String(reply.getHeader("content-type") ?? "").startsWith("text/html")) reply.header("content-security-policy", csp);
  });
  // The served config.json carries the hosts this platform adds (the demo CRM's, a test's).
  app.get("/config.json", { config: { public: true } }, (_req, reply) => reply.header("cache-control", "no-cache").send(ctx.appConfig.json));

  const distDir = ctx.options.distDir;
  const indexFile = join(distDir, "index.html");
  if (existsSync(indexFile)) {
    await app.register(fastifyStatic, { root: distDir, prefix: "/", index: ["index.html"], wildcard: false, globIgnore: ["config.json"] });
  }

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "";
    if (path.startsWith("/api/") || path === "/api" || path.startsWith("/sim/")) {
      return reply.status(404).send({ code: 404, text: `Not Found: ${req.method} ${path}` });
    }
    if (req.method === "GET" && existsSync(indexFile) && !/\.[a-z0-9]+$/i.test(path)) {
      return reply.type("text/html").send(readFileSync(indexFile));
    }
    if (req.method === "GET" && path === "/") {
      return reply.status(503).type("text/plain").send("The app is not built: run `npm run build` (npm start does it).");
    }
    return reply.status(404).type("text/plain").send("Not Found");
  });

  return app;
}
