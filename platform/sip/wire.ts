/**
 * The little SIP text handling the transport needs before (or instead of) sip.js's parser:
 * routing keys and stateless answers to messages the parser refused. Everything else about a
 * message is read through sip.js's Core.
 */

/** A double-CRLF keep-alive ping (RFC 5626 §3.5.1, sent by sip.js's keepAliveInterval). */
export function isKeepAlive(raw: string): boolean {
  return /^(\r\n)+$/.test(raw);
}

export function isResponse(raw: string): boolean {
  return raw.startsWith("SIP/2.0 ");
}

/**
 * A final response after which its branch carries nothing more: any but an INVITE's (its 2xx is
 * sent again until the ACK) or a CANCEL's (the INVITE it cancels shares its branch).
 */
export function endsItsBranch(raw: string): boolean {
  const status = /^SIP\/2\.0 (\d{3}) /.exec(raw)?.[1];
  const cseq = headerLines(raw).find((h) => h.name === "cseq")?.value;
  return status !== undefined && Number(status) >= 200 && cseq !== undefined && !/\s(INVITE|CANCEL)$/i.test(cseq);
}

/** `METHOD` of a request line that looks like one, else undefined. */
export function requestMethod(raw: string): string | undefined {
  return /^([A-Za-z]+) \S+ SIP\/2\.0\r?\n/.exec(raw)?.[1]?.toUpperCase();
}

/** Header lines of a raw message (folded lines joined), by lower-case name, compact forms expanded. */
function headerLines(raw: string): { name: string; value: string }[] {
  const end = raw.indexOf("\r\n\r\n");
  const head = (end >= 0 ? raw.slice(0, end) : raw).replace(/\r\n[ \t]+/g, " ");
  const lines = head.split("\r\n").slice(1);
  const compact: Record<string, string> = {
    v: "via",
    f: "from",
    t: "to",
    i: "call-id",
    m: "contact",
    l: "content-length",
  };
  const out: { name: string; value: string }[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    out.push({ name: compact[name] ?? name, value: line.slice(colon + 1).trim() });
  }
  return out;
}

/** Branch of the first Via of a message, the key its response is routed by. */
export function topViaBranch(raw: string): string | undefined {
  const via = headerLines(raw).find((h) => h.name === "via");
  return via ? /;\s*branch=([^;,\s]+)/i.exec(via.value)?.[1] : undefined;
}

/** The Request-URI of a request line, as written. */
export function requestUriText(raw: string): string | undefined {
  return /^[A-Za-z]+ (\S+) SIP\/2\.0\r?\n/.exec(raw)?.[1];
}

/** User part of a request's Request-URI: the Contact user of the phone it goes to. */
export function requestUriUser(raw: string): string | undefined {
  return /^[A-Z]+ sips?:([^@;>\s]+)@/.exec(raw)?.[1];
}

/**
 * A stateless response to a request sip.js could not parse, built from whatever Via, From, To,
 * Call-ID and CSeq lines can be recovered, so that a well-meaning but broken client still learns
 * what went wrong. Undefined when the text is not even a request.
 */
export function statelessResponse(
  raw: string,
  statusCode: number,
  reasonPhrase: string,
  extraHeaders: string[] = [],
): string | undefined {
  if (!requestMethod(raw)) return undefined;
  const headers = headerLines(raw);
  const pick = (name: string) => headers.filter((h) => h.name === name).map((h) => h.value);
  const lines = [`SIP/2.0 ${statusCode} ${reasonPhrase}`];
  for (const via of pick("via")) lines.push(`Via: ${via}`);
  const from = pick("from")[0];
  if (from) lines.push(`From: ${from}`);
  const to = pick("to")[0];
  if (to) lines.push(`To: ${/;\s*tag=/i.test(to) ? to : `${to};tag=${Math.random().toString(36).slice(2, 12)}`}`);
  const callId = pick("call-id")[0];
  if (callId) lines.push(`Call-ID: ${callId}`);
  const cseq = pick("cseq")[0];
  if (cseq && /^\d+\s+[A-Za-z]+$/.test(cseq)) lines.push(`CSeq: ${cseq}`);
  lines.push(...extraHeaders, "Content-Length: 0", "", "");
  return lines.join("\r\n");
}
