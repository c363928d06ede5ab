import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultOptions } from "../../platform/config";
import { startPlatform } from "../../platform/platform";
import { DEMO_PASSWORD, TestPlatform, demo } from "./harness";

const root = resolve(import.meta.dirname, "../..");

describe("data folder", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("is created on first start with an SQLite database filled from the demo file, and not refilled later", async () => {
    const p = await TestPlatform.start();
    cleanup.push(() => p.close());
    expect(existsSync(join(p.dataDir, "platform.sqlite"))).toBe(true);
    const admin = await p.token("admin");
    const users = await p.call<{ rowCount: number; data: { login: string }[] }>("GET", "/api/users", { token: admin });
    expect(users.body.data.map((u) => u.login)).toEqual(demo.users.map((u) => u.login));

    const created = await p.call("POST", "/api/users", {
      token: admin,
      body: { login: "kept", name: "Kept", password: "Kept@Pass1" },
    });
    expect(created.status).toBe(200);
    await p.restart();
    const after = await p.call<{ rowCount: number; data: { login: string }[] }>("GET", "/api/users", {
      token: await p.token("admin"),
    });
    expect(after.body.rowCount).toBe(demo.users.length + 1);
    expect(after.body.data.map((u) => u.login)).toContain("kept");
  });

  it("is filled on the next start when the first one failed on a broken demo file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentbar-it-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const demoFile = join(dir, "demo.json");
    const dataDir = join(dir, "data");
    const options = { port: 0, host: "127.0.0.1", logLevel: "silent" as const, dataDir, demoFile };

    writeFileSync(demoFile, readFileSync(defaultOptions.demoFile, "utf8").replace('"users"', '"users" oops'));
    await expect(startPlatform(options)).rejects.toThrow(/demo/i);

    writeFileSync(demoFile, readFileSync(defaultOptions.demoFile, "utf8"));
    const p = await startPlatform(options);
    cleanup.push(() => p.close());
    const res = await fetch(`${p.url}/api/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ login: "agent1", password: DEMO_PASSWORD }),
    });
    expect(res.status).toBe(200);
  });
});

describe("stopping", () => {
  it("ends a download the client has stopped reading, instead of waiting for it", async () => {
    const p = await TestPlatform.start();
    const { mediaFiles } = p.platform.ctx;
    const place = mediaFiles.placeRecording("stopping-with-a-paused-reader");
    writeFileSync(place.absPath, Buffer.alloc(20 * 1024 * 1024));
    const id = mediaFiles.addRecording("stopping-with-a-paused-reader", place, {
      userId: null,
      domain: demo.domain,
      name: "long",
    });
    mediaFiles.completeRecording(id, 200_000);
    // A player that paused: the answer's head is read, its 20 MB body is not.
    const paused = await fetch(`${p.url}/api/media_files/${id}.wav`, {
      headers: { "X-XTRA-AUTH-ID": await p.token("admin") },
    });
    expect(paused.status).toBe(200);

    await p.close();
    await expect(paused.arrayBuffer()).rejects.toThrow();
  });
});

describe("npm start", () => {
  it("serves on AGENTBAR_PORT with its data in AGENTBAR_DATA_DIR, and lets the pages of the data folder's config.json and of AGENTBAR_EMBED_HOSTS embed the app", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "agentbar-it-")), "data");
    mkdirSync(dataDir);
    const kept = { embed: { hosts: [{ origin: "https://crm.example.com", scopes: ["status"] }] } };
    writeFileSync(join(dataDir, "config.json"), JSON.stringify(kept));
    const child = spawn(process.execPath, ["--import", "tsx", "platform/main.ts"], {
      cwd: root,
      env: {
        ...process.env,
        AGENTBAR_PORT: "0",
        AGENTBAR_CRM_PORT: "0",
        AGENTBAR_DATA_DIR: dataDir,
        AGENTBAR_LOG_LEVEL: "silent",
        AGENTBAR_EMBED_HOSTS: "http://localhost:3000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const m = /running at (http:\/\/\S+)/.exec(out);
          if (m) resolveUrl(m[1]!);
        });
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.on("exit", (code) => reject(new Error(`platform exited with ${code}: ${err}`)));
      });
      expect(url).toMatch(/^http:\/\/localhost:\d+$/);
      const res = await fetch(`${url}/api/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ login: "agent1", password: DEMO_PASSWORD }),
      });
      expect(res.status).toBe(200);
      expect(existsSync(join(dataDir, "platform.sqlite"))).toBe(true);
      const config = (await (await fetch(`${url}/config.json`)).json()) as typeof kept;
      expect(config.embed.hosts.map((h) => h.origin)).toEqual([
        "https://crm.example.com",
        "http://localhost:3000",
        expect.stringMatching(/^http:\/\/localhost:\d+$/),
        expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      ]);
      expect(config.embed.hosts[1]).toEqual({
        origin: "http://localhost:3000",
        scopes: ["dial", "call-control", "status", "caller-data"],
      });
      expect((await fetch(url)).headers.get("content-security-policy")).toContain(
        "frame-ancestors 'self' https://crm.example.com http://localhost:3000 ",
      );
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(resolve(dataDir, ".."), { recursive: true, force: true });
    }
  });
});
