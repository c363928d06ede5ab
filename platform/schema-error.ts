import type { ErrorObject } from "ajv";

/**
 * The pattern of texts without control characters (line breaks, tabs, C1 controls): a name that
 * reaches SIP headers, other people's screens and the call records is one line of text.
 */
export const NO_CONTROL_CHARACTERS = "^\\P{Cc}*$";

/**
 * Turns the first schema error into a sentence that names the field. Requests are checked against
 * JSON schemas by Ajv over HTTP and on the JSON-RPC channel alike, and refused in the same words.
 */
export function describeSchemaError(errors: ErrorObject[], part: string): string {
  const e = errors[0];
  if (!e) return `invalid ${part}`;
  const path = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const where = part === "body" ? "" : ` in ${part === "querystring" ? "query" : part}`;
  const field = (name: string) => `'${path ? `${path}.${name}` : name}'`;
  const self = path ? `'${path}'` : part;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `missing required field ${field(String(p.missingProperty))}${where}`;
    case "additionalProperties":
      return `unknown field ${field(String(p.additionalProperty))}${where}`;
    case "type":
      return path
        ? `field ${self}${where} must be ${String(p.type).replace(",", " or ")}`
        : `${part} must be a JSON ${String(p.type)}`;
    case "enum":
      return `field ${self}${where} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "minLength":
      return Number(p.limit) === 1
        ? `field ${self}${where} must not be empty`
        : `field ${self}${where} must be at least ${String(p.limit)} characters`;
    case "maxLength":
      return `field ${self}${where} must be at most ${String(p.limit)} characters`;
    case "minimum":
    case "maximum":
      return `field ${self}${where} ${e.message ?? "is out of range"}`;
    case "pattern":
      return p.pattern === NO_CONTROL_CHARACTERS
        ? `field ${self}${where} must not contain control characters (line breaks, tabs)`
        : `field ${self}${where} has an invalid format`;
    default:
      return `field ${self}${where} ${e.message ?? "is invalid"}`;
  }
}
