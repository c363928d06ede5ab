import type { FastifyInstance } from "fastify";
import { SIGNED_IN, principalOf } from "../app";
import { HttpError } from "../errors";
import { describeSchemaError } from "../../schema-error";
import { ccCaller } from "../../cc/cc-caller";
import { CcError } from "../../cc/cc-error";
import type { CcService } from "../../cc/cc-functions";
import type { CallCenterDirectory } from "../../cc/directory";
import { specAgentStateRecord, type PlatformProfile } from "../../profile";

const agentStateQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    queue: { type: "string", maxLength: 128 },
    // The spec's "queue type"; accepted for compatibility, the queue alone selects the agents.
    type: { type: "string", maxLength: 64 },
  },
} as const;

/**
 * The spec's call-center control under `/api/cc`: `POST /api/cc/ccc/<func>` runs a call-center
 * function and answers its envelope (`{code:200, message:'success'}`, or `{code, message}` with
 * the same HTTP status), `GET /api/cc/agent_state` lists agent state records.
 */
export function callCenterRoutes(
  app: FastifyInstance,
  service: CcService,
  directory: CallCenterDirectory,
  profile: PlatformProfile,
) {
  app.post<{ Params: { func: string }; Body: unknown }>(
    "/api/cc/ccc/:func",
    { config: SIGNED_IN },
    async (req, reply) => {
      const caller = ccCaller(principalOf(req).user, directory);
      const envelope = await service.run(req.params.func, req.body, caller);
      return reply.status(envelope.code === 200 ? 200 : envelope.code).send(envelope);
    },
  );

  app.get<{ Querystring: { queue?: string; type?: string } }>(
    "/api/cc/agent_state",
    {
      config: SIGNED_IN,
      schema: { querystring: agentStateQuery },
      // The call-center API answers envelopes `{code, message}`, also for a malformed query.
      schemaErrorFormatter: (errors, dataVar) =>
        new HttpError(400, { code: 400, message: describeSchemaError(errors, dataVar) }),
    },
    async (req, reply) => {
      const caller = ccCaller(principalOf(req).user, directory);
      try {
        const records = service.agentState(req.query.queue || undefined, caller);
        return profile === "spec-minimal" ? records.map(specAgentStateRecord) : records;
      } catch (e) {
        if (e instanceof CcError) return reply.status(e.code).send({ code: e.code, message: e.message });
        throw e;
      }
    },
  );

  // The local platform's addition (docs/platform-contract.md); a platform of the spec's surface has no such path.
  if (profile === "full")
    app.get<{ Querystring: { queue: string } }>(
      "/api/cc/queue_members",
      {
        config: SIGNED_IN,
        schema: {
          querystring: {
            type: "object",
            additionalProperties: false,
            required: ["queue"],
            properties: { queue: { type: "string", minLength: 1, maxLength: 128 } },
          },
        },
        schemaErrorFormatter: (errors, dataVar) =>
          new HttpError(400, { code: 400, message: describeSchemaError(errors, dataVar) }),
      },
      async (req, reply) => {
        const caller = ccCaller(principalOf(req).user, directory);
        try {
          return service.queueMembers(req.query.queue, caller);
        } catch (e) {
          if (e instanceof CcError) return reply.status(e.code).send({ code: e.code, message: e.message });
          throw e;
        }
      },
    );
}
