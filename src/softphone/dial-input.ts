import { Grammar } from "sip.js";

/**
 * What the user asked to dial, once cleaned up: a number (digits, `*`, `#`, an optional leading
 * `+`) that the phone turns into `sip:<number>@<domain>`, or a full SIP address.
 */
export type DialTarget = { kind: "number"; number: string } | { kind: "sip"; uri: string; user: string; host: string };

export type DialInputProblem =
  | { kind: "empty" }
  | { kind: "invalid-character"; character: string }
  | { kind: "letters" }
  | { kind: "misplaced-plus" }
  | { kind: "too-long"; maxDigits: number }
  | { kind: "invalid-sip-address" };

export type DialInputResult = { ok: true; target: DialTarget } | { ok: false; problem: DialInputProblem };

/** Longer than any E.164 number plus dial prefixes and feature codes; anything longer is a paste accident. */
export const MAX_DIAL_DIGITS = 32;

// Marks that come along when copying from web pages and documents (bidi marks around numbers are
// common in right-to-left pages) and that nobody means to dial.
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
// Visual separators of RFC 3966 plus what people and documents actually use: spaces of every
// width, dashes of every kind, slashes (030/123456) and square brackets.
const SEPARATORS = /[\s\u00A0\u2000-\u200A\u202F\u205F\u3000.\-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D()[\]/]/g;

/**
 * Cleans what the user typed or pasted into something to dial, or says why it cannot be dialled.
 * Pure: the same text always gives the same answer.
 */
export function parseDialInput(input: string): DialInputResult {
  let text = toAsciiDigits(input.normalize("NFKC")).replace(INVISIBLE, "").trim();
  if (text === "") return fail({ kind: "empty" });

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === "sip" || scheme === "sips") return parseSipAddress(text);
  if (scheme === "tel" || scheme === "callto") {
    // tel:+1-201-555-0123;phone-context=... : the parameters are not part of what we dial.
    text =
      text
        .slice(scheme.length + 1)
        .replace(/^\/\//, "")
        .split(";")[0] ?? "";
  } else if (text.includes("@")) {
    return parseSipAddress(`sip:${text}`);
  }

  const number = normaliseNumber(text);
  return number.ok ? { ok: true, target: { kind: "number", number: number.number } } : number;
}

/** The number part of the rules: separators removed, a leading `+` kept, nothing else allowed. */
export function normaliseNumber(text: string): { ok: true; number: string } | { ok: false; problem: DialInputProblem } {
  let t = text.trim();
  // "+44 (0)20 7946 0018": the bracketed trunk zero is dialled only from inside the country.
  if (t.startsWith("+")) t = t.replace(/\(\s*0\s*\)/g, "");
  t = t.replace(SEPARATORS, "");
  let digits = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charAt(i);
    if ((c >= "0" && c <= "9") || c === "*" || c === "#") {
      digits++;
      continue;
    }
    if (c === "+") {
      if (i !== 0) return fail({ kind: "misplaced-plus" });
      continue;
    }
    if (/\p{L}/u.test(c)) return fail({ kind: "letters" });
    return fail({ kind: "invalid-character", character: c });
  }
  if (digits === 0) return fail({ kind: "empty" });
  if (digits > MAX_DIAL_DIGITS) return fail({ kind: "too-long", maxDigits: MAX_DIAL_DIGITS });
  return { ok: true, number: t };
}

/** The Request-URI to send the INVITE to. */
export function dialUri(target: DialTarget, domain: string): string {
  return target.kind === "sip" ? target.uri : `sip:${target.number}@${domain}`;
}

function parseSipAddress(text: string): DialInputResult {
  const uri = Grammar.URIParse(text.replace(/\s+/g, ""));
  if (!uri || !uri.host) return fail({ kind: "invalid-sip-address" });
  const user = uri.user ?? "";
  // A number written with separators in a SIP link (sip:+1-555-0100@host) is still a number.
  if (/^\+?[\d*#\s.\-()]+$/.test(user)) {
    const number = normaliseNumber(user);
    if (!number.ok) return number;
    uri.user = number.number;
  }
  const clean = uri.clone();
  clean.clearHeaders();
  return { ok: true, target: { kind: "sip", uri: clean.toString(), user: clean.user ?? "", host: clean.host } };
}

// NFKC already maps full-width digits; these decimal digit blocks it leaves alone.
function toAsciiDigits(s: string): string {
  return s.replace(/[\u0660-\u0669\u06F0-\u06F9\u0966-\u096F]/g, (c) => {
    const code = c.charCodeAt(0);
    const zero = code >= 0x0966 ? 0x0966 : code >= 0x06f0 ? 0x06f0 : 0x0660;
    return String(code - zero);
  });
}

function fail(problem: DialInputProblem): { ok: false; problem: DialInputProblem } {
  return { ok: false, problem };
}
