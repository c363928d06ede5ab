import type { IncomingMessage } from "node:http";
import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";
import type { WebSocket } from "ws";
import { Core, EmitterImpl, TransportState, type Transport } from "sip.js";
import type { Log } from "../log";
import { TokenBucket } from "../token-bucket";
import { sourceKey } from "./auth-throttle";
import { DEFAULT_FAIR_SHARE, FairShare, SourceShare, type FairShareOptions, type Lane } from "./fair-share";
import { DEFAULT_SIP_FRAME_LIMITS, frameRefusal, type SipFrameLimits } from "./frame-limits";
import {
  endsItsBranch,
  isKeepAlive,
  isResponse,
  requestMethod,
  requestUriUser,
  statelessResponse,
  topViaBranch,
} from "./wire";

/** One SIP-over-WebSocket connection (RFC 7118) of a phone. */
export interface HubConnection {
  readonly id: number;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly openedAt: Date;
  /** Contact users (sip.js's random Contact user parts) whose requests go over this connection. */
  readonly contacts: ReadonlySet<string>;
  readonly open: boolean;
  /** Drops the connection at once, as a network failure would (tests, shutdown). */
  kill(): void;
}

export interface SipHubOptions {
  log: Log;
  /** Requests a connection may send in a burst, and per second after it; beyond: 503. */
  rateBurst: number;
  ratePerSecond: number;
  /** Requests all connections of one source (address; IPv6: its /64) may send in a burst, and per second. */
  sourceRateBurst: number;
  sourceRatePerSecond: number;
  /**
   * How long a Contact stays its extension's after its connection closed or it was unregistered,
   * ms (calls wait that long for a phone to reconnect with it; nobody else may take it meanwhile).
   */
  contactHoldMs: number;
  /** Size, header count and header length, checked before a message is parsed. */
  limits?: SipFrameLimits;
  /** How the event loop is shared between sources. */
  fairShare?: Partial<FairShareOptions>;
  /** Bytes written to a connection and not yet taken by the phone beyond which it is dropped. */
  maxUnreadBytes?: number;
}

export interface SipHubEvents {
  /** A connection closed; `contacts` are the contact users that were reachable through it. */
  closed: (conn: HubConnection, contacts: string[]) => void;
  /** A contact user became reachable through a (new) connection. */
  contact: (contactUser: string, conn: HubConnection) => void;
  /** A phone unregistered a contact user: requests no longer reach it through its connection. */
  released: (contactUser: string) => void;
}

/**
 * Where requests to a Contact user go: the connection of the extension (`owner`, "extn@domain")
 * that registered it (or called with it). Without a connection it is held for its owner.
 */
interface ContactRoute {
  owner: string;
  conn: Connection | undefined;
  releasedAt: number;
}

/** How the platform names an extension, "extn@domain": the owner of a Contact. */
export function extensionKey(extension: string, domain: string): string {
  return `${extension}@${domain}`;
}

/** Bytes a phone may leave unread before its connection is dropped. */
const DEFAULT_MAX_UNREAD_BYTES = 1024 * 1024;

/**
 * sip.js's UserAgent parses the text its transport hands it (`onTransportMessage`); the hub has
 * parsed it already, to bound and route it. While the hub hands a message over, sip.js's parser
 * answers that very text (the same string) with the hub's message, so the grammar runs once.
 */
type ParsedMessage = Core.IncomingRequestMessage | Core.IncomingResponseMessage;
let handingOver: { raw: string; message: ParsedMessage } | undefined;
const parseMessage = Core.Parser.parseMessage;
(Core.Parser as { parseMessage: typeof parseMessage }).parseMessage = (data, logger) =>
  handingOver !== undefined && handingOver.raw === data ? handingOver.message : parseMessage(data, logger);

/** How long the connection a request came from is remembered for its responses. */
const BRANCH_TTL_MS = 10 * 60_000;
/** Methods a flood limit never holds back: they end or acknowledge what is already going on. */
const UNLIMITED = new Set(["ACK", "CANCEL", "BYE"]);

/** What the connections from one address share: their requests' allowance and their share of the thread. */
interface Source {
  readonly key: string;
  readonly requests: TokenBucket;
  readonly share: SourceShare;
  connections: number;
}

