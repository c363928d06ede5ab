import { Core, Grammar, type Transport } from "sip.js";

/**
 * Requests the phone refuses before sip.js sees them. sip.js keeps the last of a repeated From or
 * To (so text injected into a display name can replace who a call is from and add headers such
 * as an auto-answer marker) and drops a request it cannot parse without a word (the caller then
 * hears ringing until someone gives up). Either way the server never learns why. So every request
 * is checked first, whatever server sent it: a malformed one is answered `400 Bad Request`
 * (statelessly, from what can be read of it) and goes no further; an ACK, which takes no answer,
 * is dropped.
 */

/** Headers a request carries once (RFC 3261 §7.3.1: not comma lists), by lower-case and compact name. */
const SINGLE: Record<string, string> = {
  from: "From",
  f: "From",
  to: "To",
  t: "To",
  "call-id": "Call-ID",
  i: "Call-ID",
  cseq: "CSeq",
  "max-forwards": "Max-Forwards",
  "content-length": "Content-Length",
  l: "Content-Length",
};

/** Headers every request must have (RFC 3261 §8.1.1), as sip.js reads them. */
const REQUIRED = ["From", "To", "Call-ID", "CSeq", "Via"];

/** Header lines (folded lines joined) by lower-case name, compact forms of the single ones expanded. */
function headerLines(raw: string): Array<{ name: string; value: string }> {
  const end = raw.indexOf("\r\n\r\n");
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r\n[ \t]+/g, " ");
  return head
    .split("\r\n")
    .slice(1)
    .flatMap((line) => {
      const colon = line.indexOf(":");
      if (colon <= 0) return [];
      const name = line.slice(0, colon).trim().toLowerCase();
      return [
        { name: SINGLE[name]?.toLowerCase() ?? (name === "v" ? "via" : name), value: line.slice(colon + 1).trim() },
      ];
    });
}

/** The method of what looks like a request (a response starts "SIP/2.0", a keep-alive with CRLF). */
function requestMethod(raw: string): string | undefined {
  return /^([A-Za-z]+) /.exec(raw)?.[1]?.toUpperCase();
}

/** Why this request must not be acted upon, or undefined when it is well formed. */
export function malformation(raw: string): string | undefined {
  const counts = new Map<string, number>();
  for (const { name } of headerLines(raw)) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const name of new Set(Object.values(SINGLE))) {
    const n = counts.get(name.toLowerCase()) ?? 0;
    if (n > 1) return `${name} appears ${n} times`;
  }
  let error = "";
  const note = (m: string) => (error ||= m);
  const logger = { error: note, warn: note, log: () => {}, debug: () => {} } as unknown as Core.Logger;
  const message = Core.Parser.parseMessage(raw, logger);
  if (!message) return error || "cannot be parsed";
  const missing = REQUIRED.find((name) => !message.hasHeader(name));
  return missing ? `no ${missing} header` : undefined;
}

/**
 * A From or To value the sender can parse back: as sent when it parses, else without its display
 * name (from its `<`), so that a quote too many does not make the answer as unreadable as the request.
 */
function readable(value: string | undefined, rule: "From" | "To"): string | undefined {
  if (value === undefined || Grammar.parse(value, rule) !== -1) return value;
  const addr = value.slice(value.lastIndexOf("<"));
  return addr.startsWith("<") && Grammar.parse(addr, rule) !== -1 ? addr : undefined;
}

/**
 * A stateless `400 Bad Request` to a request, built from the first of each header it repeats (its
 * Vias all, in order, as RFC 3261 §8.2.6.2 asks: its sender matches the answer by the top one and
 * CSeq), with the reason in a Warning header.
 */
export function badRequest(raw: string, reason: string): string {
  const lines = headerLines(raw);
  const first = (name: string) => lines.find((h) => h.name === name)?.value;
  const out = ["SIP/2.0 400 Bad Request", ...lines.filter((h) => h.name === "via").map((h) => `Via: ${h.value}`)];
  const to = readable(first("to"), "To");
  const headers: Array<[string, string | undefined]> = [
    ["From", readable(first("from"), "From")],
    ["To", to && !/;\s*tag=/i.test(to) ? `${to};tag=${Math.random().toString(36).slice(2, 12)}` : to],
    ["Call-ID", first("call-id")],
    ["CSeq", first("cseq")],
  ];
  for (const [name, value] of headers) if (value !== undefined) out.push(`${name}: ${value}`);
  out.push(`Warning: 399 phone "${reason.replace(/["\\]/g, "'")}"`, "Content-Length: 0", "", "");
  return out.join("\r\n");
}

/**
 * Puts the check between a transport and the user agent (call after the user agent is made: it
 * sets `onMessage` in its constructor). `onRefused` hears of each request refused.
 */
export function refuseMalformedRequests(transport: Transport, onRefused: (reason: string) => void): void {
  const deliver = transport.onMessage;
  transport.onMessage = (message: string) => {
    const method = requestMethod(message);
    const reason = method ? malformation(message) : undefined;
    if (reason === undefined) return deliver?.(message);
    onRefused(reason);
    if (method !== "ACK") transport.send(badRequest(message, reason)).catch(() => {});
  };
}
