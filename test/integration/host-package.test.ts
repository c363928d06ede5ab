import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packHostSdk } from "../../build/host-pack";

/**
 * The host SDK as a CRM developer gets it: `npm run host:pack`'s tarball, installed into a fresh
 * project with the strictest TypeScript settings and built with Vite, as its own page that embeds
 * the app. Nothing is downloaded: npm installs the tarball offline (the package has no
 * dependencies), and the project's TypeScript and Vite are this repository's, linked in.
 */
const repo = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;
let tarball: string;
const project = () => join(dir, "crm");
const run = (file: string, args: string[]) =>
  execFileSync(process.execPath, [file, ...args], { cwd: project(), encoding: "utf8", stdio: "pipe" });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentbar-host-package-"));
  tarball = await packHostSdk(dir);
  mkdirSync(join(project(), "src"), { recursive: true });
  writeFileSync(join(project(), "package.json"), JSON.stringify({ name: "crm", private: true, type: "module" }));
  execFileSync("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: project(),
    stdio: "pipe",
  });
  for (const tool of ["typescript", "vite"])
    symlinkSync(join(repo, "node_modules", tool), join(project(), "node_modules", tool), "dir");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the host SDK's npm package", () => {
  it("holds the ES module, the global build, one self-contained declaration file, the README and the changelog, and no Node built-in", () => {
    const installed = join(project(), "node_modules", "@agentbar", "host-sdk");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: "@agentbar/host-sdk",
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      type: "module",
      sideEffects: false,
      types: "./dist/agentbar-host.d.ts",
      exports: { ".": { types: "./dist/agentbar-host.d.ts", import: "./dist/agentbar-host.js" } },
    });
    expect(manifest).not.toHaveProperty("dependencies");
    expect(readdirSync(installed).sort()).toEqual(["CHANGELOG.md", "README.md", "dist", "package.json"]);
    expect(readdirSync(join(installed, "dist")).sort()).toEqual([
      "agentbar-host.d.ts",
      "agentbar-host.global.js",
      "agentbar-host.js",
    ]);
    const types = readFileSync(join(installed, "dist", "agentbar-host.d.ts"), "utf8");
    expect(types).not.toMatch(/^\s*(import|export \* from)\b|from ["']\./m);
    for (const file of ["agentbar-host.js", "agentbar-host.global.js"]) {
      const code = readFileSync(join(installed, "dist", file), "utf8");
      expect(code, file).not.toMatch(/\brequire\(|["']node:|\bprocess\.env\b/);
    }
    expect(readFileSync(join(installed, "README.md"), "utf8")).toContain('from "@agentbar/host-sdk"');
  });

  it("type-checks under the strictest settings and builds with Vite into a page that embeds the app", () => {
    writeFileSync(
      join(project(), "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          lib: ["ES2022", "DOM"],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noImplicitOverride: true,
          noPropertyAccessFromIndexSignature: true,
          verbatimModuleSyntax: true,
          isolatedModules: true,
          skipLibCheck: false,
          noEmit: true,
        },
        include: ["src"],
      }),
    );
    writeFileSync(
      join(project(), "index.html"),
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CRM</title></head><body><p id="status"></p><div id="agentbar"></div><script type="module" src="/src/main.ts"></script></body></html>',
    );
    writeFileSync(
      join(project(), "src", "main.ts"),
      `import { embed, AgentbarError, type CallInfo, type Snapshot } from "@agentbar/host-sdk";

async function start(status: HTMLElement, container: HTMLElement): Promise<void> {
  try {
    const bar = await embed({ url: "http://127.0.0.1:8080/", container, layout: "side" });
    const show = (s: Snapshot) => (status.textContent = s.user ? s.user.name : "not signed in");
    if (bar.state) show(bar.state);
    bar.on("state", show);
    bar.on("call.ringing", ({ call }: { call: CallInfo }) => {
      const account: string | undefined = call.data?.["X-IVR-Account"];
      console.log(call.party?.number ?? "hidden", call.queue, account);
    });
    bar.on("disconnected", ({ reason }) => console.warn(reason));
    bar.on("reconnected", ({ state }) => show(state));
    const { call } = await bar.consult("1002");
    const id: string = call.callId;
    await bar.completeTransfer(id);
    // @ts-expect-error: a number is not a destination.
    await bar.dial(42);
  } catch (e) {
    if (e instanceof AgentbarError) status.textContent = \`\${e.code}: \${e.message}\`;
  }
}
const status = document.getElementById("status");
const container = document.getElementById("agentbar");
if (!status || !container) throw new Error("the page lacks its elements");
void start(status, container);
`,
    );
    run("node_modules/typescript/bin/tsc", ["-p", "."]);
    run("node_modules/vite/bin/vite.js", ["build", "--logLevel", "warn"]);
    const assets = join(project(), "dist", "assets");
    const js = readdirSync(assets).filter((f) => f.endsWith(".js"));
    expect(js).toHaveLength(1);
    const bundle = readFileSync(join(assets, js[0]!), "utf8");
    expect(bundle).toContain("agentbar:connect");
    expect(readFileSync(join(project(), "dist", "index.html"), "utf8")).toContain(`/assets/${js[0]}`);
  });

  it("fails the type check of a page that misuses it", () => {
    writeFileSync(
      join(project(), "src", "main.ts"),
      `import { embed } from "@agentbar/host-sdk";\nvoid embed({ url: "x", container: document.body, layout: "sideways" });\n`,
    );
    let output = "the type check passed";
    try {
      run("node_modules/typescript/bin/tsc", ["-p", "."]);
    } catch (e) {
      output = String((e as { stdout?: unknown }).stdout);
    }
    expect(output).toContain(`Type '"sideways"' is not assignable to type 'Layout'`);
  });
});
