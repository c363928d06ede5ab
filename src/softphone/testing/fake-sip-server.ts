import { Core, EmitterImpl, TransportState, type NameAddrHeader, type Transport, type UserAgentOptions } from "sip.js";
import { Md5 } from "sip.js/lib/core/messages/md5.js";

type Message = Core.IncomingRequestMessage | Core.IncomingResponseMessage;

/** One SIP message on a user agent's socket, as the switch saw it. */
export interface WireRecord {
  seq: number;
  /** `from-ua`: the phone sent it; `to-ua`: the phone received it. */
  direction: "from-ua" | "to-ua";
  /** The registered user of that socket ("" before it registered). */
  user: string;
  raw: string;
  message: Message;
}

export type RequestRecord = WireRecord & { message: Core.IncomingRequestMessage };
export type ResponseRecord = WireRecord & { message: Core.IncomingResponseMessage };

export const isRequest = (r: WireRecord, method?: string): r is RequestRecord =>
  r.message instanceof Core.IncomingRequestMessage && (!method || r.message.method === method);

export const isResponse = (r: WireRecord, status?: number, method?: string): r is ResponseRecord =>
  r.message instanceof Core.IncomingResponseMessage &&
  (status === undefined || r.message.statusCode === status) &&
  (!method || (r.message.cseq !== undefined && r.message.method === method));

const logger = (() => {
  const f = new Core.LoggerFactory();
  f.builtinEnabled = false;
  return f.getLogger("fake-sip-server");
})();

export function parse(raw: string): Message {
  const m = Core.Parser.parseMessage(raw, logger);
  if (!m) throw new Error("unparsable SIP message:\n" + raw);
  return m;
}

/**
 * A dialog the server itself takes part in (a `ServerCall`, in server-call.ts): it is handed the
 * requests and responses of its Call-ID.
 */
export interface ServerDialog {
  onRequest(req: Core.IncomingRequestMessage): void;
  onResponse(res: Core.IncomingResponseMessage): void;
}

/**
 * A SIP-over-WebSocket server in memory, for unit tests: a registrar with digest authentication
 * and a stateless proxy between the user agents connected to it (routing by socket, as a real
 * WebSocket proxy must, since sip.js contacts are `*.invalid`). It records every message each
 * user agent sends and receives, lets tests drop or silence sockets, and can act as the platform
 * itself (`ServerCall`): calls it originates carry a single Via, relayed ones two.
 */
export class FakeSipServer {
  readonly domain = "pbx.test";
  readonly wire: WireRecord[] = [];
  /** Users whose REGISTER must carry a digest answer for this password. */
  readonly passwords = new Map<string, string>();
  /** Answer to a digest with the wrong password: 403 (most servers) or a fresh 401 challenge. */
  wrongPasswordStatus: 401 | 403 = 403;
  /** Lets a test answer REGISTERs itself (503 with Retry-After, 404...). */
  registerOverride:
    ((req: Core.IncomingRequestMessage) => { status: number; headers?: string[] } | undefined) | undefined;
  /** New WebSocket connections fail while set (server down). */
  refuseConnections = false;
  /**
   * A registrar that keeps digest state as Kamailio and FreeSWITCH do: a nonce must be one it
   * issued and still valid, and each use must count up (nc); otherwise 401, stale=true for an
   * expired nonce. Its bindings also outlive the socket (they last until they expire or are
   * removed), unlike the local platform's.
   */
  strictRegistrar = false;
  readonly transports: SwitchTransport[] = [];
  private readonly bindings = new Map<string, SwitchTransport>();
  private readonly contacts = new Map<string, SwitchTransport>();
  private readonly proxied = new Map<string, SwitchTransport>();
  readonly userOf = new Map<SwitchTransport, string>();
  readonly serverCalls = new Map<string, ServerDialog>();
  private readonly silenced = new Set<SwitchTransport>();
  /** Sockets whose incoming messages wait, in order, until released. */
  private readonly gated = new Map<SwitchTransport, string[]>();
  private readonly waiters = new Set<() => void>();
  private nonce = 0;
  /** Nonces issued and still valid, with the highest nonce count seen for each. */
  private readonly nonces = new Map<string, number>();
  private tag = 0;

