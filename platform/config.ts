import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import type { EmbedHostEntry } from "./app-config";
import { SCOPES, type Scope } from "../shared/embed-scopes";
import { PLATFORM_PROFILES, type PlatformProfile } from "./profile";

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
  /**
   * Require a captcha after 2 failed logins (the spec's rule; on by default, so that a stranger
   * must answer captchas before failures count toward the lock).
   */
  captcha: boolean;
  /** How long 5 failed logins lock a user, seconds. */
  lockSeconds: number;
  logLevel: "silent" | "error" | "warn" | "info" | "debug";
  /** Seconds of silence after which the JSON-RPC channel pings a client (mod_verto: 30). */
  rpcPingSeconds: number;
  /** Seconds a JSON-RPC connection may stay open without logging in. */
  rpcLoginSeconds: number;
  /** How long an answered call waits for a phone whose WebSocket died to reconnect, ms. */
  sipReconnectGraceMs: number;
  /** Shortest SIP registration accepted (423 below it), seconds. */
  sipMinExpires: number;
  /** Requests one SIP connection may send in a burst, and per second after it (then 503). */
  sipRateBurst: number;
  sipRatePerSecond: number;
  /** The same for all SIP connections of one source address (IPv6: its /64) together. */
  sipSourceRateBurst: number;
  sipSourceRatePerSecond: number;
  /** Share (0-1) of the platform's event loop the SIP messages of one source may take. */
  sipSourceShare: number;
  /** How long an outbound leg rings before NO_ANSWER unless the extension or the caller says. */
  ringTimeoutSeconds: number;
  /** How long simulated parties ring before they answer or reject, ms. */
  simRingMs: number;
  /** The /sim test and demo surface: only from this machine, from anywhere, or not at all. */
  simApi: "loopback" | "on" | "off";
  /**
   * Host pages allowed to embed the app besides those of the app's `config.json` (the demo CRM,
   * a test's host page): added to the served `config.json` and to `frame-ancestors`.
   */
  embedHosts: EmbedHostEntry[];
  /**
   * The deployment's `config.json`, served in place of the one built into `distDir` (which a build
   * overwrites from `public/config.json`): `AGENTBAR_APP_CONFIG`, or for `npm start` the data
   * folder's `config.json` when there is one. Undefined: the built one.
   */
  appConfigFile?: string;
  /**
   * Origins (`scheme://host[:port]`) besides the app's own whose pages may call the API from a
   * browser (CORS) and open its WebSockets: a wallboard or a CRM script on another host. Framing
   * the app is the embedding allowlist's (`embedHosts`, config.json).
   */
  allowedOrigins: string[];
  /**
   * Phone legs' media passes a relay that /sim/network can impair (loss, delay, jitter, silence).
   * On in the demo (`npm start`, `npm run dev`); off by default for tests and benchmarks, which
   * turn it on where they impair the network: every packet of every call would otherwise pass
   * the platform's JavaScript thread. Without the /sim surface there is no relay.
   */
  simNetwork: boolean;
  /**
   * Whether an agent is told that a supervisor listens to, whispers in or joins its call (an
   * event on the agent's event channel and its agent_state). Off by default: the supervisor
   * decides nothing here, the deployment does.
   */
  tellMonitoredAgents: boolean;
  /**
   * `full`, or `spec-minimal`: only what the spec shows (platform/profile.ts), to prove the toolbar
   * against a platform that offers no more.
   */
  profile: PlatformProfile;
}

export const defaultOptions: PlatformOptions = {
  port: 8080,
  host: "127.0.0.1",
  dataDir: join(root, ".data"),
  demoFile: join(root, "platform", "demo-data.json"),
  distDir: join(root, "dist"),
  sessionExpires: 24 * 3600,
  refreshExpires: 7 * 24 * 3600,
  captcha: true,
  lockSeconds: 2 * 3600,
  logLevel: "warn",
  rpcPingSeconds: 30,
  rpcLoginSeconds: 30,
  sipReconnectGraceMs: 30_000,
  sipMinExpires: 30,
  sipRateBurst: 50,
  sipRatePerSecond: 10,
  sipSourceRateBurst: 200,
  sipSourceRatePerSecond: 50,
  sipSourceShare: 0.25,
  ringTimeoutSeconds: 60,
  simRingMs: 1000,
  simApi: "loopback",
  embedHosts: [],
  allowedOrigins: [],
  simNetwork: false,
  tellMonitoredAgents: false,
  profile: "full",
};

const LOG_LEVELS: readonly PlatformOptions["logLevel"][] = ["silent", "error", "warn", "info", "debug"];

