import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The integration files that take longest (they wait on media, RTCP reports and the call
 * center's timers), longest first. Vitest starts the files it has timings of longest first, but a
 * fresh checkout (CI) has none, and it then starts the largest files first: a short file of long
 * waits (call-quality) started last and ran alone for half a minute while the other worker sat
 * idle. Started first, the two workers finish together.
 */
const LONGEST = [
  "test/integration/cc-media.test.ts",
  "test/integration/sip-network.test.ts",
  "test/integration/call-quality.test.ts",
  "test/integration/host-package.test.ts",
  "test/integration/sip-hold-transfer.test.ts",
  "test/integration/security-floods.test.ts",
  "test/integration/sip-password-guessing.test.ts",
  "test/integration/crash-recovery.test.ts",
];

/** Vitest's order, with the files of LONGEST moved to the front of their project in that order. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = LONGEST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return i === -1 ? LONGEST.length : i;
    };
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of await super.sort(files)) {
      const name = file.project.name;
      byProject.set(name, [...(byProject.get(name) ?? []), file]);
    }
    return [...byProject.values()].flatMap((group) => group.sort((a, b) => rank(a) - rank(b)));
  }
}

// Unit tests sit next to the code they test; integration tests start the local platform on an
// ephemeral port in-process and talk to it over real HTTP, WebSocket and SIP. `npm test` runs
// two integration files at once and two unit files (see package.json and docs/decisions.md).
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    sequence: { sequencer: LongestFirst },
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
