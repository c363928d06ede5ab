import type { FastifyInstance } from "fastify";
import type { PlatformContext } from "./context";
import { RpcServer } from "./rpc/rpc-server";
import { DEFAULT_RPC_OPTIONS, type RpcOptions } from "./rpc/verto-session";
import type { Switch } from "./switch/types";
import type { UpgradeRouter } from "./ws/upgrade";
import { CallCenter } from "./cc/call-center";
import { CallControlEngine } from "./cc/call-control";
import { CcService } from "./cc/cc-functions";
import { CallCenterDirectory } from "./cc/directory";
import { NoSwitch } from "./cc/no-switch";
import { QueueCallers } from "./cc/queue-callers";
import { callCenterRoutes } from "./http/routes/call-center";
import { simQueueCallerRoutes } from "./http/routes/sim-queue-callers";
import type { SimulatedWorld } from "./cc/simulated-world";

export interface CallCenterModule {
  directory: CallCenterDirectory;
  engine: CallCenter;
  control: CallControlEngine;
  service: CcService;
  rpc: RpcServer;
  queueCallers?: QueueCallers;
  close(): void;
}

/**
 * The call center of the local platform: the engine on the soft-switch, its REST routes
 * (`/api/cc/...`), the JSON-RPC event channel on `/ws`, and the simulated queue callers of `/sim`.
 */
export function startCallCenter(o: {
  ctx: PlatformContext;
  http: FastifyInstance;
  upgrades: UpgradeRouter;
  sw?: Switch;
  world?: SimulatedWorld;
  /** Whether the /sim surface is served (the platform's simApi option). */
  simApi?: "loopback" | "on" | "off";
  rpc?: Partial<RpcOptions>;
}): CallCenterModule {
  const sw = o.sw ?? new NoSwitch();
  const directory = new CallCenterDirectory(o.ctx.db);
  const { profile, tellMonitoredAgents } = o.ctx.options;
  const full = profile === "full";
  const engine = new CallCenter(directory, sw, full);
  const control = new CallControlEngine(engine, sw, { tellAgents: tellMonitoredAgents });
  const service = new CcService(engine, control, sw, o.sw !== undefined, profile);
  const rpc = new RpcServer({
    auth: o.ctx.auth,
    directory,
    cc: engine,
    service,
    sw,
    events: full,
    options: { ...DEFAULT_RPC_OPTIONS, ...o.rpc },
  });
  const queueCallers = o.world ? new QueueCallers(o.world) : undefined;
  callCenterRoutes(o.http, service, directory, profile);
  if (o.simApi !== "off") simQueueCallerRoutes(o.http, directory, queueCallers);
  o.upgrades.onRpc(rpc.accept);
  return {
    directory,
    engine,
    control,
    service,
    rpc,
    queueCallers,
    close() {
      queueCallers?.close();
      rpc.close();
      engine.close();
    },
  };
}
