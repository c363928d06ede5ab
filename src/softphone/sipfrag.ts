/** The status line of a `message/sipfrag` body, as carried by NOTIFYs about a REFER (RFC 3515). */
export interface SipfragStatus {
  status: number;
  reasonPhrase: string;
}

export function parseSipfrag(body: string | undefined): SipfragStatus | undefined {
  if (!body) return undefined;
  const m = /^\s*SIP\/2\.0\s+(\d{3})(?:[ \t]+([^\r\n]*))?/i.exec(body);
  if (!m?.[1]) return undefined;
  return { status: Number(m[1]), reasonPhrase: (m[2] ?? "").trim() };
}
