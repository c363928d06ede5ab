/**
 * Limits a SIP message must keep before the platform parses it (sip.js's grammar costs about a
 * millisecond for a REGISTER and grows with every header it parses: a 250 KB message of 9,000
 * Contacts took over a second). Checked on the raw text in one pass, without parsing anything;
 * each limit is several times what a real phone sends (see docs/security.md).
 */
export interface SipFrameLimits {
  /** The whole message, bytes (a WebRTC INVITE with its SDP is 2-6 KB). */
  maxMessageBytes: number;
  /** The start line and the header fields, up to the blank line before the body, bytes. */
  maxHeaderBytes: number;
  /** Header fields (a folded field is one; a phone sends 10-20). */
  maxHeaderFields: number;
  /** One header field or the start line, continuation lines included, bytes. */
  maxFieldBytes: number;
}

export const DEFAULT_SIP_FRAME_LIMITS: SipFrameLimits = {
  maxMessageBytes: 32 * 1024,
  maxHeaderBytes: 8 * 1024,
  maxHeaderFields: 64,
  maxFieldBytes: 2 * 1024,
};

/** The answer to a message over a limit: a status code and its reason phrase. */
export interface FrameRefusal {
  status: number;
  reason: string;
}

const SPACE = 32;
const TAB = 9;

/** Why `raw` may not be parsed, or undefined when it keeps every limit. */
export function frameRefusal(raw: string, limits: SipFrameLimits): FrameRefusal | undefined {
  // Characters first: a string longer than the limit is longer in bytes too.
  if (raw.length > limits.maxMessageBytes || Buffer.byteLength(raw) > limits.maxMessageBytes)
    return { status: 513, reason: "Message Too Large" };
  const blank = raw.indexOf("\r\n\r\n");
  const head = blank < 0 ? raw.length : blank;
  if (head > limits.maxHeaderBytes) return { status: 513, reason: "Headers Too Large" };
  let end = raw.indexOf("\r\n");
  if (end < 0 || end > head) end = head;
  if (end > limits.maxFieldBytes) return { status: 414, reason: "Request-URI Too Long" };
  let fields = 0;
  let fieldStart = 0;
  while (end < head) {
    const start = end + 2;
    end = raw.indexOf("\r\n", start);
    if (end < 0 || end > head) end = head;
    const first = raw.charCodeAt(start);
    if (first !== SPACE && first !== TAB) {
      if (++fields > limits.maxHeaderFields) return { status: 400, reason: "Too Many Headers" };
      fieldStart = start;
    }
    if (end - fieldStart > limits.maxFieldBytes) return { status: 400, reason: "Header Too Long" };
  }
  return undefined;
}
