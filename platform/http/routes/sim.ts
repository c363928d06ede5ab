import type { FastifyInstance } from "fastify";
import { SIMULATOR } from "../app";
import { fail } from "../errors";
import { callerData, callerDataProblem, nameText } from "../validation";
import type { HangupCause } from "../../switch/types";
import type { SimWorld } from "../../sim/sim-world";

/**
 * The /sim HTTP surface: a test and demo hand on the simulated outside world, kept apart from
 * /api (no token; the real platform has nothing like it). Whether it is served is the platform
 * option `simApi`: "loopback" (default: only clients on this machine), "on" (anyone who can reach
 * the port, e.g. a demo behind a proxy) or "off" (not registered); its routes declare the
 * `simulator` access, which checks it.
 */
export function simRoutes(app: FastifyInstance, sim: SimWorld) {
  const channelOr404 = (uuid: string) => {
    const ch = sim.get(uuid);
    if (!ch) throw fail(404, "Simulated Channel Does Not Exist");
    return ch;
  };

  app.get<{ Querystring: { ended?: boolean; number?: string } }>(
    "/sim/channels",
    {
      config: SIMULATOR,
      schema: {
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { ended: { type: "boolean" }, number: { type: "string", maxLength: 64 } },
        },
      },
    },
    async (req) => {
      const all = sim.list(req.query.ended ?? false);
      const number = req.query.number;
      const chosen = number ? all.filter((ch) => ch.destinationNumber === number || ch.callerIdNumber === number) : all;
      return { data: chosen.map((ch) => ch.report()) };
    },
  );

  app.get<{ Params: { uuid: string } }>("/sim/channels/:uuid", { config: SIMULATOR }, async (req) =>
    channelOr404(req.params.uuid).report(),
  );

  app.post<{
    Body: {
      destination: string;
      callerIdNumber?: string;
      callerIdName?: string;
      frequency?: number;
      data?: Record<string, string>;
    };
  }>(
    "/sim/calls",
    {
      config: SIMULATOR,
      schema: {
        body: {
          type: "object",
          additionalProperties: false,
          required: ["destination"],
          properties: {
            destination: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9+*#._-]+$" },
            callerIdNumber: { type: "string", minLength: 1, maxLength: 32, pattern: "^[A-Za-z0-9+*#._-]+$" },
            callerIdName: nameText(64),
            frequency: { type: "integer", minimum: 0, maximum: 8000 },
            data: callerData,
          },
        },
      },
    },
    async (req) => {
      const b = req.body;
      const problem = callerDataProblem(b.data);
      if (problem) throw fail(400, problem);
      const ch = sim.placeCall({
        destination: b.destination,
        callerIdNumber: b.callerIdNumber ?? "5550100",
        callerIdName: b.callerIdName ?? "Simulated Caller",
        frequency: b.frequency ?? 0,
        ...(b.data ? { data: b.data } : {}),
      });
      return ch.report();
    },
  );

  app.post<{ Params: { uuid: string }; Body: { cause?: HangupCause } | undefined }>(
    "/sim/channels/:uuid/hangup",
    {
      config: SIMULATOR,
      schema: {
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: {
            cause: {
              type: "string",
              enum: ["NORMAL_CLEARING", "USER_BUSY", "CALL_REJECTED", "NO_ANSWER", "ORIGINATOR_CANCEL"],
            },
          },
        },
      },
    },
    async (req) => {
      const ch = channelOr404(req.params.uuid);
      if (!ch.isUp) throw fail(400, "the simulated channel has already hung up");
      ch.farEndHangup(
        req.body?.cause ??
          (ch.state === "answered" || ch.direction === "inbound" ? "NORMAL_CLEARING" : "CALL_REJECTED"),
      );
      return ch.report();
    },
  );

  app.post<{ Params: { uuid: string }; Body: { digits: string; method?: "inband" | "info" } }>(
    "/sim/channels/:uuid/dtmf",
    {
      config: SIMULATOR,
      schema: {
        body: {
          type: "object",
          additionalProperties: false,
          required: ["digits"],
          properties: {
            digits: { type: "string", minLength: 1, maxLength: 32, pattern: "^[0-9A-Da-d*#]+$" },
            method: { type: "string", enum: ["inband", "info"] },
          },
        },
      },
    },
    async (req) => {
      const ch = channelOr404(req.params.uuid);
      if (!ch.isUp) throw fail(400, "the simulated channel has already hung up");
      ch.sayDigits(req.body.digits, req.body.method ?? "inband");
      return ch.report();
    },
  );

  app.post<{ Params: { uuid: string }; Body: { frequency: number } }>(
    "/sim/channels/:uuid/tone",
    {
      config: SIMULATOR,
      schema: {
        body: {
          type: "object",
          additionalProperties: false,
          required: ["frequency"],
          properties: { frequency: { type: "integer", minimum: 0, maximum: 8000 } },
        },
      },
    },
    async (req) => {
      const ch = channelOr404(req.params.uuid);
      if (!ch.isUp) throw fail(400, "the simulated channel has already hung up");
      ch.say(req.body.frequency);
      return ch.report();
    },
  );
}
