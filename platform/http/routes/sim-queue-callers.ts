import type { FastifyInstance } from "fastify";
import { SIMULATOR } from "../app";
import { fail } from "../errors";
import { callerData, callerDataProblem, nameText } from "../validation";
import type { CallCenterDirectory } from "../../cc/directory";
import type { QueueCallerOptions, QueueCallers } from "../../cc/queue-callers";

const startBody = {
  type: "object",
  additionalProperties: false,
  required: ["queue"],
  properties: {
    queue: { type: "string", minLength: 1, maxLength: 128 },
    callerIdNumber: { type: "string", pattern: "^[0-9+*#]{1,32}$" },
    callerIdName: nameText(80),
    toneHz: { type: "integer", minimum: 100, maximum: 4000 },
    patienceSeconds: { type: "number", minimum: 0, maximum: 3600 },
    dtmf: { type: "string", pattern: "^[0-9*#A-D]{1,32}$" },
    dtmfDelaySeconds: { type: "number", minimum: 0, maximum: 60 },
    data: callerData,
  },
} as const;

/**
 * `/sim/queue-callers`: simulated customers calling a queue, for the demo's button and for tests.
 * Like the rest of `/sim`, it is a test surface of the local platform, not part of the spec's API,
 * and needs no token.
 *
 * - `POST /sim/queue-callers {queue, callerIdNumber?, callerIdName?, toneHz?, patienceSeconds?, dtmf?, dtmfDelaySeconds?, data?}`
 *   → the caller's report (201)
 * - `GET /sim/queue-callers` → every report; `GET /sim/queue-callers/<id>` → one
 * - `DELETE /sim/queue-callers/<id>` → the caller hangs up; its report
 */
export function simQueueCallerRoutes(
  app: FastifyInstance,
  directory: CallCenterDirectory,
  callers: QueueCallers | undefined,
) {
  const need = () => {
    if (!callers) throw fail(503, "the simulated outside world is not running");
    return callers;
  };

  app.post<{ Body: Partial<QueueCallerOptions> & { queue: string } }>(
    "/sim/queue-callers",
    { config: SIMULATOR, schema: { body: startBody } },
    async (req, reply) => {
      const b = req.body;
      const problem = callerDataProblem(b.data);
      if (problem) throw fail(400, problem);
      if (!directory.queue(b.queue)) throw fail(404, `queue '${b.queue}' not found`);
      const report = await need().start({
        queue: b.queue,
        callerIdNumber: b.callerIdNumber ?? "5550100",
        callerIdName: b.callerIdName ?? "Simulated Customer",
        toneHz: b.toneHz,
        patienceSeconds: b.patienceSeconds,
        dtmf: b.dtmf,
        dtmfDelaySeconds: b.dtmfDelaySeconds,
        ...(b.data ? { data: b.data } : {}),
      });
      return reply.status(201).send(report);
    },
  );

  app.get("/sim/queue-callers", { config: SIMULATOR }, async () => need().list());

  app.get<{ Params: { id: string } }>("/sim/queue-callers/:id", { config: SIMULATOR }, async (req) => {
    const report = need().get(req.params.id);
    if (!report) throw fail(404, `queue caller '${req.params.id}' not found`);
    return report;
  });

  app.delete<{ Params: { id: string } }>("/sim/queue-callers/:id", { config: SIMULATOR }, async (req) => {
    const report = need().hangup(req.params.id);
    if (!report) throw fail(404, `queue caller '${req.params.id}' not found`);
    return report;
  });
}
