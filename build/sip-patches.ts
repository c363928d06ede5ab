import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { PHONE_GRAMMAR_RULES, trimSipGrammar } from "./sip-grammar";

/**
 * The browser build's changes to sip.js's compiled code (`vite.config.ts` uses these plugins).
 * Each one finds its place in sip.js by a file name, an import or a line's shape; when sip.js
 * changes, a place can be gone, and a change that silently stops applying would ship a bigger or
 * a broken phone. So every patch says when it applied, and a build in which one of them did not
 * fails, naming the patch. `build/sip-patches.test.ts` checks each against the sip.js installed.
 * Unit and integration tests run sip.js as published.
 */

const SIPJS_LIB = /[\\/]node_modules[\\/]sip\.js[\\/]lib[\\/]/;
/** sip.js's outgoing call, fetched on demand (see `trimSipJs`). */
export const SIPJS_INVITER = /[\\/]node_modules[\\/]sip\.js[\\/]lib[\\/]api[\\/]inviter\.js$/;
const SIPJS_GRAMMAR = /[\\/]sip\.js[\\/]lib[\\/]grammar[\\/]pegjs[\\/]dist[\\/]grammar\.js$/;

/** The patches, by the name a failed build gives. */
export const PATCHES = {
  debugLogs: "drop sip.js's log and debug calls",
  md5: "sip.js's MD5 replaced by src/softphone/md5.ts",
  subscribe: "sip.js's SUBSCRIBE client left out",
  inviterSlot: "sip.js's user agent reads Inviter from a slot",
  inviterFills: "sip.js's inviter.js fills the slot",
  grammar: "sip.js's SIP grammar trimmed to the phone's rules",
} as const;
type Patch = keyof typeof PATCHES;

/** A patch that found nothing to change in sip.js: the build stops here. */
export class PatchNotApplied extends Error {
  readonly kind = "patch-not-applied";
  constructor(patch: Patch, why: string) {
    super(`The sip.js patch "${PATCHES[patch]}" (build/sip-patches.ts) did not apply: ${why}. Has sip.js changed?`);
    this.name = "PatchNotApplied";
  }
}

/** Keeps which patches applied in one build, and fails the build's end for those that did not. */
function appliedIn(expected: Patch[]) {
  let applied = new Set<Patch>();
  return {
    mark: (patch: Patch) => applied.add(patch),
    start: () => (applied = new Set()),
    /** Throws for the first patch that did not apply; a build that failed for another cause is left to say so. */
    check(error?: Error) {
      if (error) return;
      const missing = expected.find((p) => !applied.has(p));
      if (missing) throw new PatchNotApplied(missing, "the place it changes was not in this build");
    },
  };
}

/** A statement of one line, `logger.log(...)` or `logger.debug(...)`, with what precedes it on its line. */
const DEBUG_LOG_LINE = /^(\s*)[\w.]*logger\.(?:log|debug)\(.*\);[ \t]*$/gm;

/**
 * sip.js's code with its "log" and "debug" calls dropped. The phone runs sip.js at "warn", so
 * those calls only build strings nobody reads. Each is one statement on one line in sip.js's
 * compiled code (checked: none has side effects), replaced by an empty statement so that a
 * braceless `if` above it keeps its meaning. Warnings and errors stay.
 */
export function dropDebugLogs(code: string): { code: string; dropped: number } {
  let dropped = 0;
  const out = code.replace(DEBUG_LOG_LINE, (_line, indent: string) => {
    dropped++;
    return `${indent};`;
  });
  return { code: out, dropped };
}

export function dropSipJsDebugLogs(): Plugin {
  const patches = appliedIn(["debugLogs"]);
  return {
    name: "agentbar:drop-sipjs-debug-logs",
    apply: "build",
    buildStart: () => void patches.start(),
    transform(code, id) {
      if (!SIPJS_LIB.test(id)) return null;
      const out = dropDebugLogs(code);
      if (out.dropped === 0) return null;
      patches.mark("debugLogs");
      return { code: out.code, map: null };
    },
    buildEnd: (error) => patches.check(error),
  };
}

