import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestPlatform, rawRequest } from "./harness";

/**
 * Deny by default at the routing layer: every route declares who may call it, and what a route
 * declares holds whatever spelling of its path reached it (percent-encoding, double slashes, case,
 * dots). A check on the raw URL while the router matches the decoded path let `/%61pi/...` in.
 */
let p: TestPlatform;
let agent1Id: number;
const WALLBOARD = "https://wall.example.com";

beforeAll(async () => {
  // A wallboard page elsewhere may use the API (CORS): not the simulator.
  p = await TestPlatform.start({ allowedOrigins: [WALLBOARD] });
  agent1Id = p.userId("agent1");
});
afterAll(() => p.close());

/** The routes that answer without a token: signing in and out, captchas, the app's files. */
const PUBLIC_API = [
  "DELETE /api/sessions",
  "GET /api/captchas",
  "GET /api/captchas/:id",
  "HEAD /api/captchas",
  "HEAD /api/captchas/:id",
  "POST /api/sessions",
];

/** A path of the route with its parameters filled in with values that exist. */
function concrete(url: string): string {
  return url
    .replace(/:user_id|:id/g, String(agent1Id))
    .replace(":key_id", "1")
    .replace(":func", "ccGoReady")
    .replace(":uuid", "00000000-0000-4000-8000-000000000000")
    .replace(":file", "1.wav");
}

/** Other spellings of a path that a lax router or a proxy might take for it. */
function variants(path: string): string[] {
  const segments = path.split("/").slice(1);
  const encodeFirst = (s: string) => (s ? `%${s.charCodeAt(0).toString(16)}${s.slice(1)}` : s);
  const encodeAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join("");
  return [
    path,
    `/${segments.map(encodeFirst).join("/")}`,
    `/${encodeFirst(segments[0]!)}/${segments.slice(1).join("/")}`,
    `/${segments.map(encodeAll).join("/")}`,
    `/${segments.join("%2F")}`,
    `/${path}`,
    path.replace(/\//g, "//"),
    path.toUpperCase(),
    `/${segments[0]!.toUpperCase()}/${segments.slice(1).join("/")}`,
    `${path}.`,
    `${path}/`,
    `${path}%00`,
    `${path};x=1`,
    `/${segments[0]}./${segments.slice(1).join("/")}`,
    `/${segments[0]}/./${segments.slice(1).join("/")}`,
    `/x/../${segments.join("/")}`,
    `/${segments.join("\\")}`,
  ];
}

describe("every route declares who may call it", () => {
  it("lists each route with its rule; only sign-in, sign-out and captchas of /api answer without a token", () => {
    const routes = p.platform.routes;
    expect(routes.length).toBeGreaterThan(40);
    for (const r of routes) expect(["anyone", "signed-in", "simulator"], `${r.method} ${r.url}`).toContain(r.access);
    const open = routes
      .filter((r) => r.url.startsWith("/api") && r.access === "anyone")
      .map((r) => `${r.method} ${r.url}`);
    expect(open.sort()).toEqual(PUBLIC_API);
    expect(routes.filter((r) => r.url.startsWith("/sim")).every((r) => r.access === "simulator")).toBe(true);
  });

  it("refuses every route of a signed-in user without a token, however its path is spelled", async () => {
    const routes = p.platform.routes.filter((r) => r.access === "signed-in");
    const answered: string[] = [];
    for (const r of routes) {
      for (const path of variants(concrete(r.url))) {
        const res = await rawRequest(
          p.url,
          r.method,
          path,
          r.method === "GET" || r.method === "HEAD" ? undefined : "{}",
        );
        if (![400, 403, 404].includes(res.status))
          answered.push(`${r.method} ${path} -> ${res.status} ${res.text.slice(0, 80)}`);
      }
    }
    expect(answered).toEqual([]);
  });

  it("answers /%61pi/users/total and /%61pi/users/<id>/queue/name with a refusal, not the data", async () => {
    const total = await rawRequest(p.url, "GET", "/%61pi/users/total");
    expect(total.status).toBe(403);
    expect(total.text).not.toContain("count");
    const queues = await rawRequest(p.url, "GET", `/%61pi/users/${agent1Id}/queue/name`);
    expect(queues.status).toBe(403);
    expect(queues.text).not.toContain("support");
  });
});

describe("/sim: this machine only", () => {
  const STRANGER = "192.0.2.10";

  it("refuses every /sim route to another machine, however its path is spelled", async () => {
    const routes = p.platform.routes.filter((r) => r.access === "simulator");
    expect(routes.length).toBeGreaterThan(8);
    const answered: string[] = [];
    for (const r of routes) {
      for (const path of variants(concrete(r.url))) {
        const res = await p.platform.http.inject({
          method: r.method as "GET",
          url: path,
          remoteAddress: STRANGER,
          headers: { host: "localhost" },
          ...(r.method === "POST"
            ? { payload: { destination: "55510440", queue: "support", digits: "1", frequency: 440 } }
            : {}),
        });
        if (![400, 403, 404].includes(res.statusCode))
          answered.push(`${r.method} ${path} -> ${res.statusCode} ${res.body.slice(0, 80)}`);
      }
    }
    expect(answered).toEqual([]);
    expect(p.platform.ctx.switch.channels()).toEqual([]);
  });

  it("refuses a page that reached this machine under another name (DNS rebinding)", async () => {
    const res = await rawRequest(p.url, "POST", "/sim/calls", JSON.stringify({ destination: "55510440" }), {
      host: "attacker.example:80",
    });
    expect(res.status).toBe(403);
    expect(p.platform.ctx.switch.channels()).toEqual([]);
  });

  it("still serves this machine", async () => {
    const res = await rawRequest(p.url, "GET", "/sim/channels");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ data: [] });
  });
});

