import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface PlatformOptions {
  /** TCP port; 0 picks a free one (tests). */
  port: number;
  host: string;
  /** Folder of the SQLite database and recordings; ":memory:" keeps everything in memory. */
  dataDir: string;
  /** Demo data loaded into an empty database. */
  demoFile: string;
  /** The built app served at "/". */
  distDir: string;
  /** Lifetime of ordinary tokens, seconds (session_expires). */
  sessionExpires: number;
  /** Lifetime of JWT refresh tokens, seconds. */
  refreshExpires: number;
  /** Require a captcha after 2 failed logins. */
  captcha: boolean;
  /** How long 5 failed logins lock a user, seconds. */
  lockSeconds: number;
  logLevel: "silent" | "error" | "warn" | "info" | "debug";
}

export const defaultOptions: PlatformOptions = {
  port: 8080,
  host: "127.0.0.1",
  dataDir: join(root, ".data"),
  demoFile: join(root, "platform", "demo-data.json"),
  distDir: join(root, "dist"),
  sessionExpires: 24 * 3600,
  refreshExpires: 7 * 24 * 3600,
  captcha: false,
  lockSeconds: 2 * 3600,
  logLevel: "warn",
};

/** Options from the environment, for `npm start`. */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<PlatformOptions> {
  const out: Partial<PlatformOptions> = {};
  if (env.AGENTBAR_PORT) out.port = Number(env.AGENTBAR_PORT);
  if (env.AGENTBAR_HOST) out.host = env.AGENTBAR_HOST;
  if (env.AGENTBAR_DATA_DIR) out.dataDir = resolve(env.AGENTBAR_DATA_DIR);
  if (env.AGENTBAR_SESSION_EXPIRES) out.sessionExpires = Number(env.AGENTBAR_SESSION_EXPIRES);
  if (env.AGENTBAR_CAPTCHA) out.captcha = env.AGENTBAR_CAPTCHA === "1" || env.AGENTBAR_CAPTCHA === "true";
  if (env.AGENTBAR_LOG_LEVEL) out.logLevel = env.AGENTBAR_LOG_LEVEL as PlatformOptions["logLevel"];
  return out;
}
