import { badRequest } from "./cc-error";

/**
 * The spec's ways of naming an agent in `agent` and `destAgent`: its number (`1001`), its number
 * in a group (`support.1001`: a group is a queue, the one the agent signed into), or `PSTN` for an
 * outside party whose number is in `extn` / `destExtn`.
 */
export type AgentAddress = { kind: "agent"; number: string; group?: string } | { kind: "pstn" };

const NUMBER = /^[0-9A-Za-z_+*#-]{1,32}$/;

export function parseAgentAddress(value: string, field: string): AgentAddress {
  const text = value.trim();
  if (text.toUpperCase() === "PSTN") return { kind: "pstn" };
  const dot = text.lastIndexOf(".");
  const group = dot > 0 ? text.slice(0, dot) : undefined;
  const number = dot > 0 ? text.slice(dot + 1) : text;
  if (!NUMBER.test(number)) throw badRequest(`field '${field}' must be an agent number, <group>.<number> or PSTN`);
  return group ? { kind: "agent", number, group } : { kind: "agent", number };
}

/** A number to dial: digits and the few characters dial strings use. */
export const DIALABLE = /^[0-9A-Za-z_+*#.-]{1,64}$/;
