import { Ajv } from "ajv";
import type { FastifySchemaCompiler } from "fastify";
import { MAX_CALL_DATA_FIELDS, MAX_CALL_DATA_VALUE, callerDataNameProblem } from "../../shared/call-data";
import { NO_CONTROL_CHARACTERS } from "../schema-error";

/**
 * Request validation. Bodies are checked strictly (no type coercion, unknown fields refused) so
 * that a wrong type or a stray field gets a 400 that names the field and nothing is written.
 * Query strings and path parameters arrive as text, so numbers are coerced there.
 */
const strict = new Ajv({
  allowUnionTypes: true,
  allErrors: false,
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
});
const coercing = new Ajv({
  allowUnionTypes: true,
  allErrors: false,
  coerceTypes: true,
  removeAdditional: false,
  useDefaults: true,
});

/** The largest whole number a field of the API holds (SQLite and most clients take 32 bits without loss). */
export const MAX_INT32 = 2 ** 31 - 1;
/** Paging of every list: pages from 1, at most 1000 rows a page. */
export const PAGE = { type: "integer", minimum: 1, maximum: 1_000_000 } as const;
export const PER_PAGE = { type: "integer", minimum: 1, maximum: 1000 } as const;

/** A person's name as stored (a user's, a caller's): at most `maxLength` characters on one line. */
export const nameText = (maxLength: number, minLength = 0) =>
  ({ type: "string", minLength, maxLength, pattern: NO_CONTROL_CHARACTERS }) as const;

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? strict : coercing;
  return ajv.compile(schema);
};

/**
 * A simulated caller's data (`/sim/calls`, `/sim/queue-callers`): header names to values, as the
 * caller's INVITE would carry them (`{"X-IVR-Account": "12345"}`). Values are one line of at most
 * MAX_CALL_DATA_VALUE characters, at most MAX_CALL_DATA_FIELDS of them; the names are checked by
 * `callerDataProblem`, which says why a name is refused.
 */
export const callerData = {
  type: "object",
  maxProperties: MAX_CALL_DATA_FIELDS,
  additionalProperties: {
    type: "string",
    minLength: 1,
    maxLength: MAX_CALL_DATA_VALUE,
    pattern: NO_CONTROL_CHARACTERS,
  },
} as const;

/** Why a caller's data is refused by its names (see `callerDataNameProblem`), or undefined. */
export function callerDataProblem(data: Readonly<Record<string, string>> | undefined): string | undefined {
  const seen = new Set<string>();
  for (const name of Object.keys(data ?? {})) {
    const problem = callerDataNameProblem(name);
    if (problem) return `field 'data': ${problem}`;
    if (seen.has(name.toLowerCase()))
      return `field 'data': '${name}' is named twice (header names are compared without regard to case)`;
    seen.add(name.toLowerCase());
  }
  return undefined;
}
