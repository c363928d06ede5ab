import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultOptions, optionsFromEnv } from "./config";

describe("optionsFromEnv", () => {
  it("takes the port, data folder, lifetime, captcha and log level from the environment", () => {
    expect(
      optionsFromEnv({
        AGENTBAR_PORT: "9090",
        AGENTBAR_DATA_DIR: "some/where",
        AGENTBAR_SESSION_EXPIRES: "3600",
        AGENTBAR_CAPTCHA: "true",
        AGENTBAR_LOG_LEVEL: "error",
      }),
    ).toEqual({
      port: 9090,
      dataDir: resolve("some/where"),
      sessionExpires: 3600,
      refreshExpires: defaultOptions.refreshExpires,
      captcha: true,
      logLevel: "error",
    });
    expect(optionsFromEnv({})).toEqual({});
    expect(optionsFromEnv({ AGENTBAR_PORT: "0" })).toEqual({ port: 0 });
  });

  it("keeps refresh tokens longer-lived than a long session lifetime", () => {
    const thirtyDays = 30 * 24 * 3600;
    const o = optionsFromEnv({ AGENTBAR_SESSION_EXPIRES: String(thirtyDays) });
    expect(o.refreshExpires).toBeGreaterThan(thirtyDays);
  });

  it("takes the allowed origins as a list of exact origins", () => {
    expect(optionsFromEnv({ AGENTBAR_ALLOWED_ORIGINS: "https://crm.example.com, http://localhost:3000" })).toEqual({
      allowedOrigins: ["https://crm.example.com", "http://localhost:3000"],
    });
    expect(optionsFromEnv({ AGENTBAR_ALLOWED_ORIGINS: "" })).toEqual({ allowedOrigins: [] });
    for (const wrong of [
      "https://crm.example.com/",
      "https://*.example.com",
      "crm.example.com",
      "https://crm.example.com/app",
      "null",
      "ftp://x.example",
      "https://crm.example.com:443",
    ]) {
      expect(() => optionsFromEnv({ AGENTBAR_ALLOWED_ORIGINS: wrong }), wrong).toThrow(/AGENTBAR_ALLOWED_ORIGINS/);
    }
  });

  it("takes the profile: the full platform by default, or only what the spec shows", () => {
    expect(defaultOptions.profile).toBe("full");
    expect(optionsFromEnv({ AGENTBAR_PLATFORM_PROFILE: "spec-minimal" })).toEqual({ profile: "spec-minimal" });
  });

  it("asks for the captcha by default", () => {
    expect(defaultOptions.captcha).toBe(true);
  });

  it("refuses values it cannot use, naming the variable", () => {
    expect(() => optionsFromEnv({ AGENTBAR_PORT: "http" })).toThrow(/AGENTBAR_PORT.*'http'/);
    expect(() => optionsFromEnv({ AGENTBAR_PORT: "70000" })).toThrow(/AGENTBAR_PORT/);
    expect(() => optionsFromEnv({ AGENTBAR_SESSION_EXPIRES: "1.5h" })).toThrow(/AGENTBAR_SESSION_EXPIRES/);
    expect(() => optionsFromEnv({ AGENTBAR_SESSION_EXPIRES: "0" })).toThrow(/AGENTBAR_SESSION_EXPIRES/);
    expect(() => optionsFromEnv({ AGENTBAR_CAPTCHA: "yes" })).toThrow(/AGENTBAR_CAPTCHA/);
    expect(() => optionsFromEnv({ AGENTBAR_LOG_LEVEL: "loud" })).toThrow(/AGENTBAR_LOG_LEVEL/);
    expect(() => optionsFromEnv({ AGENTBAR_PLATFORM_PROFILE: "minimal" })).toThrow(
      /AGENTBAR_PLATFORM_PROFILE.*'minimal'/,
    );
  });
});

describe("AGENTBAR_EMBED_HOSTS and AGENTBAR_APP_CONFIG", () => {
  it("take the host pages allowed to embed the app, with their scopes or the demo CRM's", () => {
    expect(
      optionsFromEnv({ AGENTBAR_EMBED_HOSTS: "http://localhost:3000  https://crm.example.com=status,caller-data;" })
        .embedHosts,
    ).toEqual([
      { origin: "http://localhost:3000", scopes: ["dial", "call-control", "status", "caller-data"] },
      { origin: "https://crm.example.com", scopes: ["status", "caller-data"] },
    ]);
    expect(optionsFromEnv({ AGENTBAR_EMBED_HOSTS: "" }).embedHosts).toEqual([]);
  });

  it("refuse what is not an exact origin or not a scope, naming the variable and the entry", () => {
    for (const bad of [
      "localhost:3000",
      "http://localhost:3000/",
      "https://*.example.com",
      "https://crm.example.com=dial,admin",
      "https://crm.example.com=",
      "https://crm.example.com=dial=status",
    ])
      expect(() => optionsFromEnv({ AGENTBAR_EMBED_HOSTS: bad }), bad).toThrow(
        new RegExp(
          `^AGENTBAR_EMBED_HOSTS takes origin\\[=scope,scope...\\].*not '${bad.replace(/[.*[\]]/g, "\\$&")}'$`,
        ),
      );
  });

  it("a deployment's config.json must exist where AGENTBAR_APP_CONFIG says", () => {
    const folder = mkdtempSync(join(tmpdir(), "agentbar-config-"));
    const file = join(folder, "config.json");
    try {
      expect(() => optionsFromEnv({ AGENTBAR_APP_CONFIG: file })).toThrow(
        /AGENTBAR_APP_CONFIG names .* does not exist/,
      );
      writeFileSync(file, "{}");
      expect(optionsFromEnv({ AGENTBAR_APP_CONFIG: file }).appConfigFile).toBe(file);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
