import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import fastifyStatic from "@fastify/static";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Carrier, Principal } from "../auth/sessions";
import type { PlatformContext } from "../context";
import { AuthError } from "../auth/auth-error";
import { HttpError, authRefusal, fail } from "./errors";
import { isOwnOrigin } from "../origins";
import { describeSchemaError } from "../schema-error";
import { validatorCompiler } from "./validation";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route (see Access). A route that declares nothing is refused. */
    access?: Access;
  }
}

/**
 * Who may call a route; every route declares one, and a route that declares none is refused
 * (deny by default). It is checked on the route the router matched, so every spelling of a path
 * that reaches a route (percent-encoded, a trailing slash) meets the same rule.
 * - `anyone`: signing in and out, captchas, the app's files.
 * - `signed-in`: a live token of an enabled user (an administrator's rights are checked by the
 *   route).
 * - `simulator`: the /sim test surface, as the `simApi` option says (this machine only by default).
 */
export type Access = "anyone" | "signed-in" | "simulator";
export const ANYONE = { access: "anyone" } as const;
export const SIGNED_IN = { access: "signed-in" } as const;
export const SIMULATOR = { access: "simulator" } as const;

/** A route of the platform and who may call it, as registered. */
export interface RouteInfo {
  method: string;
  url: string;
  access: Access | "undeclared";
}

export const SESSION_COOKIE = "svc_xtra_session_id";

/**
 * The web interface keeps its session in a cookie; it is HttpOnly and same-site so that scripts
 * cannot read it and other sites cannot send it.
 */
export const sessionCookieOptions = (maxAge: number) => ({
  path: "/",
  httpOnly: true,
  sameSite: "lax" as const,
  maxAge,
});

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

/**
 * The security headers of every answer. The CSP lets the app's pages load only the app's own
 * scripts and styles, reach any platform address the user types (http, https, ws, wss), and be
 * framed only by itself and the hosts of the embedding allowlist (config.json, `embedHosts`).
 */
function securityHeaders(frameAncestors: string): Record<string, string> {
  return {
    "Content-Security-Policy": [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob: http: https:",
      "media-src 'self' blob:",
      "connect-src 'self' http: https: ws: wss:",
      "worker-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      `frame-ancestors ${frameAncestors}`,
    ].join("; "),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
  };
}

/**
 * The host SDK (`/embed/*`) is for CRM pages on other origins: any page may load it (it holds no
 * secret: the app, not the SDK, decides who may talk to it), as a script, an ES module
 * (`import()` needs CORS) or its declarations, which are TypeScript, not an MPEG stream as `.ts`
 * would say. The API and the WebSockets keep their own origin list (`OriginPolicy`).
 */
export function hostSdkHeaders(file: string): Record<string, string> {
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
  };
  if (file.endsWith(".d.ts")) headers["Content-Type"] = "application/typescript; charset=utf-8";
  // Deno and CDNs read the types of an ES module from this header.
  if (file === "embed/agentbar-host.js") headers["X-TypeScript-Types"] = "./agentbar-host.d.ts";
  return headers;
}

/** Paths of the app's own pages (served index.html); nothing that might be taken for /api or /sim. */
const APP_PAGE = /^\/(?!(api|sim)(\/|$))([A-Za-z0-9_-]+\/?)*$/i;

