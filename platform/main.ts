import { optionsFromEnv } from "./config";
import { startPlatform } from "./platform";

// `npm start`: the local platform with the demo data, serving the built app.
const platform = await startPlatform(optionsFromEnv());
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
