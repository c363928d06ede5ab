import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The UI's import rules for `files`, with `patterns` of their own besides what every UI file keeps to. */
function uiLayer(files, patterns) {
  return {
    files,
    ignores: ["src/ui/**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["sip.js", "sip.js/*"], message: "src/ui reads stores; sip.js stays in src/softphone." },
            {
              group: ["**/api", "**/api/*"],
              message: "src/ui reads stores and calls actions; the REST client is src/cc's and src/session's.",
            },
            ...patterns,
          ],
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "fetch", message: "src/ui calls actions; HTTP stays in src/api." },
        { name: "WebSocket", message: "src/ui reads stores." },
      ],
    },
  };
}

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
  // The layering of DESIGN.md: UI components never talk to the network or to sip.js directly.
  uiLayer(["src/ui/**/*.{ts,tsx}"], []),
  // docs/architecture.md: the phone's and the toolbar's components share what they share through
  // model/, words/ and shared/, never through each other; those three know no component folder.
  uiLayer(
    ["src/ui/phone/**/*.{ts,tsx}"],
    [
      {
        group: ["../agent", "../agent/*"],
        message: "src/ui/phone and src/ui/agent do not import each other: share through model/, words/ or shared/.",
      },
    ],
  ),
  uiLayer(
    ["src/ui/agent/**/*.{ts,tsx}"],
    [
      {
        group: ["../phone", "../phone/*"],
        message: "src/ui/phone and src/ui/agent do not import each other: share through model/, words/ or shared/.",
      },
    ],
  ),
  uiLayer(
    ["src/ui/model/**/*.{ts,tsx}", "src/ui/words/**/*.{ts,tsx}", "src/ui/shared/**/*.{ts,tsx}"],
    [
      {
        group: [
          "../phone",
          "../phone/*",
          "../agent",
          "../agent/*",
          "../settings",
          "../settings/*",
          "../history",
          "../history/*",
          "../shell",
          "../shell/*",
          "../sign-in",
          "../sign-in/*",
        ],
        message: "model/, words/ and shared/ are below the components.",
      },
    ],
  ),
  {
    files: ["src/softphone/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["../api", "../api/*", "../session", "../session/*", "../cc", "../cc/*", "../ui", "../ui/*"],
              message: "src/softphone is a reusable phone: no REST, no UI.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/api/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "sip.js",
                "sip.js/*",
                "../softphone",
                "../softphone/*",
                "../session",
                "../session/*",
                "../cc",
                "../cc/*",
                "../ui",
                "../ui/*",
              ],
              message: "src/api is the REST client only.",
            },
          ],
        },
      ],
    },
  },
  {
    // docs/architecture.md: the session (sign-in, settings, the phone) knows nothing of the call center.
    files: ["src/session/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["sip.js", "sip.js/*", "../cc", "../cc/*", "../ui", "../ui/*", "../embed", "../embed/*"],
              message: "src/session is below the call center and the UI.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/cc/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["sip.js", "sip.js/*", "../ui", "../ui/*", "../../ui", "../../ui/*", "../embed", "../embed/*"],
              message: "src/cc is headless: every surface builds on it, it builds on none.",
            },
          ],
        },
      ],
    },
  },
  {
    // The CRM host SDK is a bundle of its own, loaded by other sites' pages.
    files: ["src/embed/host/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "../*",
                "preact",
                "preact/*",
                "@preact/*",
                "sip.js",
                "sip.js/*",
                "zustand",
                "zustand/*",
                "valibot",
              ],
              message: "src/embed/host imports nothing of the app.",
            },
          ],
        },
      ],
    },
  },
);
