import { Grammar, type NameAddrHeader } from "sip.js";
import { displayNameFromSip } from "./display-name";
import { splitTopLevel } from "./header-values";

/** Who is on the other end, as far as SIP tells. */
export interface RemoteParty {
  /** The user part: a number or an extension, "" when unknown. */
  number: string;
  /** Display name, when one was given. */
  name?: string;
  /** The SIP (or tel) URI it came from. */
  uri: string;
  /** The caller asked to hide their identity (anonymous From, or `Privacy: id`). */
  withheld: boolean;
}

export interface IdentityHeaders {
  headers(name: string): string[];
}

/**
 * The identity of the caller of an incoming INVITE. The network-asserted identity wins over the
 * From header, which the caller writes itself: P-Asserted-Identity (RFC 3325), then a
 * Remote-Party-ID with party=calling (what FreeSWITCH sends by default), then From. Each is read
 * with `Grammar.nameAddrHeaderParse`: sip.js's `parseHeader` drops headers it does not know.
 */
export function callerOf(request: IdentityHeaders, from: NameAddrHeader): RemoteParty {
  const fromParty = partyOf(from);
  const withheld =
    fromParty.withheld || request.headers("Privacy").some((v) => /(^|[;,\s])(id|user)(\s|;|,|$)/i.test(v));
  const asserted =
    firstIdentity(request.headers("P-Asserted-Identity")) ??
    firstIdentity(callingRpid(request.headers("Remote-Party-ID")));
  if (!asserted) return { ...fromParty, withheld };
  const name = asserted.name ?? fromParty.name;
  return { ...asserted, ...(name ? { name } : {}), withheld };
}

/** The identity of the party we called (the To of our INVITE, or what the network asserted). */
export function calleeOf(to: NameAddrHeader, asserted?: NameAddrHeader): RemoteParty {
  const party = partyOf(to);
  if (!asserted) return party;
  const a = partyOf(asserted);
  return { ...a, ...((a.name ?? party.name) ? { name: a.name ?? party.name } : {}) };
}

export function partyOf(header: NameAddrHeader): RemoteParty {
  const user = header.uri.user ?? "";
  const name = header.displayName ? displayNameFromSip(header.displayName) : undefined;
  const withheld =
    /^anonymous$/i.test(user) || /anonymous\.invalid$/i.test(header.uri.host) || /^anonymous$/i.test(name ?? "");
  return { number: user, ...(name ? { name } : {}), uri: header.uri.toString(), withheld };
}

function firstIdentity(values: readonly string[]): RemoteParty | undefined {
  for (const value of values) {
    for (const part of splitTopLevel(value)) {
      const parsed = Grammar.nameAddrHeaderParse(part);
      if (parsed) return partyOf(parsed);
      // sip.js's grammar has no tel: URIs; "<tel:+15551234>" is common in P-Asserted-Identity.
      const tel = /^\s*(?:"((?:[^"\\]|\\.)*)"\s*)?<?tel:([^>;,\s]+)/i.exec(part);
      const telName = tel?.[1] ? displayNameFromSip(tel[1]) : "";
      if (tel?.[2])
        return { number: tel[2], ...(telName ? { name: telName } : {}), uri: `tel:${tel[2]}`, withheld: false };
    }
  }
  return undefined;
}

function callingRpid(values: readonly string[]): string[] {
  return values.flatMap((v) => splitTopLevel(v)).filter((v) => !/;\s*party\s*=\s*called/i.test(v));
}