/**
 * Options from the environment, for `npm start`. A value that cannot be used stops the start with
 * a message naming the variable, rather than a platform that half works.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<PlatformOptions> {
  const out: Partial<PlatformOptions> = {};
  const integer = (name: string, min: number, max: number): number | undefined => {
    const text = env[name];
    if (!text) return undefined;
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || n < min || n > max) {
      throw new Error(`${name} must be a whole number from ${min} to ${max}, not '${text}'`);
    }
    return n;
  };
  const port = integer("AGENTBAR_PORT", 0, 65535);
  if (port !== undefined) out.port = port;
  if (env.AGENTBAR_HOST) out.host = env.AGENTBAR_HOST;
  if (env.AGENTBAR_DATA_DIR) out.dataDir = resolve(env.AGENTBAR_DATA_DIR);
  const sessionExpires = integer("AGENTBAR_SESSION_EXPIRES", 1, 10 * 365 * 24 * 3600);
  if (sessionExpires !== undefined) {
    out.sessionExpires = sessionExpires;
    // A refresh token must outlive the token it renews (spec, Authentication 6).
    out.refreshExpires = Math.max(defaultOptions.refreshExpires, 2 * sessionExpires);
  }
  const flag = (name: string): boolean | undefined => {
    const text = env[name];
    if (!text) return undefined;
    if (!["0", "1", "true", "false"].includes(text))
      throw new Error(`${name} must be 1, 0, true or false, not '${text}'`);
    return text === "1" || text === "true";
  };
  const captcha = flag("AGENTBAR_CAPTCHA");
  if (captcha !== undefined) out.captcha = captcha;
  const tell = flag("AGENTBAR_TELL_MONITORED_AGENTS");
  if (tell !== undefined) out.tellMonitoredAgents = tell;
  if (env.AGENTBAR_LOG_LEVEL) {
    const level = env.AGENTBAR_LOG_LEVEL as PlatformOptions["logLevel"];
    if (!LOG_LEVELS.includes(level))
      throw new Error(`AGENTBAR_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, not '${level}'`);
    out.logLevel = level;
  }
  if (env.AGENTBAR_SIM_API) {
    const mode = env.AGENTBAR_SIM_API as PlatformOptions["simApi"];
    if (!["loopback", "on", "off"].includes(mode))
      throw new Error(`AGENTBAR_SIM_API must be loopback, on or off, not '${mode}'`);
    out.simApi = mode;
  }
  if (env.AGENTBAR_PLATFORM_PROFILE) {
    const profile = env.AGENTBAR_PLATFORM_PROFILE as PlatformProfile;
    if (!PLATFORM_PROFILES.includes(profile))
      throw new Error(`AGENTBAR_PLATFORM_PROFILE must be ${PLATFORM_PROFILES.join(" or ")}, not '${profile}'`);
    out.profile = profile;
  }
  if (env.AGENTBAR_APP_CONFIG) {
    out.appConfigFile = resolve(env.AGENTBAR_APP_CONFIG);
    if (!existsSync(out.appConfigFile))
      throw new Error(`AGENTBAR_APP_CONFIG names ${out.appConfigFile}, which does not exist`);
  }
  if (env.AGENTBAR_EMBED_HOSTS !== undefined) out.embedHosts = embedHostsOf(env.AGENTBAR_EMBED_HOSTS);
  if (env.AGENTBAR_ALLOWED_ORIGINS !== undefined) {
    out.allowedOrigins = env.AGENTBAR_ALLOWED_ORIGINS.split(/[\s,]+/)
      .filter(Boolean)
      .map((text) => {
        const origin = exactOrigin(text);
        if (!origin) {
          throw new Error(
            `AGENTBAR_ALLOWED_ORIGINS takes origins as scheme://host[:port], separated by commas, not '${text}'`,
          );
        }
        return origin;
      });
  }
  return out;
}

/**
 * `text` when it is exactly an origin as a browser sends it in `Origin` (http or https, a host,
 * a port only when it is not the scheme's default; no path, no user, no wildcard); else undefined.
 */
export function exactOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!["http:", "https:"].includes(url.protocol) || url.origin !== text || text.includes("*")) return undefined;
  return text;
}

/** The scopes of a host of AGENTBAR_EMBED_HOSTS that names none: what the demo CRM has. */
export const DEFAULT_EMBED_SCOPES: Scope[] = ["dial", "call-control", "status", "caller-data"];

/**
 * AGENTBAR_EMBED_HOSTS: the host pages that may frame the app and drive it, without editing a
 * file: `origin[=scope,scope...]`, separated by spaces or semicolons
 * (`http://localhost:3000 https://crm.example.com=status,caller-data`); an origin without scopes
 * gets DEFAULT_EMBED_SCOPES.
 */
export function embedHostsOf(text: string): EmbedHostEntry[] {
  const usage = `AGENTBAR_EMBED_HOSTS takes origin[=scope,scope...] separated by spaces or semicolons (scopes: ${SCOPES.join(", ")})`;
  return text
    .split(/[\s;]+/)
    .filter(Boolean)
    .map((entry) => {
      const [originText = "", scopesText, ...rest] = entry.split("=");
      const origin = exactOrigin(originText);
      if (!origin || rest.length) throw new Error(`${usage}, not '${entry}'`);
      if (scopesText === undefined) return { origin, scopes: [...DEFAULT_EMBED_SCOPES] };
      const scopes = scopesText.split(",").filter(Boolean);
      const unknown = scopes.find((x) => !(SCOPES as readonly string[]).includes(x));
      if (unknown !== undefined || !scopes.length) throw new Error(`${usage}, not '${entry}'`);
      return { origin, scopes: scopes as Scope[] };
    });
}