  /** The transport class to give sip.js (`transportConstructor`). */
  readonly Transport: NonNullable<UserAgentOptions["transportConstructor"]>;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const sw = this;
    this.Transport = class extends SwitchTransport {
      constructor() {
        super(sw);
      }
    };
  }

  transportOf(user: string): SwitchTransport {
    const t = this.bindings.get(user) ?? [...this.userOf].find(([, u]) => u === user)?.[0];
    if (!t) throw new Error(`no socket for ${user}`);
    return t;
  }

  isRegistered(user: string): boolean {
    return this.bindings.has(user);
  }

  /** Every nonce issued so far runs out (strict registrar): the next use of one is answered stale. */
  expireNonces(): void {
    this.nonces.clear();
  }

  /** Index to pass to `records`/`waitFor` to look only at what comes after now. */
  mark(): number {
    return this.wire.length;
  }

  records<T extends WireRecord>(pred: (r: WireRecord) => r is T, since?: number): T[];
  records(pred: (r: WireRecord) => boolean, since?: number): WireRecord[];
  records(pred: (r: WireRecord) => boolean, since = 0): WireRecord[] {
    return this.wire.slice(since).filter(pred);
  }

  /** Resolves with the first record (from `since` on) that matches, waiting for it if need be. */
  waitFor<T extends WireRecord>(pred: (r: WireRecord) => r is T, since?: number): Promise<T>;
  waitFor(pred: (r: WireRecord) => boolean, since?: number): Promise<WireRecord>;
  waitFor(pred: (r: WireRecord) => boolean, since = 0): Promise<WireRecord> {
    return new Promise((resolve) => {
      const check = () => {
        const hit = this.wire.slice(since).find(pred);
        if (!hit) return false;
        this.waiters.delete(check as () => void);
        resolve(hit);
        return true;
      };
      if (!check()) this.waiters.add(check as () => void);
    });
  }

  /** The server closes a user's socket abruptly (code 1006). */
  drop(user: string): void {
    this.transportOf(user).serverDrop();
  }

  /** Everything the user's socket sends is lost from now on (a dead network path). */
  silence(user: string): void {
    this.silenced.add(this.transportOf(user));
  }

  /**
   * What reaches the user's socket from now on waits there, in order, until `release(user)`: two
   * phones that both send a request meanwhile each have theirs out before they see the other's.
   */
  gate(user: string): void {
    this.gated.set(this.transportOf(user), []);
  }

  release(user: string): void {
    const t = this.transportOf(user);
    const waiting = this.gated.get(t) ?? [];
    this.gated.delete(t);
    for (const raw of waiting) queueMicrotask(() => t.receive(raw));
  }

  /** Sends a raw message to a user's socket, as the server. */
  inject(user: string, raw: string): void {
    this.deliver(this.transportOf(user), raw);
  }

  newTag(): string {
    return `sw${++this.tag}`;
  }

  // ---- internals ----

  closed(t: SwitchTransport): void {
    if (!this.strictRegistrar) for (const [user, bound] of this.bindings) if (bound === t) this.bindings.delete(user);
    for (const [user, bound] of this.contacts) if (bound === t) this.contacts.delete(user);
    this.silenced.delete(t);
  }

  receive(from: SwitchTransport, raw: string): void {
    if (this.silenced.has(from)) return;
    const message = parse(raw);
    this.record("from-ua", from, raw, message);
    if (message instanceof Core.IncomingRequestMessage) this.onRequest(from, message, raw);
    else this.onResponse(message, raw);
  }

  /** Sends `raw` to a socket; a message that does not parse goes too (a broken server's), unrecorded. */
  deliver(to: SwitchTransport, raw: string): void {
    const message = Core.Parser.parseMessage(raw, logger);
    if (message) this.record("to-ua", to, raw, message);
    const waiting = this.gated.get(to);
    if (waiting) waiting.push(raw);
    else queueMicrotask(() => to.receive(raw));
  }

  respond(
    to: SwitchTransport,
    req: Core.IncomingRequestMessage,
    statusCode: number,
    extraHeaders: string[] = [],
    body?: Core.Body,
    toTag?: string,
  ): void {
    const { message } = Core.constructOutgoingResponse(req, {
      statusCode,
      extraHeaders,
      toTag: toTag ?? this.newTag(),
      ...(body ? { body } : {}),
    });
    this.deliver(to, message);
  }

  private record(direction: WireRecord["direction"], t: SwitchTransport, raw: string, message: Message): void {
    this.wire.push({ seq: this.wire.length, direction, user: this.userOf.get(t) ?? "", raw, message });
    for (const w of [...this.waiters]) w();
  }

  private onRequest(from: SwitchTransport, req: Core.IncomingRequestMessage, raw: string): void {
    if (req.method === "REGISTER") return this.register(from, req);
    const dialog = this.serverCalls.get(req.callId);
    if (dialog) return dialog.onRequest(req);
    const user = req.ruri?.user;
    if (!user) {
      // Addressed to the server itself: keep-alive OPTIONS.
      if (req.method !== "ACK") this.respond(from, req, 200);
      return;
    }
    const target = this.bindings.get(user) ?? this.contacts.get(user);
    if (!target) {
      if (req.method !== "ACK") this.respond(from, req, 404);
      return;
    }
    // CANCEL and the ACK of a failure share their INVITE's branch, so derive ours from it.
    const branch = `z9hG4bKsw${req.viaBranch.replace(/^z9hG4bK/, "")}`;
    this.proxied.set(branch, from);
    const end = raw.indexOf("\r\n");
    this.deliver(target, `${raw.slice(0, end)}\r\nVia: SIP/2.0/WSS switch.pbx.test;branch=${branch}${raw.slice(end)}`);
  }

  private onResponse(res: Core.IncomingResponseMessage, raw: string): void {
    const branch = res.viaBranch;
    const origin = this.proxied.get(branch);
    if (origin) {
      this.deliver(origin, raw.replace(/\r\n(Via|v):[^\r\n]*/i, ""));
      return;
    }
    const call = this.serverCalls.get(res.callId);
    call?.onResponse(res);
  }

  private register(from: SwitchTransport, req: Core.IncomingRequestMessage): void {
    const user = req.to.uri.user ?? "";
    const override = this.registerOverride?.(req);
    if (override) return this.respond(from, req, override.status, override.headers);
    const password = this.passwords.get(user);
    if (password !== undefined) {
      const authorization = req.getHeader("authorization");
      const challenge = (stale = false) => {
        const nonce = `n${++this.nonce}`;
        this.nonces.set(nonce, 0);
        return [
          `WWW-Authenticate: Digest realm="${this.domain}", nonce="${nonce}", qop="auth", algorithm=MD5${stale ? ", stale=true" : ""}`,
        ];
      };
      if (!authorization) return this.respond(from, req, 401, challenge());
      if (!digestMatches(authorization, "REGISTER", password)) {
        return this.respond(from, req, this.wrongPasswordStatus, this.wrongPasswordStatus === 401 ? challenge() : []);
      }
      if (this.strictRegistrar) {
        const { nonce = "", nc = "" } = digestParams(authorization);
        const last = this.nonces.get(nonce);
        const count = Number.parseInt(nc, 16);
        if (last === undefined || !(count > last)) return this.respond(from, req, 401, challenge(true));
        this.nonces.set(nonce, count);
      }
    }
    const contact = req.parseHeader("contact") as NameAddrHeader | undefined;
    if (!contact) return this.respond(from, req, 400);
    const expires = Number(contact.getParam("expires") ?? req.getHeader("expires") ?? 3600);
    const contactUser = contact.uri.user ?? "";
    if (expires === 0) {
      if (this.bindings.get(user) === from) this.bindings.delete(user);
    } else {
      this.bindings.set(user, from);
      this.contacts.set(contactUser, from);
      this.userOf.set(from, user);
    }
    this.respond(from, req, 200, [`Contact: <${contact.uri.toString()}>;expires=${expires}`]);
  }
}

