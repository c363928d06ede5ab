import { createHash, randomBytes } from "node:crypto";
import { WebSocket } from "ws";
import { until } from "./sip-phone";

/**
 * A SIP-over-WebSocket client that sends text as given: for what sip.js would never send
 * (malformed messages, floods, hand-made registrations) and for reading the platform's answers
 * byte for byte.
 */
export class RawSip {
  readonly received: string[] = [];
  private cursor = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.received.push(data.toString()));
  }

  /** `localAddress` makes the connection come from another source (say 127.0.0.2). */
  static async open(
    url: string,
    path = "/ws",
    protocol: string | null = "sip",
    localAddress?: string,
  ): Promise<RawSip> {
    const ws = new WebSocket(
      url.replace(/^http/, "ws") + path,
      protocol ? [protocol] : [],
      localAddress ? { localAddress } : {},
    );
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    return new RawSip(ws);
  }

  send(text: string): void {
    this.ws.send(text);
  }

  /** The next message (after those already taken) that matches; waits for it. */
  async next(matches: (m: string) => boolean = () => true, what = "a SIP message"): Promise<string> {
    let found: string | undefined;
    await until(`the raw client receives ${what}`, () => {
      for (let i = this.cursor; i < this.received.length; i++) {
        if (matches(this.received[i]!)) {
          found = this.received[i];
          this.cursor = i + 1;
          return true;
        }
      }
      return false;
    });
    return found!;
  }

  /** The next response to a request with this Call-ID and CSeq method. */
  response(callId: string, method: string): Promise<string> {
    return this.next(
      (m) => m.startsWith("SIP/2.0 ") && header(m, "call-id") === callId && (header(m, "cseq") ?? "").endsWith(method),
      `a response to ${method}`,
    );
  }

  close(): void {
    this.ws.terminate();
  }
}

export const newId = () => randomBytes(8).toString("hex");

export interface RawRequest {
  method: string;
  uri: string;
  callId?: string;
  cseq?: number;
  from: string;
  to: string;
  contact?: string;
  branch?: string;
  headers?: string[];
  body?: string;
}

/** A well-formed request as sip.js would write it over WebSocket. */
export function request(r: RawRequest): { text: string; callId: string; branch: string } {
  const callId = r.callId ?? newId();
  const branch = r.branch ?? `z9hG4bK${newId()}`;
  const body = r.body ?? "";
  const lines = [
    `${r.method} ${r.uri} SIP/2.0`,
    `Via: SIP/2.0/WSS ${newId()}.invalid;branch=${branch}`,
    "Max-Forwards: 70",
    `To: ${r.to}`,
    `From: ${r.from};tag=${newId()}`,
    `Call-ID: ${callId}`,
    `CSeq: ${r.cseq ?? 1} ${r.method}`,
    ...(r.contact ? [`Contact: ${r.contact}`] : []),
    ...(r.headers ?? []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ];
  return { text: lines.join("\r\n"), callId, branch };
}

/** The first value of a header of a raw message (case-insensitive name). */
export function header(message: string, name: string): string | undefined {
  return headers(message, name)[0];
}

export function headers(message: string, name: string): string[] {
  const head = message.split("\r\n\r\n")[0]!;
  const out: string[] = [];
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name.toLowerCase())
      out.push(line.slice(colon + 1).trim());
  }
  return out;
}

export function statusOf(message: string): number {
  return Number(/^SIP\/2\.0 (\d{3})/.exec(message)?.[1] ?? 0);
}

const md5 = (s: string) => createHash("md5").update(s).digest("hex");

/**
 * An Authorization header value answering a digest challenge (MD5, qop=auth), as the `nc`-th
 * use of its nonce (1 unless told).
 */
export function digestAnswer(
  challenge: string,
  o: { username: string; password: string; method: string; uri: string; nc?: number },
): string {
  const param = (n: string) => new RegExp(`${n}="?([^",]+)"?`, "i").exec(challenge)?.[1] ?? "";
  const realm = param("realm");
  const nonce = param("nonce");
  const cnonce = newId();
  const nc = (o.nc ?? 1).toString(16).padStart(8, "0");
  const ha1 = md5(`${o.username}:${realm}:${o.password}`);
  const ha2 = md5(`${o.method}:${o.uri}`);
  const response = md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return `Digest algorithm=MD5, username="${o.username}", realm="${realm}", nonce="${nonce}", uri="${o.uri}", response="${response}", qop=auth, cnonce="${cnonce}", nc=${nc}`;
}

/**
 * Registers `contactUser` for an extension by hand (401 challenge, then the answer) and returns
 * the final response.
 */
export async function rawRegister(
  sip: RawSip,
  o: {
    extension: string;
    password: string;
    domain: string;
    contactUser: string;
    expires: number;
    contactParams?: string;
  },
): Promise<string> {
  const callId = newId();
  const base = {
    method: "REGISTER",
    uri: `sip:${o.domain}`,
    callId,
    from: `<sip:${o.extension}@${o.domain}>`,
    to: `<sip:${o.extension}@${o.domain}>`,
    contact: `<sip:${o.contactUser}@${newId()}.invalid;transport=ws>${o.contactParams ?? ""}`,
    headers: [`Expires: ${o.expires}`],
  };
  sip.send(request({ ...base, cseq: 1 }).text);
  const challenge = await sip.response(callId, "REGISTER");
  if (statusOf(challenge) !== 401) return challenge;
  const authorization = digestAnswer(header(challenge, "www-authenticate") ?? "", {
    username: o.extension,
    password: o.password,
    method: "REGISTER",
    uri: `sip:${o.domain}`,
  });
  sip.send(request({ ...base, cseq: 2, headers: [...base.headers, `Authorization: ${authorization}`] }).text);
  return sip.response(callId, "REGISTER");
}

/** A final response to a request received by a raw client (say `486 Busy Here` to an INVITE). */
export function responseTo(message: string, status: number, reason: string): string {
  const copied = ["Via", "From", "Call-ID", "CSeq"].flatMap((name) =>
    headers(message, name).map((v) => `${name}: ${v}`),
  );
  const to = header(message, "to") ?? "";
  return [
    `SIP/2.0 ${status} ${reason}`,
    ...copied,
    `To: ${/;\s*tag=/i.test(to) ? to : `${to};tag=${newId()}`}`,
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
}

/** The next INVITE a raw phone gets, turned away (486) so that the call ends there. */
export async function nextInviteTurnedAway(phone: RawSip): Promise<string> {
  const invite = await phone.next((m) => m.startsWith("INVITE "), "an INVITE");
  phone.send(responseTo(invite, 486, "Busy Here"));
  return invite;
}
