import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { describe, expect, it } from "vitest";
import { PATCHES, PatchNotApplied, dropSipJsDebugLogs, fillInviterSlot, trimSipJs } from "./sip-patches";

const lib = (path: string) => fileURLToPath(new URL(`../node_modules/sip.js/lib/${path}`, import.meta.url));
const source = (path: string) => readFileSync(lib(path), "utf8");

type Hook = (...args: unknown[]) => unknown;
/** A plugin's hook, called as the bundler would (these plugins use no bundler context). */
const hook = (plugin: Plugin, name: keyof Plugin) => (plugin[name] as Hook).bind({});

/** The plugin run over the given imports and files of sip.js, as a build would; what its end says. */
function build(plugin: Plugin, imports: [string, string][], files: string[]): () => unknown {
  hook(plugin, "buildStart")();
  for (const [specifier, importer] of imports) hook(plugin, "resolveId")(specifier, lib(importer), {});
  for (const file of files) hook(plugin, "transform")(source(file), lib(file));
  return () => hook(plugin, "buildEnd")();
}

const SWAPPED_IMPORTS: [string, string][] = [
  ["./md5.js", "core/messages/digest-authentication.js"],
  ["../user-agents/subscribe-user-agent-client.js", "core/user-agent-core/user-agent-core.js"],
  ["./inviter.js", "api/user-agent.js"],
];
const PATCHED_FILES = ["api/inviter.js", "grammar/pegjs/dist/grammar.js"];

describe("the build's sip.js patches", () => {
  it("all apply to the sip.js installed", () => {
    for (const [specifier, importer] of SWAPPED_IMPORTS) expect(source(importer)).toContain(`from "${specifier}"`);
    expect(build(trimSipJs(), SWAPPED_IMPORTS, PATCHED_FILES)).not.toThrow();
    expect(build(dropSipJsDebugLogs(), [], ["api/user-agent.js"])).not.toThrow();
  });

  it("fail the build, naming the patch, when the place they change is gone from sip.js", () => {
    const withoutSubscribe = SWAPPED_IMPORTS.filter(([specifier]) => !specifier.includes("subscribe"));
    expect(build(trimSipJs(), withoutSubscribe, PATCHED_FILES)).toThrow(PATCHES.subscribe);
    expect(build(trimSipJs(), SWAPPED_IMPORTS, ["grammar/pegjs/dist/grammar.js"])).toThrow(PATCHES.inviterFills);
    // A sip.js that logs on lines of another shape: nothing is dropped, and the build says so.
    const plugin = dropSipJsDebugLogs();
    hook(plugin, "buildStart")();
    hook(plugin, "transform")("this.logger\n  .debug('x');\n", lib("api/user-agent.js"));
    expect(() => hook(plugin, "buildEnd")()).toThrow(PATCHES.debugLogs);
  });

  it("refuse a file that no longer has what they change", () => {
    expect(() => fillInviterSlot("export class Caller extends Session {}")).toThrow(PatchNotApplied);
    expect(() => fillInviterSlot("export class Caller extends Session {}")).toThrow(PATCHES.inviterFills);
    const plugin = trimSipJs();
    hook(plugin, "buildStart")();
    expect(() =>
      hook(plugin, "transform")("export const parse = () => 0;", lib("grammar/pegjs/dist/grammar.js")),
    ).toThrow(PATCHES.grammar);
  });

  it("leave a build that failed for another cause to say so", () => {
    const plugin = trimSipJs();
    hook(plugin, "buildStart")();
    expect(hook(plugin, "buildEnd")(new Error("a module failed to parse"))).toBeUndefined();
  });
});
