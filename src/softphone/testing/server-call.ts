import type { Core, NameAddrHeader } from "sip.js";
import type { FakeSipServer, SwitchTransport } from "./fake-sip-server";

export interface ServerCallOptions {
  /** Called user (their registered socket). */
  to: string;
  fromUser?: string;
  fromName?: string;
  /** Extra header lines on the INVITE. */
  headers?: string[];
  /** Appended to the Request-URI, e.g. ";intercom=true". */
  requestUriParams?: string;
  /**
   * 1: originated by the platform; 2: relayed from a browser peer through a proxy;
   * "behind-proxy": originated by the platform's media server (UDP) behind a WebSocket proxy.
   */
  vias?: 1 | 2 | "behind-proxy";
  sdp?: string;
}

export const platformSdp = (direction = "sendrecv", address = "10.0.0.1") =>
  [
    "v=0",
    "o=FreeSWITCH 1 1 IN IP4 10.0.0.1",
    "s=FreeSWITCH",
    `c=IN IP4 ${address}`,
    "t=0 0",
    "m=audio 20000 RTP/AVP 0 101",
    "a=rtpmap:0 PCMU/8000",
    "a=rtpmap:101 telephone-event/8000",
    `a=${direction}`,
  ].join("\r\n") + "\r\n";

/**
 * The platform's side of a call it originates or takes part in: builds raw requests as the server
 * would send them, records the phone's answers and requests, and answers in-dialog requests.
 */
export class ServerCall {
  readonly callId: string;
  readonly fromTag: string;
  private cseq = 1;
  private branch = 0;
  toTag: string | undefined;
  remoteTarget: string | undefined;
  readonly responses: Core.IncomingResponseMessage[] = [];
  readonly requests: Core.IncomingRequestMessage[] = [];
  /** Status for re-INVITEs from the phone (200 answers with the mirrored direction). */
  reinviteStatus = 200;
  /** Statuses for the next re-INVITEs, used before `reinviteStatus`. */
  readonly nextReinviteStatuses: number[] = [];
  /** Lets a test answer a REFER from the phone (default 202). */
  onRefer: ((req: Core.IncomingRequestMessage) => void) | undefined;
  private lastInvite: string | undefined;
  private readonly transport: SwitchTransport;
  private readonly vias: 1 | 2 | "behind-proxy";

  constructor(
    private readonly sw: FakeSipServer,
    private readonly options: ServerCallOptions,
  ) {
    this.callId = `platform-${Math.random().toString(36).slice(2)}`;
    this.fromTag = sw.newTag();
    this.transport = sw.transportOf(options.to);
    this.vias = options.vias ?? 1;
    sw.serverCalls.set(this.callId, this);
  }

  /** Sends the INVITE. */
  invite(): this {
    const o = this.options;
    const sdp = o.sdp ?? platformSdp();
    const from = `${o.fromName ? `"${o.fromName}" ` : ""}<sip:${o.fromUser ?? "5550100"}@${this.sw.domain}>;tag=${this.fromTag}`;
    this.lastInvite = this.build(
      `INVITE sip:${o.to}@${this.sw.domain}${o.requestUriParams ?? ""} SIP/2.0`,
      "INVITE",
      this.cseq,
      from,
      `<sip:${o.to}@${this.sw.domain}>`,
      ["Content-Type: application/sdp", ...(o.headers ?? [])],
      sdp,
    );
    this.sw.deliver(this.transport, this.lastInvite);
    return this;
  }

  cancel(reason?: string): void {
    if (!this.lastInvite) throw new Error("no INVITE");
    const via = this.lastInvite.match(/^Via:[^\r\n]*/gm) ?? [];
    const from = /^From: ([^\r\n]*)/m.exec(this.lastInvite)?.[1];
    const to = /^To: ([^\r\n]*)/m.exec(this.lastInvite)?.[1];
    const ruri = this.lastInvite.slice(7, this.lastInvite.indexOf(" SIP/2.0"));
    const lines = [
      `CANCEL ${ruri} SIP/2.0`,
      ...via,
      "Max-Forwards: 70",
      `From: ${from}`,
      `To: ${to}`,
      `Call-ID: ${this.callId}`,
      "CSeq: 1 CANCEL",
      ...(reason ? [`Reason: ${reason}`] : []),
      "Content-Length: 0",
      "",
      "",
    ];
    this.sw.deliver(this.transport, lines.join("\r\n"));
  }

  /** ACKs the 2xx the phone sent and remembers its dialog (done by itself on the 200). */
  private ack(): void {
    const ok = this.responses.find((r) => r.statusCode === 200 && r.method === "INVITE");
    if (!ok) throw new Error("no 200 to ACK");
    this.toTag = ok.toTag;
    this.remoteTarget = (ok.parseHeader("contact") as NameAddrHeader).uri.toString();
    this.sendInDialog("ACK", [], undefined, 1);
  }

