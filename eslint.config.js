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

/** Tests, and what only tests use (fakes, rigs): nothing else may import it, and the app's build never compiles it. */
const TEST_SUPPORT = [
  "**/*.test.{ts,tsx}",
  "**/testing/**",
  "**/test-support/**",
  "**/test-support.ts",
  "**/test-helpers.ts",
];
const TEST_SUPPORT_IMPORT = {
  regex: "(^|/)(testing|test-support|test-helpers)(/|$)",
  message: "Test support is for tests: production code never imports it (tsconfig.app.json does not compile it).",
};

/**
 * The local platform's layers, from the ground up (docs/platform.md). A part is a folder of
 * platform/ ("sip/") or a file at its top ("clock"). Each part imports only parts of the layers
 * below its own, none beside it; tests and test support may reach anywhere.
 */
const PLATFORM_LAYERS = [
  {
    layer: "the ground",
    parts: [
      "store/",
      "media/",
      "clock",
      "log",
      "profile",
      "origins",
      "schema-error",
      "token-bucket",
      "app-config",
      "crm-demo/",
    ],
  },
  { layer: "the records", parts: ["auth/", "cdr/", "config"] },
  { layer: "the switch", parts: ["switch/"] },
  { layer: "the services", parts: ["sip/", "cc/", "sim/"] },
  { layer: "the context", parts: ["context"] },
  { layer: "the edges", parts: ["http/", "rpc/", "ws/"] },
  { layer: "the call center's assembly and the demo data", parts: ["start-call-center", "demo-data"] },
  { layer: "the assembly", parts: ["platform"] },
  { layer: "the start", parts: ["main", "dev"] },
];

/** One lint block per part of the platform, forbidding the parts above and beside it. */
function platformLayers() {
  return PLATFORM_LAYERS.flatMap(({ layer, parts }, rank) =>
    parts.map((part) => {
      const folder = part.endsWith("/");
      const name = part.replace(/\/$/, "");
      const higher = PLATFORM_LAYERS.slice(rank + 1).flatMap((l) => l.parts);
      const beside = parts.filter((p) => p !== part);
      const forbidden = [...higher, ...beside].map((p) => p.replace(/\/$/, ""));
      // How a file of this part names another part: from a folder (or a folder in it) "../x", from the top "./x".
      const prefixes = folder ? ["../", "../../"] : ["./"];
      return {
        files: [folder ? `platform/${name}/**/*.ts` : `platform/${name}.ts`],
        ignores: TEST_SUPPORT,
        rules: {
          "no-restricted-imports": [
            "error",
            {
              patterns: [
                {
                  group: forbidden.flatMap((p) => prefixes.flatMap((pre) => [`${pre}${p}`, `${pre}${p}/*`])),
                  message: `platform/${part} is in ${layer}: it imports only the layers below (docs/platform.md), none above or beside it.`,
                },
              ],
            },
          ],
        },
      };
    }),
  );
}

/**
 * The three halves of the repository: the app (src/), the local platform (platform/) and what
 * both share (shared/: the embedding allowlist and its scopes). Neither of the first two imports
 * the other; shared/ imports neither; and no production code of any of them imports test support.
 * A rule of its own, so that it adds to each layer's rules rather than replacing them.
 */
function half(files, others, message) {
  const apart = others.map((other) => ({ regex: `^(\\.\\./)+${other}(/|$)`, message }));
  const rule = (patterns) => ["error", { patterns }];
  return [
    { files, rules: { "@typescript-eslint/no-restricted-imports": rule(apart) } },
    {
      files,
      ignores: TEST_SUPPORT,
      rules: { "@typescript-eslint/no-restricted-imports": rule([...apart, TEST_SUPPORT_IMPORT]) },
    },
  ];
}

export default tseslint.config(
  { ignores: ["dist/", "packages/host-sdk/dist/", "node_modules/", ".data/", "test-results/", "playwright-report/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "off",
    },
  },
  // The layering of docs/architecture.md: UI components never talk to the network or to sip.js directly.
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
          "../supervisor",
          "../supervisor/*",
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
              // The scopes and a call data's bounds are what it shares, with the app and the platform alike.
              regex: "^\\.\\./(?!\\.\\./\\.\\./shared/(embed-scopes|call-data)$)",
              message: "src/embed/host imports nothing of the app.",
            },
            {
              group: ["preact", "preact/*", "@preact/*", "sip.js", "sip.js/*", "zustand", "zustand/*", "valibot"],
              message: "src/embed/host imports nothing of the app.",
            },
          ],
        },
      ],
    },
  },
  ...half(
    ["src/**/*.{ts,tsx}"],
    ["platform"],
    "The app runs in a browser against any platform: it imports nothing of the local one.",
  ),
  ...half(["platform/**/*.ts"], ["src"], "The platform imports nothing of the app: what both need is in shared/."),
  ...half(["shared/**/*.ts"], ["src", "platform"], "shared/ is below the app and the platform: it imports neither."),
  ...platformLayers(),
);
