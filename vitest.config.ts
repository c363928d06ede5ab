import { defineConfig } from "vitest/config";

// Unit tests sit next to the code they test; integration tests start the local platform on an
// ephemeral port in-process and talk to it over real HTTP, WebSocket and SIP. `npm test` runs
// two integration files at once and two unit files (see package.json and docs/decisions.md).
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.{ts,tsx}", "shared/**/*.test.ts", "platform/**/*.test.ts", "build/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          // npm start's default ports are held while the tests run (test/default-ports.ts).
          globalSetup: ["test/default-ports.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
