import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".data/", "test-results/", "playwright-report/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "off",
    },
  },
  {
    // The layering of DESIGN.md: UI components never talk to the network or to sip.js directly.
    files: ["src/ui/**/*.{ts,tsx}"],
    ignores: ["src/ui/**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["sip.js", "sip.js/*"], message: "src/ui reads stores; sip.js stays in src/softphone." },
            { group: ["**/api", "**/api/*"], message: "src/ui reads stores and calls actions; the REST client is src/cc's and src/session's." },
          ],
        },
      ],
      "no-restricted-globals": ["error", { name: "fetch", message: "src/ui calls actions; HTTP stays in src/api." }, { name: "WebSocket", message: "src/ui reads stores." }],
    },
  },
  {
    files: ["src/softphone/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["../api", "../api/*", "../session", "../session/*", "../cc", "../cc/*", "../ui", "../ui/*"], message: "src/softphone is a reusable phone: no REST, no UI." }] }],
    },
  },
  {
    files: ["src/api/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["sip.js", "sip.js/*", "../softphone", "../softphone/*", "../session", "../session/*", "../cc", "../cc/*", "../ui", "../ui/*"], message: "src/api is the REST client only." }] }],
    },
  },
  {
    // docs/architecture.md: the session (sign-in, settings, the phone) knows nothing of the call center.
    files: ["src/session/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["sip.js", "sip.js/*", "../cc", "../cc/*", "../ui", "../ui/*", "../embed", "../embed/*"], message: "src/session is below the call center and the UI." }] }],
    },
  },
  {
    files: ["src/cc/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["sip.js", "sip.js/*", "../ui", "../ui/*", "../../ui", "../../ui/*", "../embed", "../embed/*"], message: "src/cc is headless: every surface builds on it, it builds on none." }] }],
    },
  },
  {
    // The CRM host SDK is a bundle of its own, loaded by other sites' pages.
    files: ["src/embed/host/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["../*", "preact", "preact/*", "@preact/*", "sip.js", "sip.js/*", "zustand", "zustand/*", "valibot"], message: "src/embed/host imports nothing of the app." }] },
      ],
    },
  },
);
