import {
  HEADER_NAME,
  MAX_CALL_DATA_FIELDS,
  MAX_CALL_DATA_NAME,
  MAX_CALL_DATA_VALUE,
  isCallDataHeader,
} from "../../shared/call-data";
import type { Call, IncomingCall } from "../softphone";

/**
 * A call's data: the headers of its INVITE that the deployment lists (`embed.callData` in
 * config.json: an IVR's input, `X-IVR-Account: 12345`), as the server wrote them. Read from the
 * headers alone, so any SIP server that sends them works; kept in the call's `context` under
 * `data:<name>` (plain strings, as the phone keeps them, so they follow the call to the agent's
 * other tabs). Bounded as a hostile INVITE could not be: at most MAX_CALL_DATA_FIELDS headers, a
 * name a SIP token of at most MAX_CALL_DATA_NAME characters, a value of at most
 * MAX_CALL_DATA_VALUE (a longer one is dropped, never cut: a cut account number is a wrong one);
 * several values of one header are joined with ", " as RFC 3261 allows.
 */
const PREFIX = "data:";

/** The context entries of the call data `incoming` carries, of the headers `patterns` lists. */
export function callDataContext(incoming: IncomingCall, patterns: readonly string[]): Record<string, string> {
  const data: Record<string, string> = {};
  let fields = 0;
  for (const name of patterns.length ? incoming.headerNames() : []) {
    if (fields >= MAX_CALL_DATA_FIELDS) break;
    if (name.length > MAX_CALL_DATA_NAME || !HEADER_NAME.test(name) || !isCallDataHeader(name, patterns)) continue;
    const value = incoming
      .headers(name)
      .map((v) => v.replace(/\p{Cc}+/gu, " ").trim())
      .filter(Boolean)
      .join(", ");
    if (!value || value.length > MAX_CALL_DATA_VALUE) continue;
    data[name] = value;
    fields++;
  }
  return callDataEntries(data);
}

/** The context entries that carry `data` (header name to value). */
export function callDataEntries(data: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([name, value]) => [PREFIX + name, value]));
}

/** The data a call came with, header name to value (empty when none). */
export function callDataOf(call: Pick<Call, "context">): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(call.context))
    if (key.startsWith(PREFIX)) data[key.slice(PREFIX.length)] = value;
  return data;
}
