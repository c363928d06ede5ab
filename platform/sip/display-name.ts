/**
 * A name the platform writes into SIP (a caller's name in From) is data, never syntax: RFC 3261's
 * quoted-string, with `"` and `\` escaped and no line break or other control character, which
 * would end the header and start one of the writer's choosing (`Call-Info: …;answer-after=0`
 * answers a phone by itself). sip.js writes a display name between quotes exactly as it is given,
 * so every display name the platform hands it goes through here first. Names stored through the
 * API cannot hold control characters; names already in the data, or from elsewhere, lose them.
 * The platform reads no display name from phones (a caller's name is its extension's `cid_name`),
 * so what is escaped here was never escaped before.
 */
export function displayNameForSip(name: string): string {
  return name
    .replace(/[\p{Cc}]+/gu, " ")
    .trim()
    .replace(/["\\]/g, "\\$&");
}
