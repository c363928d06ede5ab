import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { TestPlatform, rawRequest } from "./harness";

/**
 * CORS and framing: the platform answers cross-origin requests only for the app's own origin and
 * the origins configured (AGENTBAR_ALLOWED_ORIGINS), never for any Origin nor `null`; its pages
 * may be framed only by the hosts of the embedding allowlist (config.json); the host SDK (/embed/)
 * is any page's to load; and it sends the usual security headers.
 */
const CRM = "https://crm.example.com";
/** A host page the app's config.json allows to embed it. */
const HOST_PAGE = "https://host.example.com";
const EVIL = "https://evil.example";
let p: TestPlatform;
let dist: string;
let token: string;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "agentbar-dist-"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>Agentbar</title>");
  writeFileSync(join(dist, "app.js"), "export {};");
  mkdirSync(join(dist, "embed"));
  writeFileSync(join(dist, "embed", "agentbar-host.js"), "export const embed = () => {};");
  writeFileSync(join(dist, "embed", "agentbar-host.global.js"), "var AgentbarHost = {};");
  writeFileSync(join(dist, "embed", "agentbar-host.d.ts"), "export declare function embed(): void;");
  writeFileSync(
    join(dist, "config.json"),
    JSON.stringify({ embed: { hosts: [{ origin: HOST_PAGE, scopes: ["status"] }] } }),
  );
  p = await TestPlatform.start({ distDir: dist, allowedOrigins: [CRM] });
  token = await p.token("agent1");
});
afterAll(async () => {
  await p.close();
  rmSync(dist, { recursive: true, force: true });
});

const info = (origin: string) =>
  rawRequest(p.url, "GET", "/api/users/info", undefined, { origin, "x-xtra-auth-id": token });
const preflight = (origin: string) =>
  rawRequest(p.url, "OPTIONS", "/api/users/info", undefined, {
    origin,
    "access-control-request-method": "GET",
    "access-control-request-headers": "x-xtra-auth-id",
  });

describe("CORS", () => {
  it("answers the app's own origin and the configured ones", async () => {
    for (const origin of [p.url, CRM]) {
      const res = await info(origin);
      expect(res.status).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe(origin);
      expect(String(res.headers.vary)).toMatch(/origin/i);
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers["access-control-allow-origin"]).toBe(origin);
      expect(String(pre.headers["access-control-allow-headers"]).toLowerCase()).toContain("x-xtra-auth-id");
    }
  });

  it("gives any other origin, and null, no permission to read", async () => {
    for (const origin of [
      EVIL,
      "null",
      "https://crm.example.com.evil.example",
      "http://crm.example.com",
      `${CRM}:8443`,
      "file://",
    ]) {
      const res = await info(origin);
      expect(res.headers["access-control-allow-origin"], origin).toBeUndefined();
      const pre = await preflight(origin);
      expect(pre.headers["access-control-allow-origin"], origin).toBeUndefined();
      expect(pre.status, origin).not.toBe(204);
    }
  });

  it("refuses a WebSocket from a page of another origin; phones and other programs send none", async () => {
    const open = (origin?: string, protocol?: string) =>
      new Promise<number | "open">((resolve) => {
        const ws = new WebSocket(
          `${p.url.replace("http", "ws")}/ws`,
          protocol ? [protocol] : [],
          origin ? { origin } : {},
        );
        ws.once("open", () => {
          ws.close();
          resolve("open");
        });
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("error", () => undefined);
      });
    expect(await open(EVIL)).toBe(403);
    expect(await open("null")).toBe(403);
    expect(await open(EVIL, "sip")).toBe(403);
    expect(await open(CRM)).toBe("open");
    expect(await open(p.url)).toBe("open");
    expect(await open()).toBe("open");
  });
});

describe("the host SDK", () => {
  it("is any page's to load, as a script, an ES module or TypeScript declarations, while the API stays closed to that page", async () => {
    const files = {
      "/embed/agentbar-host.js": /^(text|application)\/javascript; charset=utf-8$/,
      "/embed/agentbar-host.global.js": /^(text|application)\/javascript; charset=utf-8$/,
      "/embed/agentbar-host.d.ts": /^application\/typescript; charset=utf-8$/,
    };
    for (const [path, type] of Object.entries(files)) {
      const res = await rawRequest(p.url, "GET", path, undefined, { origin: EVIL });
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"], path).toMatch(type);
      expect(res.headers["access-control-allow-origin"], path).toBe("*");
      expect(res.headers["access-control-allow-credentials"], path).toBeUndefined();
      expect(res.headers["cross-origin-resource-policy"], path).toBe("cross-origin");
    }
    expect((await rawRequest(p.url, "GET", "/embed/agentbar-host.js")).headers["x-typescript-types"]).toBe(
      "./agentbar-host.d.ts",
    );
    // The app's own files and the API answer that page nothing more than before.
    expect((await rawRequest(p.url, "GET", "/app.js", undefined, { origin: EVIL })).headers).not.toHaveProperty(
      "access-control-allow-origin",
    );
    expect((await info(EVIL)).headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("the session cookie", () => {
  it("is not honoured for a request from a page of another origin (cross-site request forgery)", async () => {
    const admin = await p.token("admin");
    const form = new URLSearchParams({ login: "planted", name: "Planted", password: "Planted@2026" }).toString();
    const post = (origin: string) =>
      rawRequest(p.url, "POST", "/api/users", form, {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `svc_xtra_session_id=${admin}`,
        origin,
      });
    // A page on another port of the same host is the same site: the browser sends it the cookie.
    const forged = await post(p.url.replace(/:\d+$/, ":1"));
    expect(forged.status).toBe(403);
    expect(p.platform.ctx.users.byLogin("planted")).toBeUndefined();
    expect((await post(p.url)).status).toBe(200);
    expect(p.platform.ctx.users.byLogin("planted")).toBeDefined();
  });
});

describe("framing and security headers", () => {
  it("lets only the app itself and the hosts its config.json allows frame its pages", async () => {
    for (const path of ["/", "/?layout=bar", "/some/page"]) {
      const res = await rawRequest(p.url, "GET", path);
      expect(res.status, path).toBe(200);
      // One policy, whose frame-ancestors is the embedding allowlist (an origin allowed to call
      // the API is not thereby allowed to frame the app).
      const csp = res.headers["content-security-policy"];
      expect(typeof csp, path).toBe("string");
      expect(csp).toMatch(new RegExp(`frame-ancestors 'self' ${HOST_PAGE}(;|$)`));
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'self'");
    }
  });

  it("sends the usual security headers with pages, files and API answers", async () => {
    for (const path of ["/", "/app.js", "/api/captchas?login=agent1"]) {
      const res = await rawRequest(p.url, "GET", path);
      expect(res.headers["x-content-type-options"], path).toBe("nosniff");
      expect(res.headers["referrer-policy"], path).toBe("no-referrer");
      expect(res.headers["cross-origin-opener-policy"], path).toBe("same-origin");
      expect(res.headers["x-powered-by"], path).toBeUndefined();
    }
    const api = await rawRequest(p.url, "GET", "/api/users/info", undefined, { "x-xtra-auth-id": token });
    expect(api.headers["cache-control"]).toBe("no-store");
  });
});
