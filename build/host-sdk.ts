import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateDtsBundle } from "dts-bundle-generator";
import { build } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The SDK's entry: it imports nothing of the app. */
export const HOST_SDK_ENTRY = join(root, "src/embed/host/index.ts");

/**
 * Builds the CRM host SDK (`src/embed/host`) into `outDir`: an ES module (`agentbar-host.js`),
 * a script that defines the global `AgentbarHost` (`agentbar-host.global.js`), and one
 * self-contained declaration file (`agentbar-host.d.ts`), so that the types also resolve when
 * fetched by URL from the app's server. The app's build (vite.config.ts) and the npm package
 * (`npm run host:pack`) both build it here.
 */
export async function buildHostSdk(outDir: string): Promise<void> {
  await build({
    configFile: false,
    publicDir: false,
    logLevel: "warn",
    build: {
      target: "es2022",
      outDir,
      emptyOutDir: false,
      minify: true,
      // Vite leaves the ES module's whitespace for the host's own bundler; the SDK is also
      // loaded as is from the app's server, so it is minified in full.
      rolldownOptions: { output: { minify: true } },
      lib: {
        entry: HOST_SDK_ENTRY,
        name: "AgentbarHost",
        formats: ["es", "iife"],
        fileName: (format) => (format === "es" ? "agentbar-host.js" : "agentbar-host.global.js"),
      },
    },
  });
  writeFileSync(join(outDir, "agentbar-host.d.ts"), hostSdkDeclarations());
}

/**
 * The SDK's declarations in one file, with no import of its own (dts-bundle-generator inlines the
 * SDK's modules and keeps only what index.ts exports). It type-checks the SDK as strictly as the
 * app is (build/host-sdk.tsconfig.json: DOM and ES2023 only, no Node types) and throws on an error.
 */
export function hostSdkDeclarations(): string {
  const [text] = generateDtsBundle(
    [{ filePath: HOST_SDK_ENTRY, output: { noBanner: true, exportReferencedTypes: false } }],
    { preferredConfigPath: join(root, "build/host-sdk.tsconfig.json") },
  );
  return text!;
}
