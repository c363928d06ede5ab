import type { Channel } from "./types";

/**
 * FreeSWITCH keeps the X- (and P-) headers of an INVITE it receives as channel variables named
 * `sip_h_<Header>` (mod_sofia), and writes every `sip_h_` variable of a leg it sends as a header
 * of that leg's INVITE. A bridge hands the caller's `sip_h_` variables on to the leg it calls
 * (mod_sofia transfers `~sip_h_`); mod_callcenter, which calls agents without a session, hands on
 * only the variables a queue lists in `cc_export_vars`. The local platform does the same with the
 * data of its simulated callers (docs/platform-contract.md, "A caller's data").
 */
export const SIP_HEADER_VARIABLE = "sip_h_";

/** The `sip_h_` variables of a leg, to hand on to another: its caller's data. */
export function sipHeaderVariablesOf(ch: Pick<Channel, "variables">): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of ch.variables) if (name.startsWith(SIP_HEADER_VARIABLE)) out[name] = value;
  return out;
}

/** Headers (name to value) as the `sip_h_` variables that carry them. */
export function sipHeaderVariables(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [SIP_HEADER_VARIABLE + name, value]));
}
