import type { FastifyInstance } from "fastify";
import type { AddressInfo } from "node:net";
import { AuthService } from "./auth/sessions";
import { CaptchaService } from "./auth/captcha";
import { defaultOptions, type PlatformOptions } from "./config";
import type { PlatformContext } from "./context";
import { buildHttpApp } from "./http/app";
import { devKeyRoutes } from "./http/routes/dev-keys";
import { sessionRoutes } from "./http/routes/sessions";
import { userRoutes } from "./http/routes/users";
import { openDatabase } from "./store/db";
import { readDemoData, seedDemoData } from "./store/seed";
import { UserStore } from "./store/users";
import { UpgradeRouter } from "./ws/upgrade";
import { startCallCenter, type CallCenterModule } from "./cc/start-call-center";
import type { SimulatedWorld } from "./cc/simulated-world";
import type { Switch } from "./switch/types";

export interface Platform {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  ctx: PlatformContext;
  http: FastifyInstance;
  upgrades: UpgradeRouter;
  callCenter: CallCenterModule;
  close(): Promise<void>;
}

/** Parts of the platform made elsewhere and handed in (the soft-switch and its simulated world). */
export interface PlatformParts {
  switch?: Switch;
  world?: SimulatedWorld;
}

/**
 * Starts one local platform: database (filled with the demo data on first start), REST API,
 * WebSocket endpoints and the built app. Tests start one per file on port 0.
 */
export async function startPlatform(overrides: Partial<PlatformOptions> = {}, parts: PlatformParts = {}): Promise<Platform> {
  const options: PlatformOptions = { ...defaultOptions, ...overrides };
  const { db } = openDatabase(options.dataDir, (fresh) => seedDemoData(fresh, readDemoData(options.demoFile)));

  const captchas = new CaptchaService();
  const ctx: PlatformContext = {
    options,
    db,
    users: new UserStore(db),
    captchas,
    auth: new AuthService(db, options, captchas),
  };

  const upgrades = new UpgradeRouter();
  let http: FastifyInstance | undefined;
  let callCenter: CallCenterModule | undefined;
  try {
    http = await buildHttpApp(ctx);
    sessionRoutes(http, ctx);
    userRoutes(http, ctx);
    devKeyRoutes(http, ctx);
    callCenter = startCallCenter({ ctx, http, upgrades, sw: parts.switch, world: parts.world, rpc: { pingSeconds: options.rpcPingSeconds } });
    http.server.on("upgrade", upgrades.handle);
    await http.listen({ port: options.port, host: options.host });
  } catch (e) {
    // A port in use, say: release what was opened so that the caller can try again.
    callCenter?.close();
    upgrades.close();
    await http?.close();
    db.close();
    throw e;
  }
  const port = (http.server.address() as AddressInfo).port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;

  let closed = false;
  return {
    url: `http://${host}:${port}`,
    port,
    ctx,
    http,
    upgrades,
    callCenter,
    async close() {
      if (closed) return;
      closed = true;
      callCenter.close();
      upgrades.close();
      await http.close();
      db.close();
    },
  };
}
