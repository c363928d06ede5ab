import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { frameAncestors, hostRuleFor, parseEmbedConfig } from "./embed-config";

const parse = (embed: unknown) => parseEmbedConfig({ embed });

describe("the embedding configuration", () => {
  it("reads hosts with their scopes and destination pattern", () => {
    const parsed = parse({
      hosts: [{ origin: "https://crm.example.com", scopes: ["dial", "caller-data"], destinations: "\\+1[0-9]{10}" }],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const rule = hostRuleFor(parsed.config, "https://crm.example.com")!;
    expect([...rule.scopes]).toEqual(["dial", "caller-data"]);
    expect(rule.destinations?.test("+15551234567")).toBe(true);
    // The pattern must match the whole destination.
    expect(rule.destinations?.test("+15551234567999")).toBe(false);
    expect(frameAncestors(parsed.config)).toBe("'self' https://crm.example.com");
  });

  it("no embed section, or no hosts, allows nobody; other sections are someone else's", () => {
    const none = parseEmbedConfig({ somethingElse: 1 });
    expect(none).toEqual({ ok: true, config: { hosts: [], callData: ["X-IVR-*"] } });
    if (none.ok) expect(frameAncestors(none.config)).toBe("'self'");
  });

  it("lists a call's data by header names and prefixes; X-IVR-* when it says nothing; never every header", () => {
    const hosts: unknown[] = [];
    expect(parse({ hosts })).toMatchObject({ ok: true, config: { callData: ["X-IVR-*"] } });
    expect(parse({ hosts, callData: [] })).toMatchObject({ ok: true, config: { callData: [] } });
    expect(parse({ hosts, callData: ["X-IVR-*", "User-to-User"] })).toMatchObject({
      ok: true,
      config: { callData: ["X-IVR-*", "User-to-User"] },
    });
    for (const [bad, problem] of [
      ["*", "'*' would take every header of a call"],
      ["X IVR", "'X IVR' is not a header name"],
      ["X-*-Account", "'X-*-Account' is not a header name"],
      ["X-IVR:", "'X-IVR:' is not a header name"],
    ]) {
      const parsed = parse({ hosts, callData: ["X-IVR-*", bad] });
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain(`config.json embed.callData.1: ${problem}`);
    }
    expect(parse({ hosts, callData: Array.from({ length: 33 }, (_, i) => `X-${i}`) }).ok).toBe(false);
  });

  it("matches origins exactly: scheme, host and port", () => {
    const parsed = parse({ hosts: [{ origin: "http://localhost:8081", scopes: [] }] });
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(hostRuleFor(parsed.config, "http://localhost:8081")).toBeDefined();
    for (const other of [
      "http://localhost:8082",
      "https://localhost:8081",
      "http://127.0.0.1:8081",
      "http://localhost:8081.evil.com",
      "null",
      "",
    ]) {
      expect(hostRuleFor(parsed.config, other), other).toBeUndefined();
    }
  });

  it("refuses mistakes with a message naming the entry, so that no host is allowed by accident", () => {
    const problem = (embed: unknown) => {
      const p = parse(embed);
      return p.ok ? "accepted" : p.problem;
    };
    expect(problem({ hosts: [{ origin: "https://crm.example.com/", scopes: [] }] })).toMatch(
      /hosts\.0\.origin: .*exactly as scheme:\/\/host/,
    );
    expect(problem({ hosts: [{ origin: "https://crm.example.com:443", scopes: [] }] })).toMatch(
      /https:\/\/crm\.example\.com\)/,
    );
    expect(problem({ hosts: [{ origin: "crm.example.com", scopes: [] }] })).toMatch(/hosts\.0\.origin/);
    expect(problem({ hosts: [{ origin: "ftp://crm.example.com", scopes: [] }] })).toMatch(/https:\/\/ or http:\/\//);
    expect(problem({ hosts: [{ origin: "*", scopes: [] }] })).toMatch(/not an origin/);
    expect(problem({ hosts: [{ origin: "https://crm.example.com", scopes: ["everything"] }] })).toMatch(
      /hosts\.0\.scopes\.0/,
    );
    expect(problem({ hosts: [{ origin: "https://crm.example.com", scopes: ["dial", "dial"] }] })).toMatch(/twice/);
    expect(problem({ hosts: [{ origin: "https://crm.example.com", scopes: [], platformUrl: "x" }] })).toMatch(
      /hosts\.0/,
    );
    expect(problem({ hosts: [{ origin: "https://crm.example.com", scopes: [], destinations: "(" }] })).toMatch(
      /destinations: not a regular expression/,
    );
    expect(problem({ hosts: [], autoAnswer: "always" })).toMatch(/embed/);
  });

  it("takes a wildcard subdomain only when wildcards are switched on, and matches it as CSP does", () => {
    expect(parse({ hosts: [{ origin: "https://*.example.com", scopes: [] }] })).toMatchObject({
      ok: false,
      problem: expect.stringContaining("wildcards"),
    });
    const parsed = parse({ wildcards: true, hosts: [{ origin: "https://*.example.com", scopes: ["status"] }] });
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(hostRuleFor(parsed.config, "https://crm.example.com")).toBeDefined();
    expect(hostRuleFor(parsed.config, "https://a.b.example.com")).toBeDefined();
    for (const other of [
      "https://example.com",
      "http://crm.example.com",
      "https://crm.example.com:8443",
      "https://evilexample.com",
      "https://crm.example.com.evil.net",
    ]) {
      expect(hostRuleFor(parsed.config, other), other).toBeUndefined();
    }
    expect(frameAncestors(parsed.config)).toBe("'self' https://*.example.com");
  });
});

describe("the documentation's config.json", () => {
  it("is one the app takes, as written", () => {
    const docs = readFileSync(new URL("../docs/embedding.md", import.meta.url), "utf8");
    const blocks = [...docs.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const parsed = parseEmbedConfig(JSON.parse(block));
      expect(parsed.ok && parsed.config.hosts.length, block).toBeGreaterThan(0);
    }
  });
});
