import { createServer } from "vite";
import { optionsFromEnv } from "./config";
import { startPlatform } from "./platform";

// `npm run dev`: the local platform plus Vite's dev server (hot reload), which forwards the
// platform's paths to it (see vite.config.ts).
const platform = await startPlatform({ simNetwork: true, ...optionsFromEnv() });
const vite = await createServer({ configFile: "vite.config.ts" });
await vite.listen();
console.log(`Local platform: ${platform.url}`);
vite.printUrls();
