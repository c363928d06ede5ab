import type { Transport } from "sip.js";
import { redactSipMessage } from "./redact";

/** One SIP message as the phone sent or received it, credentials redacted. */
export interface TracedSipMessage {
  /** ms since epoch. */
  at: number;
  direction: "sent" | "received";
  /** The first line, e.g. "INVITE sip:2000@pbx SIP/2.0" or "SIP/2.0 200 OK". */
  summary: string;
  text: string;
  /** Why the phone refused this request as malformed and did not act on it. */
  refused?: string;
}

/** Recent messages kept: enough for a registration and a few calls, small enough for a bundle. */
export const SIP_TRACE_MESSAGES = 300;
/** A message longer than this (a huge SDP, a flood) is cut. */
export const SIP_TRACE_MESSAGE_CHARS = 8000;

/**
 * A ring buffer of the phone's recent SIP messages for a diagnostics bundle, taken at the
 * transport (what really went over the WebSocket) and redacted as they are stored, so no
 * credential is ever kept. Keep-alives (bare CRLFs) are left out.
 */
export class SipTrace {
  private readonly messages: TracedSipMessage[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Records what goes through this transport from now on (sip.js sets `onMessage` before; wrap after the user agent is made). */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: string) => {
      this.add("sent", message);
      return send(message);
    };
    const deliver = transport.onMessage;
    transport.onMessage = (message: string) => {
      this.add("received", message);
      deliver?.(message);
    };
  }

  add(direction: TracedSipMessage["direction"], message: string): void {
    if (/^\s*$/.test(message)) return;
    const text = redactSipMessage(
      message.length > SIP_TRACE_MESSAGE_CHARS ? `${message.slice(0, SIP_TRACE_MESSAGE_CHARS)}\r\n[… cut]` : message,
    );
    this.messages.push({ at: this.now(), direction, summary: text.split(/\r?\n/, 1)[0] ?? "", text });
    if (this.messages.length > SIP_TRACE_MESSAGES) this.messages.shift();
  }

  /** The message received last was refused as malformed, for this reason. */
  refused(reason: string): void {
    const last = this.messages.findLast((m) => m.direction === "received");
    if (last) last.refused = reason;
  }

  /** The kept messages, oldest first. */
  list(): TracedSipMessage[] {
    return this.messages.slice();
  }
}