  /** Sends an in-dialog request (re-INVITE, BYE, REFER, NOTIFY, INFO). */
  sendInDialog(method: string, headers: string[] = [], body?: { type: string; content: string }, cseq?: number): void {
    if (!this.remoteTarget || !this.toTag) throw new Error("no dialog yet");
    const n = cseq ?? ++this.cseq;
    const from = `<sip:${this.options.fromUser ?? "5550100"}@${this.sw.domain}>;tag=${this.fromTag}`;
    const to = `<sip:${this.options.to}@${this.sw.domain}>;tag=${this.toTag}`;
    const raw = this.build(
      `${method} ${this.remoteTarget} SIP/2.0`,
      method,
      n,
      from,
      to,
      body ? [`Content-Type: ${body.type}`, ...headers] : headers,
      body?.content,
    );
    this.sw.deliver(this.transport, raw);
  }

  reinvite(sdp: string): void {
    this.sendInDialog("INVITE", [], { type: "application/sdp", content: sdp });
  }

  bye(reason?: string): void {
    this.sendInDialog("BYE", reason ? [`Reason: ${reason}`] : []);
  }

  onResponse(res: Core.IncomingResponseMessage): void {
    this.responses.push(res);
    const status = res.statusCode ?? 0;
    if (res.method !== "INVITE" || status < 200) return;
    if (status >= 300) return this.ackFailure(res);
    if (res.cseq === 1) this.ack();
    else this.sendInDialog("ACK", [], undefined, res.cseq);
  }

  /** The ACK of a failure response is part of the INVITE transaction: same branch. */
  private ackFailure(res: Core.IncomingResponseMessage): void {
    if (!this.lastInvite || res.cseq !== 1) return;
    const via = /^Via:[^\r\n]*/m.exec(this.lastInvite)?.[0] ?? "";
    const from = /^From: ([^\r\n]*)/m.exec(this.lastInvite)?.[1];
    const ruri = this.lastInvite.slice(7, this.lastInvite.indexOf(" SIP/2.0"));
    const lines = [
      `ACK ${ruri} SIP/2.0`,
      via,
      "Max-Forwards: 70",
      `From: ${from}`,
      `To: <sip:${this.options.to}@${this.sw.domain}>;tag=${res.toTag}`,
      `Call-ID: ${this.callId}`,
      "CSeq: 1 ACK",
      "Content-Length: 0",
      "",
      "",
    ];
    this.sw.deliver(this.transport, lines.join("\r\n"));
  }

  onRequest(req: Core.IncomingRequestMessage): void {
    this.requests.push(req);
    const to = this.transport;
    if (req.method === "ACK") return;
    if (req.method === "INVITE") {
      const status = this.nextReinviteStatuses.shift() ?? this.reinviteStatus;
      if (status !== 200) return this.sw.respond(to, req, status, [], undefined, this.fromTag);
      const offered = /a=(sendrecv|sendonly|recvonly|inactive)/.exec(req.body)?.[1] ?? "sendrecv";
      const answer = offered === "sendonly" ? "recvonly" : offered === "recvonly" ? "sendonly" : offered;
      const body = { contentDisposition: "session", contentType: "application/sdp", content: platformSdp(answer) };
      return this.sw.respond(to, req, 200, [`Contact: <sip:platform@10.0.0.1:5066;transport=ws>`], body, this.fromTag);
    }
    if (req.method === "REFER" && this.onRefer) return this.onRefer(req);
    this.sw.respond(to, req, req.method === "REFER" ? 202 : 200, [], undefined, this.fromTag);
  }

  /** Answers a request the phone sent in this dialog. */
  respond(req: Core.IncomingRequestMessage, status: number): void {
    this.sw.respond(this.transport, req, status, [], undefined, this.fromTag);
  }

  /** A NOTIFY about the progress of a REFER the phone sent (sipfrag body). */
  notifyRefer(sipfrag: string, terminated: boolean): void {
    this.sendInDialog(
      "NOTIFY",
      ["Event: refer", `Subscription-State: ${terminated ? "terminated;reason=noresource" : "active;expires=60"}`],
      {
        type: "message/sipfrag;version=2.0",
        content: sipfrag,
      },
    );
  }

  private build(
    requestLine: string,
    method: string,
    cseq: number,
    from: string,
    to: string,
    headers: string[],
    body?: string,
  ): string {
    const vias = [`Via: SIP/2.0/WSS 10.0.0.1:5066;branch=z9hG4bKinj${++this.branch}${this.callId.slice(-6)}`];
    if (this.vias === 2) vias.push(`Via: SIP/2.0/WSS peer-${this.branch}.invalid;branch=z9hG4bKpeer${this.branch}`);
    if (this.vias === "behind-proxy")
      vias.push(`Via: SIP/2.0/UDP 10.0.0.5:5060;rport=5060;branch=z9hG4bKfs${this.branch}`);
    const content = body ?? "";
    const lines = [
      requestLine,
      ...vias,
      "Max-Forwards: 70",
      `From: ${from}`,
      `To: ${to}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${cseq} ${method}`,
      "Contact: <sip:platform@10.0.0.1:5066;transport=ws>",
      ...headers,
      `Content-Length: ${new TextEncoder().encode(content).length}`,
      "",
      content,
    ];
    return lines.join("\r\n");
  }
}
