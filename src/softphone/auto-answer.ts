import { splitTopLevel } from "./header-values";

/**
 * Which incoming calls the phone answers by itself:
 * - `always`: every call that carries an auto-answer marker, whoever sent it;
 * - `platform`: only marked calls that the platform originated, directly or through proxies (see `isPlatformOriginated`);
 * - `never`: none; marked calls ring like any other.
 * Unmarked calls are never answered automatically.
 */
export type AutoAnswerPolicy = "always" | "platform" | "never";

export type AutoAnswerSource = "call-info" | "intercom" | "alert-info" | "answer-mode" | "p-auto-answer";

/** An auto-answer request found in an INVITE. */
export interface AutoAnswerMarker {
  source: AutoAnswerSource;
  /** Seconds to ring before answering (0 = at once). */
  afterSec: number;
  /** The header value (or Request-URI) it was read from, for logs. */
  raw: string;
}

/** The parts of an incoming INVITE the detection reads; `IncomingRequestMessage` provides them. */
export interface InviteHeaders {
  /** All raw values of a header (case-insensitive name); never parsed by sip.js. */
  headers(name: string): string[];
  /** A Request-URI parameter: a string, `null` for a parameter without value, `undefined` if absent. */
  requestUriParam(name: string): string | null | undefined;
}

/** Longest delay we honour; a marker asking for more is a misconfiguration, not a wish to ring for hours. */
export const MAX_ANSWER_AFTER_SEC = 60;

/**
 * The auto-answer requests found in an INVITE, in the order of how explicit each form is about the
 * delay: `Call-Info: <...>;answer-after=N` (FreeSWITCH `sip_auto_answer`, RFC 7462 era phones),
 * `;intercom=true` in the Request-URI (FreeSWITCH adds it next to Call-Info),
 * `Alert-Info` variants (`info=alert-autoanswer`, "Auto Answer", "Ring Answer", with `delay=N`),
 * `Answer-Mode: Auto` (RFC 5373) and `P-Auto-Answer` (anything but an explicit no).
 */
export function autoAnswerMarkers(invite: InviteHeaders): AutoAnswerMarker[] {
  const found: AutoAnswerMarker[] = [];
  const values = (name: string) => invite.headers(name).flatMap((value) => splitTopLevel(value));
  for (const raw of values("Call-Info")) {
    const m = /(?:^|;)\s*answer-after\s*=\s*"?(\d+)/i.exec(raw);
    if (m) found.push({ source: "call-info", afterSec: clampDelay(m[1]), raw });
  }
  const intercom = invite.requestUriParam("intercom");
  if (intercom === null || (typeof intercom === "string" && /^(true|1|yes)$/i.test(intercom))) {
    found.push({ source: "intercom", afterSec: 0, raw: `intercom${intercom === null ? "" : "=" + intercom}` });
  }
  for (const raw of values("Alert-Info")) {
    if (/info\s*=\s*"?alert-autoanswer|auto[\s-]?answer|ring[\s-]?answer/i.test(raw)) {
      const delay = /(?:^|;)\s*delay\s*=\s*"?(\d+)/i.exec(raw)?.[1];
      found.push({ source: "alert-info", afterSec: clampDelay(delay), raw });
    }
  }
  for (const raw of invite.headers("Answer-Mode")) {
    if (/^\s*auto\s*(;|$)/i.test(raw)) found.push({ source: "answer-mode", afterSec: 0, raw });
  }
  for (const raw of invite.headers("P-Auto-Answer")) {
    if (!/^\s*(false|no|0|off)\s*$/i.test(raw)) found.push({ source: "p-auto-answer", afterSec: 0, raw });
  }
  return found;
}

/** The auto-answer request that counts: the most explicit one found. */
export function detectAutoAnswer(invite: InviteHeaders): AutoAnswerMarker | undefined {
  return autoAnswerMarkers(invite)[0];
}

/**
 * Whether the INVITE comes from the platform rather than from another phone. Two facts decide it:
 * - a proxy must add its own Via above the sender's (RFC 3261 §16.6 step 8), so a request with a
 *   single Via was sent by the server at the other end of our socket itself: a back-to-back user
 *   agent such as FreeSWITCH originates its click-to-dial, monitor, three-way and intercept legs so;
 * - behind a proxy (Kamailio or OpenSIPS in front of FreeSWITCH, the usual WebRTC deployment) the
 *   request has more Vias, and the bottom one is its originator's. Browser phones, ours and every
 *   other WebRTC client, can only send over WebSocket, so their Via says WS or WSS; a media server
 *   talks to its proxy over UDP, TCP or TLS. A marker on a request a browser phone originated, even
 *   relayed straight to us by a proxy, is therefore refused.
 * See docs/decisions.md ("Auto-answer policy `platform`") for what this leaves open.
 */
export function isPlatformOriginated(invite: Pick<InviteHeaders, "headers">): boolean {
  const vias = invite.headers("Via").flatMap((value) => splitTopLevel(value));
  if (vias.length === 1) return true;
  const transport = /^\s*SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)/i.exec(vias.at(-1) ?? "")?.[1]?.toUpperCase();
  return !!transport && transport !== "WS" && transport !== "WSS";
}

export type AutoAnswerDecision =
  | { answer: true; marker: AutoAnswerMarker; afterSec: number }
  | {
      answer: false;
      reason: "no-marker" | "policy-never" | "not-from-platform" | "ambiguous";
      marker?: AutoAnswerMarker;
    };

/**
 * Whether to answer an INVITE by itself. Only a well-formed request gets here (the phone refuses
 * malformed ones first), and only one request of a kind counts: two `answer-after` values (or two
 * Alert-Info auto-answer values...) say two different things, as headers added to a request
 * behind its sender's back would, so the call rings instead.
 */
export function decideAutoAnswer(policy: AutoAnswerPolicy, invite: InviteHeaders): AutoAnswerDecision {
  const markers = autoAnswerMarkers(invite);
  const marker = markers[0];
  if (!marker) return { answer: false, reason: "no-marker" };
  if (markers.filter((m) => m.source === marker.source).length > 1)
    return { answer: false, reason: "ambiguous", marker };
  if (policy === "never") return { answer: false, reason: "policy-never", marker };
  if (policy === "platform" && !isPlatformOriginated(invite))
    return { answer: false, reason: "not-from-platform", marker };
  return { answer: true, marker, afterSec: marker.afterSec };
}

function clampDelay(value: string | undefined): number {
  const n = value === undefined ? 0 : Number.parseInt(value, 10);
  return Number.isFinite(n) ? Math.min(Math.max(n, 0), MAX_ANSWER_AFTER_SEC) : 0;
}
