import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

/**
 * Modules the page loads only when it needs them: the user's language (not the other), panels
 * few open, the history (the bar has none) and the sign-in screen (a restored session skips it).
 */
const LOADED_ON_DEMAND = /\/src\/(ui\/(i18n\/(en|zh-CN)|phone\/(devices|settings)-panel|history\/history-panel|sign-in\/sign-in-screen)|cc\/call-history|api\/cdrs)\.tsx?$/;

// `npm run dev` serves the app with hot reload and forwards the platform's paths to the local
// platform (AGENTBAR_PORT, default 8080), so the app talks to the same origin in dev and in production.
const platform = `http://127.0.0.1:${process.env.AGENTBAR_PORT ?? "8080"}`;

export default defineConfig({
  plugins: [preact()],
  build: {
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    rollupOptions: {
      input: { app: "index.html" },
      output: {
        // Code the page needs at start stays in one file (gzip does better on one file than on
        // several, and it is one request); only the parts loaded on demand get files of their own.
        manualChunks: (id) => (LOADED_ON_DEMAND.test(id) ? undefined : "app"),
      },
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