describe("/sim: this machine's tools, not web pages", () => {
  const CALL = { destination: "55510440", callerIdNumber: "5550100", callerIdName: "Mallory" };
  const placed = () => p.platform.ctx.sim.list(true).filter((c) => c.callerIdName === "Mallory");

  it("a form another site's page posts to /sim/calls places no call, with or without its Origin", async () => {
    const form = new URLSearchParams(CALL).toString();
    const formHeaders = { "content-type": "application/x-www-form-urlencoded" };
    // What Chromium sends for a form auto-submitted by a page of another site.
    const crossSite = await rawRequest(p.url, "POST", "/sim/calls", form, {
      ...formHeaders,
      origin: "https://attacker.example",
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
    });
    expect(crossSite.status).toBe(403);
    // A browser that sends neither: the form body itself is refused.
    const bare = await rawRequest(p.url, "POST", "/sim/calls", form, formHeaders);
    expect(bare.status).toBe(415);
    // A page's fetch with a text body (no preflight): JSON in it changes nothing.
    const text = await rawRequest(p.url, "POST", "/sim/calls", JSON.stringify(CALL), { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    const none = await rawRequest(p.url, "POST", "/sim/calls", JSON.stringify(CALL), { "content-type": "" });
    expect(none.status).toBe(415);
    expect(placed()).toEqual([]);
    expect(p.platform.ctx.switch.channels()).toEqual([]);
  });

  it("refuses every /sim route to a page of another origin, a configured one included, and to a page of the same site", async () => {
    const routes = p.platform.routes.filter((r) => r.access === "simulator");
    const answered: string[] = [];
    for (const r of routes) {
      for (const headers of <Record<string, string>[]>[
        { origin: "https://attacker.example" },
        { origin: WALLBOARD },
        { origin: "null" },
        { origin: `http://localhost:${new URL(p.url).port}0` },
        { "sec-fetch-site": "same-site" },
        { "sec-fetch-site": "cross-site" },
      ]) {
        const res = await rawRequest(
          p.url,
          r.method,
          concrete(r.url),
          r.method === "POST" ? JSON.stringify({ ...CALL, queue: "support", digits: "1", frequency: 440 }) : undefined,
          headers,
        );
        if (res.status !== 403) answered.push(`${r.method} ${r.url} ${JSON.stringify(headers)} -> ${res.status}`);
      }
    }
    expect(answered).toEqual([]);
    expect(placed()).toEqual([]);
  });

  it("serves this machine's tools (no Origin) and the platform's own pages, JSON or no body", async () => {
    const own = await rawRequest(p.url, "POST", "/sim/calls", JSON.stringify(CALL), {
      origin: p.url,
      "sec-fetch-site": "same-origin",
    });
    expect(own.status).toBe(200);
    const tool = await rawRequest(p.url, "POST", `/sim/channels/${JSON.parse(own.text).uuid}/hangup`, "{}", {
      "content-type": "application/json; charset=utf-8",
    });
    expect(tool.status).toBe(200);
    expect((await rawRequest(p.url, "GET", "/sim/channels", undefined, { "sec-fetch-site": "none" })).status).toBe(200);
  });
});