class Connection implements HubConnection {
  readonly contacts = new Set<string>();
  readonly openedAt = new Date();
  /** Frames waiting for their turn on the thread. */
  lane!: Lane;
  /** Whether a refusal was logged as a warning already (the next ones are debug: a flood would fill the log). */
  warned = false;

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    readonly remoteAddress: string,
    readonly remotePort: number,
    readonly source: Source,
    readonly requests: TokenBucket,
    private readonly maxUnreadBytes: number,
  ) {}

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  kill(): void {
    this.ws.terminate();
  }

  /** Sends, unless the phone has left too much unread: then the connection is dropped. */
  send(raw: string): boolean {
    if (!this.open) return false;
    if (this.ws.bufferedAmount > this.maxUnreadBytes) {
      this.kill();
      return false;
    }
    this.ws.send(raw);
    return true;
  }

  /** Takes one request from the connection's allowance and its source's; false when either is used up. */
  take(): boolean {
    return this.requests.take() && this.source.requests.take();
  }
}

/**
 * Every phone connection of the platform behind one sip.js transport. The platform is one sip.js
 * UserAgent (registrar and back-to-back user agent), so its transport must reach many sockets:
 * a response goes back over the connection its request came in on (remembered by the top Via
 * branch), a request goes to the connection of the phone whose Contact user is in the
 * Request-URI (learnt when the phone registers, or from its INVITE or 2xx). A Contact user belongs
 * to the extension that bound it first: no other extension can bind it (and take its calls) while
 * it is bound, nor for `contactHoldMs` after. When a phone reconnects and registers again with
 * the same Contact, its dialogs follow the new connection.
 *
 * Frames are bounded before they are parsed: each waits for its source's share of the thread
 * (`FairShare`); keep-alives are answered here; a message over a size, header-count or
 * header-length limit gets a stateless 513 or 400, and a request beyond its connection's or its
 * source's allowance a stateless 503 with Retry-After, all without parsing it. The rest is
 * parsed once, here, and handed to sip.js parsed. A message sip.js cannot parse gets a stateless
 * 400. Nothing a connection sends can throw out of its handler.
 */
export class SipHub {
  private readonly connections = new Set<Connection>();
  private readonly branches = new Map<string, { conn: Connection; at: number }>();
  private readonly routes = new Map<string, ContactRoute>();
  private readonly emitter = new EventEmitter();
  private readonly sweeper: NodeJS.Timeout;
  private nextId = 1;
  private transport: HubTransport | undefined;
  private readonly parserLog: Core.Logger;
  private readonly sources = new Map<string, Source>();
  private readonly fairShare: FairShare;
  private readonly fairShareOptions: FairShareOptions;
  private readonly limits: SipFrameLimits;

  constructor(private readonly options: SipHubOptions) {
    this.limits = options.limits ?? DEFAULT_SIP_FRAME_LIMITS;
    this.fairShareOptions = { ...DEFAULT_FAIR_SHARE, now: () => performance.now(), ...options.fairShare };
    this.fairShare = new FairShare(this.fairShareOptions);
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
    // Refused frames are reported by the hub itself; the parser's own complaints stay quiet.
    const loggers = new Core.LoggerFactory();
    loggers.builtinEnabled = false;
    this.parserLog = loggers.getLogger("sip.parser");
  }

  on<E extends keyof SipHubEvents>(event: E, listener: SipHubEvents[E]): this {
    this.emitter.on(event, listener);
    return this;
  }

  /** The transport class to hand to the platform's UserAgent (`transportConstructor`). */
  transportConstructor(): new (logger: unknown, options: unknown) => Transport {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const hub = this;
    return class extends HubTransport {
      constructor() {
        super(hub);
        hub.transport = this;
      }
    };
  }

  /** Takes over an accepted WebSocket that chose the `sip` subprotocol. */
  attach(ws: WebSocket, req: IncomingMessage): HubConnection {
    const address = req.socket.remoteAddress ?? "";
    const source = this.sourceOf(address);
    source.connections++;
    const conn = new Connection(
      this.nextId++,
      ws,
      address,
      req.socket.remotePort ?? 0,
      source,
      new TokenBucket(this.options.rateBurst, this.options.ratePerSecond, Date.now),
      this.options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES,
    );
    conn.lane = this.fairShare.lane(source.share, {
      run: (raw) => {
        try {
          this.receive(conn, raw);
        } catch (error) {
          // A frame must never take the connection (or the process) down with it.
          this.options.log.error({ err: error }, `SIP connection ${conn.id}: frame handling failed`);
        }
      },
      pause: () => ws.pause(),
      resume: () => ws.resume(),
    });
    this.connections.add(conn);
    ws.on("message", (data) => conn.lane.push(data.toString()));
    ws.on("error", (error) => this.options.log.debug({ err: error }, `SIP connection ${conn.id} error`));
    ws.on("close", () => this.closed(conn));
    return conn;
  }

