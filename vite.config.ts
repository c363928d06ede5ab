import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

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
