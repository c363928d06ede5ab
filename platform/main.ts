import { optionsFromEnv } from "./config";
import { startPlatform, type Platform } from "./platform";

// `npm start`: the local platform with the demo data, serving the built app.
let platform: Platform;
try {
  platform = await startPlatform(optionsFromEnv());
} catch (e) {
  // Configuration and start-up problems are the user's to fix: say what, without a stack trace.
  console.error(`Agentbar local platform could not start: ${(e as Error).message}`);
  process.exit(1);
}
const shown = platform.url.replace("127.0.0.1", "localhost");
console.log(`Agentbar local platform is running at ${shown}`);
console.log(`Data folder: ${platform.ctx.options.dataDir}`);
console.log("Demo users: agent1..agent4, supervisor, admin — password Agentbar@2026");

const stop = async () => {
  await platform.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
