/**
 * Display names in SIP headers (From, To, P-Asserted-Identity, Remote-Party-ID) are data, never
 * syntax. RFC 3261 writes them as a token (`Anna Smith <sip:…>`) or a quoted-string in which `"`
 * and `\` are escaped (`"Anna \"Annie\" Smith" <sip:…>`), and neither may hold a line break.
 * sip.js does neither half: it writes a display name between quotes as it is given, and its parser
 * returns the text between the quotes with its escapes still in. These two functions are the
 * phone's only way across, for any server's names.
 */

/** Control characters (line breaks, tabs, C1 controls): a name shows them as one space. */
const CONTROLS = /[\p{Cc}]+/gu;

/** The name a person is shown, from a display name as sip.js parsed it (token or quoted text). */
export function displayNameFromSip(text: string): string {
  return text
    .replace(/\\([\s\S])/g, "$1")
    .replace(CONTROLS, " ")
    .trim();
}

/** The text sip.js is to write between the quotes of a display name: escaped, on one line. */
export function displayNameForSip(name: string): string {
  return name.replace(CONTROLS, " ").trim().replace(/["\\]/g, "\\$&");
}
