import { URI, type Session } from "sip.js";

/**
 * A URI that writes itself in angle brackets. sip.js writes a URI Refer-To bare, so the
 * parameters of a target such as `sip:x@h;transport=ws` would read as header parameters; and
 * for an attended transfer it prefixes a quoted display name, which some servers refuse
 * (ringcentral-web-phone #84). Handing `refer()` this URI gives `Refer-To: <uri>` in both cases.
 */
class BracketedUri extends URI {
  override toString(): string {
    return `<${super.toString()}>`;
  }
}

function bracketed(uri: URI, headers: Record<string, string[]> = {}): URI {
  const parameters = JSON.parse(JSON.stringify(uri.parameters)) as Record<string, string | null>;
  return new BracketedUri(uri.scheme, uri.user ?? "", uri.host, uri.port, parameters, headers);
}

/** Refer-To of a blind transfer. */
export function blindReferTo(target: URI): URI {
  return bracketed(target);
}

/**
 * Refer-To of an attended transfer: the other party's contact in the consultation dialog, with a
 * Replaces header naming that dialog (RFC 3891), so the transferee's INVITE takes it over.
 * Undefined while the consultation has no confirmed dialog.
 */
export function attendedReferTo(consultation: Session): URI | undefined {
  const d = consultation.dialog;
  if (!d) return undefined;
  const replaces = encodeURIComponent(`${d.callId};to-tag=${d.remoteTag};from-tag=${d.localTag}`);
  return bracketed(d.remoteTarget, { Replaces: [replaces] });
}
