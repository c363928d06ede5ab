import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAppConfig } from "./app-config";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dist(config?: unknown): string {
  const folder = mkdtempSync(join(tmpdir(), "agentbar-app-config-"));
  folders.push(folder);
  const file = join(folder, "config.json");
  if (config !== undefined) writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return file;
}

describe("the app's config.json as the platform serves it", () => {
  it("adds the platform's hosts to the deployment's, and frames the app for the same list", () => {
    const c = loadAppConfig(
      dist({ other: { kept: true }, embed: { hosts: [{ origin: "https://crm.example.com", scopes: ["status"] }] } }),
      [{ origin: "http://localhost:8081", scopes: ["dial", "caller-data"] }],
    );
    expect(c.json).toEqual({
      other: { kept: true },
      embed: {
        hosts: [
          { origin: "https://crm.example.com", scopes: ["status"] },
          { origin: "http://localhost:8081", scopes: ["dial", "caller-data"] },
        ],
      },
    });
    expect(c.frameAncestors).toBe("'self' https://crm.example.com http://localhost:8081");
  });

  it("without a file, or with no hosts, only the app's own origin may frame it", () => {
    expect(loadAppConfig(dist(), [])).toEqual({ json: { embed: { hosts: [] } }, frameAncestors: "'self'" });
    expect(loadAppConfig(dist({ embed: { hosts: [] } }), []).frameAncestors).toBe("'self'");
  });

  it("a file or a host the app would refuse stops the start, naming the mistake", () => {
    expect(() => loadAppConfig(dist("{ not json"), [])).toThrow(/config\.json is not JSON/);
    expect(() =>
      loadAppConfig(dist({ embed: { hosts: [{ origin: "https://crm.example.com/", scopes: [] }] } }), []),
    ).toThrow(/embed\.hosts\.0\.origin/);
    expect(() => loadAppConfig(dist(), [{ origin: "*", scopes: [] }])).toThrow(
      /embed\.hosts\.0\.origin: '\*' is not an origin/,
    );
  });
});