const INVITER_SLOT = "\0agentbar:inviter-slot";

/** inviter.js with the line that hands its class to the slot sip.js's user agent reads. */
export function fillInviterSlot(code: string): string {
  if (!/^export class Inviter\b/m.test(code))
    throw new PatchNotApplied("inviterFills", "inviter.js no longer exports `class Inviter`");
  return `${code}\nimport { provideInviter } from ${JSON.stringify(INVITER_SLOT)};\nprovideInviter(Inviter);\n`;
}

/**
 * Parts of sip.js the phone never runs, swapped at build time for smaller ones:
 * - its MD5 class (incremental hashing, state export; 2.5 KB gzip), used only for digest
 *   answers, by `src/softphone/md5.ts` (the same hashes: md5.test.ts checks it against sip.js's);
 * - the client side of SUBSCRIBE (the user agent core's `subscribe`, with the subscription dialog
 *   it makes; about 3 KB gzip): sip.js's `Subscriber` is the only caller, and the phone has none.
 *   A NOTIFY within a call (a transfer's progress) goes through the call's dialog, not this.
 *   Called anyway, the stand-in throws.
 * - its outgoing call (`Inviter`, about 3.4 KB gzip) gets a file of its own, fetched by the phone
 *   the first time it places a call or once the page is ready (`outgoingCalls` in
 *   src/softphone/outgoing-calls.ts): an agent who only takes calls never runs it. sip.js's user agent
 *   names the class only to follow a REFER (`_makeInviter`, which the phone calls once the class
 *   is loaded); it reads it from a slot that the class's module fills when it runs.
 * - its SIP grammar keeps only the rules the phone parses from (`build/sip-grammar.ts`: the
 *   others' bytecode and constants go, and what an error message would say a refused input
 *   lacked; 2 KB gzip); a kept rule runs the same bytecode as before and refuses the same input
 *   at the same place, which `build/sip-grammar.test.ts` checks against the published grammar.
 *   Its rule table is decoded once, when the module loads, instead of at every parse.
 */
export function trimSipJs(): Plugin {
  const md5 = fileURLToPath(new URL("../src/softphone/md5.ts", import.meta.url));
  const noSubscribe = "\0agentbar:no-subscribe-client";
  const patches = appliedIn(["md5", "subscribe", "inviterSlot", "inviterFills", "grammar"]);
  return {
    name: "agentbar:trim-sipjs",
    apply: "build",
    enforce: "pre",
    buildStart: () => void patches.start(),
    resolveId(source, importer) {
      if (source === INVITER_SLOT) return INVITER_SLOT;
      if (!importer || !SIPJS_LIB.test(importer)) return null;
      const swap = (patch: Patch, id: string) => {
        patches.mark(patch);
        return id;
      };
      if (source === "./md5.js") return swap("md5", md5);
      if (source === "../user-agents/subscribe-user-agent-client.js" && /user-agent-core\.js$/.test(importer))
        return swap("subscribe", noSubscribe);
      if (source === "./inviter.js" && /[\\/]api[\\/]user-agent\.js$/.test(importer))
        return swap("inviterSlot", INVITER_SLOT);
      return null;
    },
    load(id) {
      if (id === noSubscribe)
        return 'export class SubscribeUserAgentClient { constructor() { throw new Error("SUBSCRIBE is not part of this phone\'s build"); } }';
      if (id === INVITER_SLOT) return "export let Inviter; export function provideInviter(c) { Inviter = c; }";
      return null;
    },
    transform(code, id) {
      if (SIPJS_GRAMMAR.test(id)) {
        patches.mark("grammar");
        try {
          return { code: trimSipGrammar(code, PHONE_GRAMMAR_RULES), map: null };
        } catch (e) {
          throw new PatchNotApplied("grammar", (e as Error).message);
        }
      }
      if (!SIPJS_INVITER.test(id)) return null;
      patches.mark("inviterFills");
      return { code: fillInviterSlot(code), map: null, moduleSideEffects: true };
    },
    buildEnd: (error) => patches.check(error),
  };
}