export async function buildHttpApp(ctx: PlatformContext): Promise<{ app: FastifyInstance; routes: () => RouteInfo[] }> {
  const app = Fastify({
    logger: ctx.options.logLevel === "silent" ? false : { level: ctx.options.logLevel },
    bodyLimit: 256 * 1024,
    // A request must arrive whole within this time (a client trickling bytes holds a socket).
    requestTimeout: 30_000,
    // Stopping ends every connection, not only idle ones: a client that stopped reading a response
    // (a paused recording, an unread download) would otherwise hold the stop for ever.
    forceCloseConnections: true,
    // The spec's paths mix trailing slashes (`/api/users/`); treat them alike.
    routerOptions: { ignoreTrailingSlash: true },
    schemaErrorFormatter: (errors, dataVar) =>
      new HttpError(400, { code: 400, text: describeSchemaError(errors, dataVar) }),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest("principal", null);

  // Read once every route is in: hooks of inner scopes complete a route's options after this one.
  const registered: { method: string | string[]; url: string; config?: { access?: Access } }[] = [];
  const routes = () =>
    registered.flatMap((r) =>
      [r.method].flat().map((method) => ({ method, url: r.url, access: r.config?.access ?? ("undeclared" as const) })),
    );
  app.addHook("onRoute", (route) => {
    // @fastify/cors answers the preflights it allows in its own hook; its catch-all OPTIONS route
    // only lets fastify accept the method, and answers 404 to everything else.
    if (route.method === "OPTIONS" && route.url === "*") route.config = { ...route.config, ...ANYONE };
    registered.push(route);
  });

  const { origins } = ctx;
  // The app's pages may be framed only by itself and the hosts its config.json allows.
  const headers = securityHeaders(ctx.appConfig.frameAncestors);
  app.addHook("onRequest", async (_req, reply) => {
    reply.headers(headers);
  });

  await app.register(cors, {
    // Only the app's own origin and the configured ones are answered; never any Origin nor null.
    delegator: (req, done) => {
      const origin = req.headers.origin;
      done(null, {
        origin: origin !== undefined && origins.trusts(origin, req.headers.host) ? origin : false,
        credentials: false,
        allowedHeaders: ["Content-Type", "X-XTRA-AUTH-ID", "Authorization"],
        methods: ["GET", "POST", "PUT", "DELETE"],
        maxAge: 600,
      });
    },
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
    if (req.is404) return;
    const access = req.routeOptions.config?.access;
    if (access === "anyone") return;
    if (access === "simulator") return simulatorMayCall(req, ctx.options.simApi);
    if (access !== "signed-in") throw fail(403, "no permission: this route declares no access");
    // Personal data: neither the browser nor a proxy keeps a copy.
    reply.header("Cache-Control", "no-store");
    const found = tokenOf(req);
    if (!found) throw fail(403, "Missing token: send X-XTRA-AUTH-ID, Authorization: Bearer or the session cookie");
    // The browser adds the cookie by itself, also to a form another site's page sends here; a
    // request it carries must come from a page the platform trusts.
    const origin = req.headers.origin;
    if (found.carrier === "cookie" && origin !== undefined && !origins.trusts(origin, req.headers.host)) {
      throw fail(403, "no permission: the session cookie is not accepted from a page of another origin");
    }
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
    if (error instanceof AuthError) error = authRefusal(error, ctx.options.profile);
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

  // The served config.json carries the hosts this platform adds (the demo CRM's, a test's).
  app.get("/config.json", { config: ANYONE }, (_req, reply) =>
    reply.header("cache-control", "no-cache").send(ctx.appConfig.json),
  );

  const distDir = ctx.options.distDir;
  const indexFile = join(distDir, "index.html");
  if (existsSync(indexFile)) {
    // The app's files are everyone's: their routes declare so in a scope of their own.
    await app.register(async (files) => {
      files.addHook("onRoute", (route) => {
        route.config = { ...route.config, ...ANYONE };
      });
      await files.register(fastifyStatic, {
        root: distDir,
        prefix: "/",
        index: ["index.html"],
        wildcard: false,
        globIgnore: ["config.json"],
        setHeaders: (reply: FastifyReply, path: string) => {
          const file = relative(distDir, path).split(sep).join("/");
          if (file.startsWith("embed/")) reply.headers(hostSdkHeaders(file));
        },
      });
    });
  }

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "";
    if (path.startsWith("/api/") || path === "/api" || path.startsWith("/sim/")) {
      return reply.status(404).send({ code: 404, text: `Not Found: ${req.method} ${path}` });
    }
    if (req.method === "GET" && existsSync(indexFile) && APP_PAGE.test(path)) {
      return reply.type("text/html").send(readFileSync(indexFile));
    }
    if (req.method === "GET" && path === "/") {
      return reply
        .status(503)
        .type("text/plain")
        .send("The app is not built: run `npm run build` (npm start does it).");
    }
    return reply.status(404).type("text/plain").send("Not Found");
  });

  return { app, routes };
}

/**
 * /sim is for the tools of this machine (tests, the demo CRM's server), not for web pages: it
 * places calls without a token, so a page of another site that the agent's browser opens must not
 * reach it. With `simApi` loopback (the default) only a client on this machine that addressed it
 * by a name of this machine gets in; whatever `simApi` says, a request a page sent is refused
 * unless the page is the platform's own (its `Origin`, and `Sec-Fetch-Site` for the requests
 * browsers send without an Origin), and a body is JSON or nothing: a form or a text body, which
 * any page may send without asking first (no CORS preflight), is 415.
 */
function simulatorMayCall(req: FastifyRequest, mode: PlatformContext["options"]["simApi"]): void {
  // A page elsewhere can make a browser on this machine send requests here under its own name
  // (DNS rebinding): the Host it names must be this machine's too.
  const host = (req.headers.host ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  if (mode !== "on" && (!isLoopback(req.socket.remoteAddress) || !(host === "localhost" || isLoopback(host)))) {
    throw fail(403, "no permission: the simulator answers only on this machine (simApi: loopback)");
  }
  const origin = req.headers.origin;
  const site = req.headers["sec-fetch-site"];
  if (
    (origin !== undefined && !isOwnOrigin(origin, req.headers.host)) ||
    (site !== undefined && site !== "same-origin" && site !== "none")
  ) {
    throw fail(403, "no permission: the simulator does not answer web pages of other origins");
  }
  const type = req.headers["content-type"]?.split(";")[0]!.trim().toLowerCase();
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if ((type !== undefined && type !== "application/json") || (hasBody && type === undefined)) {
    throw fail(415, "the simulator takes JSON bodies only (Content-Type: application/json)");
  }
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