  list(): HubConnection[] {
    return [...this.connections];
  }

  /** How much the hub remembers: open connections, transactions awaiting a response, Contacts. */
  stats(): { connections: number; branches: number; contacts: number } {
    return { connections: this.connections.size, branches: this.branches.size, contacts: this.routes.size };
  }

  /** The connection a request (by its top Via branch) arrived on. */
  connectionOfBranch(branch: string): HubConnection | undefined {
    return this.branches.get(branch)?.conn;
  }

  connectionOfContact(contactUser: string): HubConnection | undefined {
    const conn = this.routes.get(contactUser)?.conn;
    return conn?.open ? conn : undefined;
  }

  /** The extension ("extn@domain") a Contact user belongs to now, if any. */
  ownerOfContact(contactUser: string): string | undefined {
    const route = this.routes.get(contactUser);
    return route && !this.lapsed(route, Date.now()) ? route.owner : undefined;
  }

  /**
   * From now on, requests to `contactUser` go over `conn` (a phone of `owner` registered or
   * re-registered). Nothing changes when the Contact belongs to another extension (callers check
   * `ownerOfContact` first, to say so).
   */
  bindContact(contactUser: string, owner: string, conn: HubConnection): void {
    const c = conn as Connection;
    const current = this.ownerOfContact(contactUser);
    if ((current !== undefined && current !== owner) || !this.connections.has(c)) return;
    const route = this.routes.get(contactUser);
    if (route?.conn === c) return;
    route?.conn?.contacts.delete(contactUser);
    this.routes.set(contactUser, { owner, conn: c, releasedAt: 0 });
    c.contacts.add(contactUser);
    this.emitter.emit("contact", contactUser, c);
  }

  /** Requests to `contactUser` no longer go over `conn`; the Contact stays its owner's a while. */
  unbindContact(contactUser: string, conn: HubConnection): void {
    const route = this.routes.get(contactUser);
    if (route?.conn !== conn) return;
    this.release(route, contactUser);
    this.emitter.emit("released", contactUser);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.fairShare.close();
    for (const conn of this.connections) conn.kill();
  }

  /** Sends a message from the platform's UserAgent (through its transport). */
  send(raw: string): Promise<void> {
    let conn: Connection | undefined;
    if (isResponse(raw)) {
      const branch = topViaBranch(raw);
      conn = branch ? this.branches.get(branch)?.conn : undefined;
      if (branch && endsItsBranch(raw)) this.branches.delete(branch);
    } else {
      const user = requestUriUser(raw);
      conn = user ? this.routes.get(user)?.conn : undefined;
    }
    if (!conn || !conn.send(raw)) {
      return Promise.reject(new Core.TransportError(`no open connection for: ${raw.slice(0, raw.indexOf("\r\n"))}`));
    }
    return Promise.resolve();
  }

  /** One frame, in its turn: bounded, then parsed (once), then routed and handed to sip.js. */
  private receive(conn: Connection, raw: string): void {
    if (isKeepAlive(raw)) {
      conn.send("\r\n");
      return;
    }
    const refusal = frameRefusal(raw, this.limits);
    if (refusal) {
      this.refuse(conn, raw, refusal.status, refusal.reason);
      return;
    }
    const method = requestMethod(raw);
    if (method && !UNLIMITED.has(method) && !conn.take()) {
      const response = statelessResponse(raw, 503, "Too Many Requests", ["Retry-After: 5"]);
      if (response) conn.send(response);
      return;
    }
    const message = Core.Parser.parseMessage(raw, this.parserLog);
    const mandatory = ["from", "to", "call_id", "cseq", "via"];
    if (!message || !mandatory.every((h) => message.hasHeader(h))) {
      this.refuse(conn, raw, 400, "Bad Request");
      return;
    }
    if (message instanceof Core.IncomingRequestMessage) {
      if (message.viaBranch) {
        // A branch names one transaction: another connection's request with it would have that
        // transaction's responses sent to it.
        const owner = this.branches.get(message.viaBranch)?.conn;
        if (owner && owner !== conn) {
          this.options.log.warn(
            `SIP connection ${conn.id}: ${message.method} with another connection's branch refused`,
          );
          const response = statelessResponse(raw, 400, "Branch In Use");
          if (response && message.method !== "ACK") conn.send(response);
          return;
        }
        this.branches.set(message.viaBranch, { conn, at: Date.now() });
      }
    } else if (message.statusCode && message.statusCode >= 200 && message.statusCode < 300) {
      // A phone's 2xx to the platform's INVITE carries the Contact its dialog's requests go to:
      // it is the To extension's, if that extension is reachable over this connection.
      const contact = message.parseHeader("contact") as { uri?: { user?: string } } | undefined;
      const user = contact?.uri?.user;
      const owner = message.to.uri.aor;
      if (
        user &&
        !this.connectionOfContact(user) &&
        [...conn.contacts].some((u) => this.routes.get(u)?.owner === owner)
      ) {
        this.bindContact(user, owner, conn);
      }
    }
    this.transport?.deliver(raw, message);
  }

