import { Ajv } from "ajv";
import type { FastifySchemaCompiler } from "fastify";

/**
 * Request validation. Bodies are checked strictly (no type coercion, unknown fields refused) so
 * that a wrong type or a stray field gets a 400 that names the field and nothing is written.
 * Query strings and path parameters arrive as text, so numbers are coerced there.
 */
const strict = new Ajv({ allowUnionTypes: true, allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false });
const coercing = new Ajv({ allowUnionTypes: true, allErrors: false, coerceTypes: true, removeAdditional: false, useDefaults: true });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? strict : coercing;
  return ajv.compile(schema);
};
