import { defineConfig, type Plugin } from "vite";
import preact from "@preact/preset-vite";
import { fileURLToPath } from "node:url";
import { buildHostSdk } from "./build/host-sdk";
import { SIPJS_INVITER, dropSipJsDebugLogs, trimSipJs } from "./build/sip-patches";

/**
 * Modules the page loads only when it needs them: the Chinese catalogue (English is built in),
 * panels few open, the history (the bar has none), the call center's transfer panel and
 * after-call work (loaded with the first call that needs them), the CRM channel (only in a frame),
 * the pre-call check and the diagnostics file, the call-quality watchdog (with the first answered
 * call).
 */
const LOADED_ON_DEMAND =
  /\/src\/(ui\/(i18n\/zh-CN|phone\/(devices-panel|cc-transfer-panel|pre-call-check)|settings\/(phone|toolbar)-settings|model\/desktop-alerts|history\/history-panel|agent\/wrap-up-panel)|session\/(call-history|diagnostics-bundle)|softphone\/(echo-test|microphone-meter|audio-analysis|quality-watchdog|call-stats|quality-rules|one-way-audio|mos)|api\/cdrs|embed\/[\w/-]+)\.tsx?$/;

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
  // The worker that reads the day's call records (src/cc/supervisor/queue-records.worker.ts) is
  // an ES module, as the page's own scripts (`new Worker(..., { type: "module" })`).
  worker: { format: "es" },
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
