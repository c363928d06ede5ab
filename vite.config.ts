import { defineConfig, type Plugin } from "vite";
import preact from "@preact/preset-vite";
import { fileURLToPath } from "node:url";
import { buildHostSdk } from "./build/host-sdk";
import { PHONE_GRAMMAR_RULES, trimSipGrammar } from "./build/sip-grammar";

/**
 * Modules the page loads only when it needs them: the Chinese catalogue (English is built in),
 * panels few open, the history (the bar has none), the call center's transfer panel and
 * after-call work (loaded with the first call that needs them), the CRM channel (only in a frame),
 * the pre-call check and the diagnostics file, the call-quality watchdog (with the first answered
 * call).
 */
const LOADED_ON_DEMAND =
  /\/src\/(ui\/(i18n\/zh-CN|phone\/(devices-panel|cc-transfer-panel|pre-call-check)|settings\/(phone|toolbar)-settings|model\/desktop-alerts|history\/history-panel|agent\/wrap-up-panel)|session\/(call-history|diagnostics-bundle)|softphone\/(echo-test|microphone-meter|audio-analysis|quality-watchdog|call-stats|quality-rules|one-way-audio|mos)|api\/cdrs|embed\/[\w/-]+)\.tsx?$/;

/** sip.js's outgoing call, fetched on demand (see `trimSipJs`). */
const SIPJS_INVITER = /[\\/]node_modules[\\/]sip\.js[\\/]lib[\\/]api[\\/]inviter\.js$/;

/** The wallboard and what a supervisor does (src/supervisor.tsx and what only it imports). */
const SUPERVISOR = /[\\/]src[\\/](supervisor\.tsx|cc[\\/]supervisor[\\/]|ui[\\/]supervisor[\\/])/;
/** The supervisor's action log and a call's supervision legs: the history reads them too, without the wallboard. */
const SUPERVISION_LOG = /[\\/]src[\\/]cc[\\/]supervisor[\\/](action-log|supervision-legs)\.ts$/;

/**
 * Four files and the parts loaded on demand: `app`, what every page runs first (all that
 * src/main.tsx imports statically: Preact, the session, the REST client); `sign-in`, the sign-in
 * form (src/ui/sign-in/sign-in-screen.tsx), which a reload with a kept session does not wait for;
 * `workspace`, the signed-in screen (sip.js, the phone, the toolbar:
 * src/workspace.tsx), loaded in the background while the sign-in screen shows; `supervisor`, the
 * wallboard (src/supervisor.tsx), which agents never load. Code the page needs at once stays in
 * one file per step (gzip does better on one file than on several, and it is one request);
 * rolldown left alone would cut a file for every set of chunks that share a module. The plugin
 * finds, once the module graph is built, which modules each step imports statically.
 */
function pageSteps(): { plugin: Plugin; groups: { name: string; test: (id: string) => boolean; priority: number }[] } {
  let signIn = new Set<string>();
  let signInForm = new Set<string>();
  let workspace = new Set<string>();
  const plugin: Plugin = {
    name: "agentbar:page-steps",
    apply: "build",
    buildEnd() {
      const closure = (file: string, skip: Set<string>) => {
        const seen = new Set<string>();
        const walk = (m: string) => {
          if (seen.has(m) || skip.has(m) || LOADED_ON_DEMAND.test(m) || SIPJS_INVITER.test(m)) return;
          seen.add(m);
          for (const next of this.getModuleInfo(m)?.importedIds ?? []) walk(next);
        };
        walk(fileURLToPath(new URL(file, import.meta.url)));
        return seen;
      };
      signIn = closure("src/main.tsx", new Set());
      signInForm = closure("src/ui/sign-in/sign-in-screen.tsx", signIn);
      workspace = closure("src/workspace.tsx", signIn);
      // What the sign-in form shares with the workspace goes in the first file, so that neither loads the other.
      for (const m of signInForm) {
        if (!workspace.has(m)) continue;
        signIn.add(m);
        signInForm.delete(m);
        workspace.delete(m);
      }
    },
  };
  // A module goes to the first group (by priority) that takes it; a group also takes what its modules import.
  const groups = [
    { name: "app", test: (id: string) => signIn.has(id), priority: 4 },
    { name: "sign-in", test: (id: string) => signInForm.has(id), priority: 3 },
    { name: "workspace", test: (id: string) => workspace.has(id), priority: 2 },
    { name: "supervision-log", test: (id: string) => SUPERVISION_LOG.test(id), priority: 1.5 },
    { name: "supervisor", test: (id: string) => SUPERVISOR.test(id), priority: 1 },
  ];
  return { plugin, groups };
}
const steps = pageSteps();

