import { defineConfig } from "vitest/config";

// Unit tests sit next to the code they test; integration tests start the local platform on an
// ephemeral port in-process and talk to it over real HTTP, WebSocket and SIP. `npm test` runs
// three integration files at once (they mostly wait on timers, media and sockets) and two unit
// files (see package.json).
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.{ts,tsx}", "platform/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
