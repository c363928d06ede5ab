import { MAX_CALL_DATA_VALUE, callerDataNameProblem } from "../../shared/call-data";
import { SIP_HEADER_VARIABLE } from "../switch/sip-header-variables";

/**
 * The headers a leg's `sip_h_` variables ask for on its INVITE, as FreeSWITCH writes them: a
 * caller's data handed on to the phone. They are data, never syntax: only names a caller's data
 * may have (`X-…`, never the platform's own `X-CC-…`, which would speak for the call center), and
 * values on one line without control characters (a line break would end the header and start one
 * of the writer's choosing, `Call-Info: …;answer-after=0`), as display names are made safe.
 * `/sim` refuses such data; this guards whatever reaches a leg past it.
 */
export function sipHeaderLines(variables: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const [variable, raw] of variables) {
    if (!variable.startsWith(SIP_HEADER_VARIABLE)) continue;
    const name = variable.slice(SIP_HEADER_VARIABLE.length);
    const value = raw.replace(/[\p{Cc}]+/gu, " ").trim();
    if (callerDataNameProblem(name) || !value || value.length > MAX_CALL_DATA_VALUE) continue;
    lines.push(`${name}: ${value}`);
  }
  return lines;
}
