import { existsSync } from "node:fs";
import { join } from "node:path";
import { defaultOptions, optionsFromEnv } from "./config";
import { startCrmDemo, type CrmDemo } from "./crm-demo/crm-demo";
import { startPlatform, type Platform } from "./platform";

// `npm start`: the local platform with the demo data, serving the built app, and a demo CRM on
// a second origin that embeds the app (AGENTBAR_CRM_PORT, default 8081; "off" leaves it out).
let platform: Platform;
let crm: CrmDemo | undefined;
try {
  const options = { simNetwork: true, ...optionsFromEnv() };
  const crmPort = process.env.AGENTBAR_CRM_PORT ?? "8081";
  if (crmPort !== "off") {
    if (!/^\d+$/.test(crmPort) || Number(crmPort) > 65535)
      throw new Error(`AGENTBAR_CRM_PORT must be a port number or off, not '${crmPort}'`);
    crm = await startCrmDemo({
      port: Number(crmPort),
      host: options.host ?? "127.0.0.1",
      publicHost: "localhost",
      appUrl: () => shown,
      platformUrl: () => platform.url,
    });
    // The demo CRM may embed the app and drive it (docs/embedding.md); so may the same page by 127.0.0.1.
    const scopes = ["dial", "call-control", "status", "caller-data"] as const;
    const origins = [crm.url, crm.url.replace("localhost", "127.0.0.1")];
    options.embedHosts = [...(options.embedHosts ?? []), ...origins.map((origin) => ({ origin, scopes: [...scopes] }))];
  }
  // A deployment's config.json kept in the data folder: the build never overwrites it.
  const kept = join(options.dataDir ?? defaultOptions.dataDir, "config.json");
  if (!options.appConfigFile && existsSync(kept)) options.appConfigFile = kept;
  platform = await startPlatform(options);
} catch (e) {
  // Configuration and start-up problems are the user's to fix: say what, without a stack trace.
  console.error(`Agentbar local platform could not start: ${(e as Error).message}`);
  await crm?.close();
  process.exit(1);
}
const shown = platform.url.replace("127.0.0.1", "localhost");
console.log(`Agentbar local platform is running at ${shown}`);
if (crm) console.log(`Demo CRM (a host page on another origin, embedding the app): ${crm.url}`);
console.log(`Data folder: ${platform.ctx.options.dataDir}`);
const hosts = (platform.ctx.appConfig.json.embed as { hosts: { origin: string; scopes: string[] }[] }).hosts;
console.log(`App configuration: ${platform.ctx.options.appConfigFile ?? "dist/config.json (built from public/)"}`);
console.log(
  `Pages that may embed the app: ${hosts.map((h) => `${h.origin} (${h.scopes.join(", ")})`).join("; ") || "none"}`,
);
console.log("Demo users: agent1..agent4, supervisor, admin — password Agentbar@2026");

const stop = async () => {
  await crm?.close();
  await platform.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
