/**
 * A call's data: what came with the call besides who calls, as SIP headers of the INVITE (an
 * IVR's input: `X-IVR-Account: 12345`). The deployment lists which headers are the call's data
 * (`embed.callData` in config.json, by name or by prefix); the app labels each call with those it
 * carries and hands them to hosts with the `caller-data` scope; the local platform's simulated
 * callers carry such data and its soft-switch copies it onto the agent's leg. Shared by the app,
 * the host SDK's schemas and the local platform, so that all three bound it alike.
 */

/** At most this many headers of one call are its data; more are dropped. */
export const MAX_CALL_DATA_FIELDS = 32;
/** The longest header name taken as data. */
export const MAX_CALL_DATA_NAME = 64;
/** The longest value taken as data; a longer one is dropped, never cut (a cut account number is a wrong one). */
export const MAX_CALL_DATA_VALUE = 1024;

/** A SIP header name (RFC 3261 `token`). */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** What the app takes as a call's data when the deployment lists nothing: the IVR's headers. */
export const DEFAULT_CALL_DATA: readonly string[] = ["X-IVR-*"];

/** The most names and prefixes config.json may list. */
export const MAX_CALL_DATA_PATTERNS = 32;

/**
 * Why `pattern` cannot be an entry of `embed.callData`, or undefined: a header name
 * (`User-to-User`) or a prefix ending in `*` (`X-IVR-*`), never `*` alone (every header of the
 * INVITE, its Via and Contact with the platform's addresses among them).
 */
export function callDataPatternProblem(pattern: string): string | undefined {
  const name = pattern.endsWith("*") ? pattern.slice(0, -1) : pattern;
  if (!name) return `'*' would take every header of a call: name the headers, or a prefix such as X-IVR-*`;
  if (name.length > MAX_CALL_DATA_NAME || !HEADER_NAME.test(name) || name.includes("*"))
    return `'${pattern}' is not a header name, nor a prefix ending in * (such as X-IVR-*)`;
  return undefined;
}

/** Whether a header `name` is one `patterns` list (names, or prefixes ending in `*`), compared without regard to case. */
export function isCallDataHeader(name: string, patterns: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return patterns.some((p) =>
    p.endsWith("*") ? lower.startsWith(p.slice(0, -1).toLowerCase()) : lower === p.toLowerCase(),
  );
}

/**
 * What a simulated caller's data may name on the local platform (`/sim`): headers starting with
 * `X-` of letters, digits and hyphens, as a caller's own INVITE could carry them to FreeSWITCH
 * (which keeps X- headers as `sip_h_` variables). `X-CC-` is the call center's own (a caller
 * naming `X-CC-Agent-UUID` would speak for the platform) and `X-FS-` FreeSWITCH's: refused in any
 * case, since header names are compared without regard to case.
 */
export function callerDataNameProblem(name: string): string | undefined {
  if (name.length > MAX_CALL_DATA_NAME) return `'${name.slice(0, 80)}' is longer than ${MAX_CALL_DATA_NAME} characters`;
  if (!/^X-[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/i.test(name))
    return `'${name}' is not a header name starting with X- (letters, digits and hyphens)`;
  if (/^X-(CC|FS)-/i.test(name)) return `'${name}' is the platform's own header (X-CC-, X-FS-)`;
  return undefined;
}
