import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { AddressInfo } from "node:net";
import { loadAppConfig } from "./app-config";
import { AuthService } from "./auth/sessions";
import { CaptchaService } from "./auth/captcha";
import { systemClock, type Clock } from "./clock";
import { cdrRoutes } from "./http/routes/cdrs";
import { CdrStore } from "./cdr/cdr-store";
import { finishCutCalls } from "./cdr/cut-calls";
import { mediaFileRoutes } from "./http/routes/media-files";
import { MediaFileStore } from "./cdr/media-files";
import { defaultOptions, type PlatformOptions } from "./config";
import type { PlatformContext } from "./context";
import { buildHttpApp, type RouteInfo } from "./http/app";
import { devKeyRoutes } from "./http/routes/dev-keys";
import { sessionRoutes } from "./http/routes/sessions";
import { userRoutes } from "./http/routes/users";
import { MediaPlane } from "./media";
import { OriginPolicy } from "./origins";
import { simRoutes } from "./http/routes/sim";
import { networkRoutes } from "./http/routes/sim-network";
import { NetworkImpairments } from "./sim/network-impairments";
import { queueCallerWorld } from "./sim/queue-caller-world";
import { SimWorld } from "./sim/sim-world";
import { SipServer } from "./sip/sip-server";
import { openDatabase } from "./store/db";
import { readDemoData, seedDemoData } from "./demo-data";
import { UserStore } from "./store/users";
import { SoftSwitch } from "./switch/soft-switch";
import { CallJournal } from "./switch/call-journal";
import { UpgradeRouter } from "./ws/upgrade";
import { startCallCenter, type CallCenterModule } from "./start-call-center";
import type { SimulatedWorld } from "./cc/simulated-world";
import type { Switch } from "./switch/types";

export interface Platform {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  ctx: PlatformContext;
  http: FastifyInstance;
  /** Every HTTP route and who may call it. */
  routes: RouteInfo[];
  upgrades: UpgradeRouter;
  callCenter: CallCenterModule;
  close(): Promise<void>;
}

/** Parts of the platform made elsewhere and handed in (the soft-switch and its simulated world, a clock). */
export interface PlatformParts {
  switch?: Switch;
  world?: SimulatedWorld;
  /** What sign-in, tokens, locks and captchas take the time from (tests move it on). */
  now?: Clock;
}

/**
 * Starts one local platform: database (filled with the demo data on first start), REST API,
 * WebSocket endpoints (SIP, JSON-RPC), the soft-switch with its media plane and simulated
 * outside world, and the built app. Tests start one per file on port 0.
 *
 * A process that started a platform loaded native WebRTC: end it with process.exit().
 */
export async function startPlatform(
  overrides: Partial<PlatformOptions> = {},
  parts: PlatformParts = {},
): Promise<Platform> {
  const options: PlatformOptions = { ...defaultOptions, ...overrides };
  const appConfig = loadAppConfig(options.appConfigFile ?? join(options.distDir, "config.json"), options.embedHosts);
  const { db } = openDatabase(options.dataDir, (fresh) => seedDemoData(fresh, readDemoData(options.demoFile)));

  const now = parts.now ?? systemClock;
  const captchas = new CaptchaService(now);
  const users = new UserStore(db);
  // The telephony parts join the context below, once the HTTP app (and its logger) exists.
  const origins = new OriginPolicy(() => options.allowedOrigins);
  const ctx = {
    options,
    appConfig,
    now,
    db,
    users,
    captchas,
    origins,
    auth: new AuthService(db, options, captchas, now),
  } as PlatformContext;

  const upgrades = new UpgradeRouter(origins);
  let http: FastifyInstance | undefined;
  let routes: () => RouteInfo[] = () => [];
  let callCenter: CallCenterModule | undefined;
  let media: MediaPlane | undefined;
  let sw: SoftSwitch | undefined;
  let journal: CallJournal | undefined;
  let sip: SipServer | undefined;
  try {
    ({ app: http, routes } = await buildHttpApp(ctx));
    const log = http.log;
    media = new MediaPlane();
    const cdrs = new CdrStore(db);
    const mediaFiles = new MediaFileStore(db, options.dataDir);
    await finishCutCalls(db, cdrs, mediaFiles, log);
    sw = new SoftSwitch({ media, users, cdrs, mediaFiles, log, ringTimeoutSeconds: options.ringTimeoutSeconds });
    journal = new CallJournal(db, sw);
    const sim = new SimWorld(sw, media, { ringMs: options.simRingMs, historySize: 500 });
    const network = options.simNetwork && options.simApi !== "off" ? new NetworkImpairments() : undefined;
    sip = await SipServer.start(sw, users, media, ctx.auth, {
      ...(network ? { linkFor: (extension: string) => network.linkFor(extension) } : {}),
      log,
      now,
      reconnectGraceMs: options.sipReconnectGraceMs,
      rateBurst: options.sipRateBurst,
      ratePerSecond: options.sipRatePerSecond,
      sourceRateBurst: options.sipSourceRateBurst,
      sourceRatePerSecond: options.sipSourceRatePerSecond,
      sourceShare: options.sipSourceShare,
      minExpires: options.sipMinExpires,
      maxExpires: 3600,
      defaultExpires: 600,
    });
    Object.assign(ctx, { switch: sw, media, sip, sim, cdrs, mediaFiles });
    upgrades.onSip(sip.attach);

    sessionRoutes(http, ctx);
    userRoutes(http, ctx);
    devKeyRoutes(http, ctx);
    cdrRoutes(http, ctx);
    mediaFileRoutes(http, ctx);
    if (options.simApi !== "off") simRoutes(http, sim);
    if (network)
      networkRoutes(http, network, (extension) => users.extension(extension, users.defaultDomain()) !== undefined);
    callCenter = startCallCenter({
      ctx,
      http,
      upgrades,
      sw: parts.switch ?? sw,
      world: parts.world ?? queueCallerWorld(sim),
      simApi: options.simApi,
      rpc: { pingSeconds: options.rpcPingSeconds, loginSeconds: options.rpcLoginSeconds },
    });
    http.server.on("upgrade", upgrades.handle);
    await http.listen({ port: options.port, host: options.host });
  } catch (e) {
    // A port in use, say: release what was opened so that the caller can try again.
    callCenter?.close();
    await sw?.shutdown();
    journal?.close();
    await sip?.close();
    upgrades.close();
    await http?.close();
    await media?.close();
    db.close();
    throw e;
  }
  const port = (http.server.address() as AddressInfo).port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const stop = { sw, journal, sip, media };

  let closed = false;
  return {
    url: `http://${host}:${port}`,
    port,
    ctx,
    http,
    routes: routes(),
    upgrades,
    callCenter,
    async close() {
      if (closed) return;
      closed = true;
      callCenter.close();
      await stop.sw.shutdown();
      stop.journal.close();
      await stop.sip.close();
      upgrades.close();
      await http.close();
      await stop.media.close();
      db.close();
    },
  };
}
