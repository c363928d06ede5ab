import type { FastifyInstance } from "fastify";
import { SIMULATOR } from "../app";
import { fail } from "../errors";
import { CLEAN_LINK, IMPAIRMENT_LIMITS, type LinkImpairment } from "../../media";
import type { NetworkImpairments } from "../../sim/network-impairments";

const linkSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    lossPercent: { type: "number", minimum: 0, maximum: IMPAIRMENT_LIMITS.lossPercent },
    delayMs: { type: "integer", minimum: 0, maximum: IMPAIRMENT_LIMITS.delayMs },
    jitterMs: { type: "integer", minimum: 0, maximum: IMPAIRMENT_LIMITS.jitterMs },
    silence: { type: "boolean" },
  },
} as const;

const params = {
  type: "object",
  required: ["extension"],
  properties: { extension: { type: "string", minLength: 1, maxLength: 32, pattern: "^[A-Za-z0-9+*#._-]+$" } },
} as const;

interface NetworkBody {
  toPhone?: Partial<LinkImpairment>;
  fromPhone?: Partial<LinkImpairment>;
}

/**
 * /sim/network/<extension>: the network between an extension's phone and the platform (see
 * NetworkImpairments). PUT sets both directions (a direction left out is clean), DELETE makes
 * both clean, GET tells the settings and what the links of the extension's live legs did.
 */
export function networkRoutes(
  app: FastifyInstance,
  network: NetworkImpairments,
  extensionExists: (extension: string) => boolean,
): void {
  const known = (extension: string) => {
    if (!extensionExists(extension)) throw fail(404, "Extension Does Not Exist");
    return extension;
  };

  app.get("/sim/network", { config: SIMULATOR }, async () => ({ data: network.impaired() }));

  app.get<{ Params: { extension: string } }>(
    "/sim/network/:extension",
    { config: SIMULATOR, schema: { params } },
    async (req) => network.of(known(req.params.extension)),
  );

  app.put<{ Params: { extension: string }; Body: NetworkBody }>(
    "/sim/network/:extension",
    {
      config: SIMULATOR,
      schema: {
        params,
        body: {
          type: "object",
          additionalProperties: false,
          properties: { toPhone: linkSchema, fromPhone: linkSchema },
        },
      },
    },
    async (req) =>
      network.set(known(req.params.extension), {
        toPhone: { ...CLEAN_LINK, ...req.body.toPhone },
        fromPhone: { ...CLEAN_LINK, ...req.body.fromPhone },
      }),
  );

  app.delete<{ Params: { extension: string } }>(
    "/sim/network/:extension",
    { config: SIMULATOR, schema: { params } },
    async (req) => network.clear(known(req.params.extension)),
  );
}
