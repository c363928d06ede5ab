import type { IncomingMessage } from "node:http";
import { EventEmitter } from "node:events";
import type { WebSocket } from "ws";
import { Core, EmitterImpl, TransportState, type Transport } from "sip.js";
import type { Log } from "../log";
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
export interface SipConnection {
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
  /**
   * How long a Contact stays its extension's after its connection closed or it was unregistered,
   * ms (calls wait that long for a phone to reconnect with it; nobody else may take it meanwhile).
   */
  contactHoldMs: number;
}

export interface SipHubEvents {
  /** A connection closed; `contacts` are the contact users that were reachable through it. */
  closed: (conn: SipConnection, contacts: string[]) => void;
  /** A contact user became reachable through a (new) connection. */
  contact: (contactUser: string, conn: SipConnection) => void;
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

/** How long the connection a request came from is remembered for its responses. */
const BRANCH_TTL_MS = 10 * 60_000;
/** Methods a flood limit never holds back: they end or acknowledge what is already going on. */
const UNLIMITED = new Set(["ACK", "CANCEL", "BYE"]);

class Connection implements SipConnection {
  readonly contacts = new Set<string>();
  readonly openedAt = new Date();
  private tokens: number;
  private refilledAt = Date.now();

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    readonly remoteAddress: string,
    readonly remotePort: number,
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  kill(): void {
    this.ws.terminate();
  }

  send(raw: string): boolean {
    if (!this.open) return false;
    this.ws.send(raw);
    return true;
  }

  /** Token bucket: false when the connection has used up its allowance. */
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
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
 * Frames are checked before sip.js sees them: keep-alives are answered here, a message sip.js
 * cannot parse gets a stateless 400, and a connection that floods the platform with requests
 * gets 503 with Retry-After. Nothing a connection sends can throw out of its handler.
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

  constructor(private readonly options: SipHubOptions) {
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
  attach(ws: WebSocket, req: IncomingMessage): SipConnection {
    const conn = new Connection(
      this.nextId++,
      ws,
      req.socket.remoteAddress ?? "",
      req.socket.remotePort ?? 0,
      this.options.rateBurst,
      this.options.ratePerSecond,
    );
    this.connections.add(conn);
    ws.on("message", (data, isBinary) => {
      try {
        this.receive(conn, isBinary ? Buffer.from(data as Buffer).toString("utf8") : data.toString());
      } catch (error) {
        // A frame must never take the connection (or the process) down with it.
        this.options.log.error({ err: error }, `SIP connection ${conn.id}: frame handling failed`);
      }
    });
    ws.on("error", (error) => this.options.log.debug({ err: error }, `SIP connection ${conn.id} error`));
    ws.on("close", () => this.closed(conn));
    return conn;
  }

  list(): SipConnection[] {
    return [...this.connections];
  }

  /** How much the hub remembers: open connections, transactions awaiting a response, Contacts. */
  stats(): { connections: number; branches: number; contacts: number } {
    return { connections: this.connections.size, branches: this.branches.size, contacts: this.routes.size };
  }

  /** The connection a request (by its top Via branch) arrived on. */
  connectionOfBranch(branch: string): SipConnection | undefined {
    return this.branches.get(branch)?.conn;
  }

  connectionOfContact(contactUser: string): SipConnection | undefined {
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
  bindContact(contactUser: string, owner: string, conn: SipConnection): void {
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
  unbindContact(contactUser: string, conn: SipConnection): void {
    const route = this.routes.get(contactUser);
    if (route?.conn !== conn) return;
    this.release(route, contactUser);
    this.emitter.emit("released", contactUser);
  }

  close(): void {
    clearInterval(this.sweeper);
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

  private receive(conn: Connection, raw: string): void {
    if (isKeepAlive(raw)) {
      conn.send("\r\n");
      return;
    }
    const message = Core.Parser.parseMessage(raw, this.parserLog);
    const mandatory = ["from", "to", "call_id", "cseq", "via"];
    if (!message || !mandatory.every((h) => message.hasHeader(h))) {
      this.refuseMalformed(conn, raw);
      return;
    }
    if (message instanceof Core.IncomingRequestMessage) {
      if (!UNLIMITED.has(message.method) && !conn.take()) {
        const { message: response } = Core.constructOutgoingResponse(message, {
          statusCode: 503,
          reasonPhrase: "Too Many Requests",
          extraHeaders: ["Retry-After: 5"],
        });
        conn.send(response);
        return;
      }
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
    this.transport?.deliver(raw);
  }

  private refuseMalformed(conn: Connection, raw: string): void {
    const method = requestMethod(raw);
    this.options.log.warn(`SIP connection ${conn.id}: malformed ${method ?? "message"} refused`);
    if (method === "ACK") return;
    const response = statelessResponse(raw, 400, "Bad Request");
    if (response) conn.send(response);
  }

  private closed(conn: Connection): void {
    if (!this.connections.delete(conn)) return;
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

  deliver(raw: string): void {
    this.onMessage?.(raw);
  }

  private setState(state: TransportState): void {
    if (this.current === state) return;
    this.current = state;
    this.stateChange.emit(state);
  }
}