/** A user agent's WebSocket, connected to the switch. */
export class SwitchTransport implements Transport {
  onConnect: (() => void) | undefined;
  onDisconnect: ((error?: Error) => void) | undefined;
  onMessage: ((message: string) => void) | undefined;
  state = TransportState.Disconnected;
  readonly stateChange = new EmitterImpl<TransportState>();
  connects = 0;

  constructor(private readonly sw: FakeSipServer) {
    sw.transports.push(this);
  }

  get protocol(): string {
    return "WSS";
  }

  async connect(): Promise<void> {
    if (this.state === TransportState.Connected) return;
    this.connects++;
    this.transition(TransportState.Connecting);
    await Promise.resolve();
    if (this.sw.refuseConnections) {
      this.transition(TransportState.Disconnected);
      throw new Error("WebSocket closed wss://pbx.test/sip (code: 1006)");
    }
    this.transition(TransportState.Connected);
    this.onConnect?.();
  }

  async disconnect(): Promise<void> {
    if (this.state === TransportState.Disconnected) return;
    const wasConnected = this.state === TransportState.Connected;
    this.transition(TransportState.Disconnected);
    this.sw.closed(this);
    if (wasConnected) this.onDisconnect?.();
  }

  async dispose(): Promise<void> {
    await this.disconnect();
  }

  isConnected(): boolean {
    return this.state === TransportState.Connected;
  }

  async send(message: string): Promise<void> {
    if (this.state !== TransportState.Connected) throw new Error("Not connected.");
    queueMicrotask(() => this.sw.receive(this, message));
  }

  receive(message: string): void {
    if (this.state === TransportState.Connected) this.onMessage?.(message);
  }

  serverDrop(): void {
    if (this.state !== TransportState.Connected) return;
    this.transition(TransportState.Disconnected);
    this.sw.closed(this);
    this.onDisconnect?.(new Error("WebSocket closed wss://pbx.test/sip (code: 1006)"));
  }

  private transition(s: TransportState): void {
    this.state = s;
    this.stateChange.emit(s);
  }
}

function digestParams(header: string): Record<string, string> {
  const p: Record<string, string> = {};
  for (const m of header.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) p[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? "";
  return p;
}

function digestMatches(header: string, method: string, password: string): boolean {
  const p = digestParams(header);
  const ha1 = Md5.hashStr(`${p.username}:${p.realm}:${password}`);
  const ha2 = Md5.hashStr(`${method}:${p.uri}`);
  const expected = p.qop
    ? Md5.hashStr(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`)
    : Md5.hashStr(`${ha1}:${p.nonce}:${ha2}`);
  return expected === p.response;
}