  /** A stateless answer to a message that is not parsed or cannot be (none to an ACK or a response). */
  private refuse(conn: Connection, raw: string, status: number, reason: string): void {
    const method = requestMethod(raw);
    const log = conn.warned ? this.options.log.debug : this.options.log.warn;
    conn.warned = true;
    log.call(this.options.log, `SIP connection ${conn.id}: ${method ?? "message"} refused: ${status} ${reason}`);
    if (method === "ACK") return;
    const response = statelessResponse(raw, status, reason);
    if (response) conn.send(response);
  }

  /** The source of an address, shared by its connections (and kept while it has any). */
  private sourceOf(address: string): Source {
    const key = sourceKey(address);
    let source = this.sources.get(key);
    if (!source) {
      source = {
        key,
        requests: new TokenBucket(this.options.sourceRateBurst, this.options.sourceRatePerSecond, Date.now),
        share: new SourceShare(this.fairShareOptions),
        connections: 0,
      };
      this.sources.set(key, source);
    }
    return source;
  }

  private closed(conn: Connection): void {
    if (!this.connections.delete(conn)) return;
    conn.lane.close();
    conn.source.connections--;
    const contacts = [...conn.contacts];
    for (const user of contacts) {
      const route = this.routes.get(user);
      if (route?.conn === conn) this.release(route, user);
    }
    for (const [branch, entry] of this.branches) if (entry.conn === conn) this.branches.delete(branch);
    this.emitter.emit("closed", conn, contacts);
  }

  private release(route: ContactRoute, contactUser: string): void {
    route.conn?.contacts.delete(contactUser);
    route.conn = undefined;
    route.releasedAt = Date.now();
  }

  /** A route without a connection for longer than the hold is nobody's any more. */
  private lapsed(route: ContactRoute, now: number): boolean {
    return route.conn === undefined && now - route.releasedAt > this.options.contactHoldMs;
  }

  private sweep(): void {
    const now = Date.now();
    const limit = now - BRANCH_TTL_MS;
    for (const [branch, entry] of this.branches) if (entry.at < limit) this.branches.delete(branch);
    for (const [user, route] of this.routes) if (this.lapsed(route, now)) this.routes.delete(user);
    // A source without connections is forgotten once it has its whole allowance back (so that
    // reconnecting does not renew it).
    for (const [key, source] of this.sources)
      if (source.connections === 0 && source.requests.full && source.share.time.full) this.sources.delete(key);
  }
}

/** The sip.js side of the hub: the single transport of the platform's UserAgent. */
export class HubTransport implements Transport {
  onConnect: (() => void) | undefined;
  onDisconnect: ((error?: Error) => void) | undefined;
  onMessage: ((message: string) => void) | undefined;
  readonly stateChange = new EmitterImpl<TransportState>();
  private current = TransportState.Disconnected;

  constructor(private readonly hub: SipHub) {}

  get protocol(): string {
    return "WS";
  }

  get state(): TransportState {
    return this.current;
  }

  async connect(): Promise<void> {
    this.setState(TransportState.Connected);
    this.onConnect?.();
  }

  async disconnect(): Promise<void> {
    this.setState(TransportState.Disconnected);
  }

  async dispose(): Promise<void> {
    this.setState(TransportState.Disconnected);
  }

  isConnected(): boolean {
    return this.current === TransportState.Connected;
  }

  send(message: string): Promise<void> {
    return this.hub.send(message);
  }

  /** Hands sip.js a message the hub has parsed; sip.js's parser returns it instead of parsing again. */
  deliver(raw: string, message: ParsedMessage): void {
    handingOver = { raw, message };
    try {
      this.onMessage?.(raw);
    } finally {
      handingOver = undefined;
    }
  }

  private setState(state: TransportState): void {
    if (this.current === state) return;
    this.current = state;
    this.stateChange.emit(state);
  }
}