// `npm run dev` serves the app with hot reload and forwards the platform's paths to the local
// platform (AGENTBAR_PORT, default 8080), so the app talks to the same origin in dev and in production.
const platform = `http://127.0.0.1:${process.env.AGENTBAR_PORT ?? "8080"}`;

/**
 * sip.js logs every step at its "log" and "debug" levels; the phone runs it at "warn", so those
 * calls only build strings nobody reads. Each is one statement on one line in sip.js's compiled
 * code (checked: none has side effects), replaced by an empty statement so that a braceless `if`
 * above it keeps its meaning. Warnings and errors stay.
 */
function dropSipJsDebugLogs(): Plugin {
  return {
    name: "agentbar:drop-sipjs-debug-logs",
    apply: "build",
    transform(code, id) {
      if (!/[\\/]node_modules[\\/]sip\.js[\\/]lib[\\/]/.test(id)) return null;
      const out = code.replace(/^(\s*)[\w.]*logger\.(?:log|debug)\(.*\);[ \t]*$/gm, "$1;");
      return out === code ? null : { code: out, map: null };
    },
  };
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
 *   src/softphone/phone.ts): an agent who only takes calls never runs it. sip.js's user agent
 *   names the class only to follow a REFER (`_makeInviter`, which the phone calls once the class
 *   is loaded); it reads it from a slot that the class's module fills when it runs.
 * - its SIP grammar keeps only the rules the phone parses from (`build/sip-grammar.ts`: the
 *   others' bytecode and constants go, and what an error message would say a refused input
 *   lacked; 2 KB gzip); a kept rule runs the same bytecode as before and refuses the same input
 *   at the same place, which `build/sip-grammar.test.ts` checks against the published grammar.
 *   Its rule table is decoded once, when the module loads, instead of at every parse.
 * Unit and integration tests run sip.js as published.
 */
function trimSipJs(): Plugin {
  const md5 = fileURLToPath(new URL("src/softphone/md5.ts", import.meta.url));
  const noSubscribe = "\0agentbar:no-subscribe-client";
  const inviterSlot = "\0agentbar:inviter-slot";
  return {
    name: "agentbar:trim-sipjs",
    apply: "build",
    enforce: "pre",
    resolveId(source, importer) {
      if (source === inviterSlot) return inviterSlot;
      if (!importer || !/[\\/]node_modules[\\/]sip\.js[\\/]lib[\\/]/.test(importer)) return null;
      if (source === "./md5.js") return md5;
      if (source === "../user-agents/subscribe-user-agent-client.js" && /user-agent-core\.js$/.test(importer))
        return noSubscribe;
      if (source === "./inviter.js" && /[\\/]api[\\/]user-agent\.js$/.test(importer)) return inviterSlot;
      return null;
    },
    load(id) {
      if (id === noSubscribe)
        return 'export class SubscribeUserAgentClient { constructor() { throw new Error("SUBSCRIBE is not part of this phone\'s build"); } }';
      if (id === inviterSlot) return "export let Inviter; export function provideInviter(c) { Inviter = c; }";
      return null;
    },
    transform(code, id) {
      if (/[\\/]sip\.js[\\/]lib[\\/]grammar[\\/]pegjs[\\/]dist[\\/]grammar\.js$/.test(id))
        return { code: trimSipGrammar(code, PHONE_GRAMMAR_RULES), map: null };
      if (!SIPJS_INVITER.test(id)) return null;
      return {
        code: `${code}\nimport { provideInviter } from ${JSON.stringify(inviterSlot)};\nprovideInviter(Inviter);\n`,
        map: null,
        moduleSideEffects: true,
      };
    },
  };
}

/**
 * The CRM host SDK (`src/embed/host`) is a library of its own, built beside the app into
 * `dist/embed/` (build/host-sdk.ts). It imports nothing of the app, so it shares no chunk with it.
 */
function hostSdk(): Plugin {
  return {
    name: "agentbar:host-sdk",
    apply: (_, env) => env.command === "build" && !env.isSsrBuild,
    closeBundle: () => buildHostSdk("dist/embed"),
  };
}

export default defineConfig({
  plugins: [preact(), dropSipJsDebugLogs(), trimSipJs(), hostSdk(), steps.plugin],
  build: {
    target: "es2022",
    // Browsers without <link rel="modulepreload"> (Safari before 17) load the same modules through
    // the imports, a moment later; the polyfill for them would be in every page's first file.
    modulePreload: { polyfill: false },
    outDir: "dist",
    emptyOutDir: true,
    rollupOptions: {
      input: { app: "index.html" },
      output: { codeSplitting: { groups: steps.groups } },
    },
  },
  server: {
    port: Number(process.env.AGENTBAR_DEV_PORT ?? 5173),
    proxy: {
      "/api": { target: platform },
      "/sim": { target: platform },
      "/ws": { target: platform, ws: true },
      "/sip": { target: platform, ws: true },
    },
  },
});
