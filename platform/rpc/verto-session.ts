import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { CcCaller } from "../cc/cc-caller";
import type { CcEnvelope } from "../cc/cc-functions";
import type { UserRow } from "../store/users";
import { mayAccessChannel, type Viewer } from "./event-channels";
import {
  METHOD_NOT_FOUND_MESSAGE,
  RpcCode,
  fail,
  parseFrame,
  reply,
  type Incoming,
  type RpcId,
  type RpcReply,
} from "./json-rpc";

export interface RpcOptions {
  /** Seconds without traffic after which the server sends verto.ping (mod_verto: 30). */
  pingSeconds: number;
  /** Largest frame accepted; larger ones are refused with an error, the socket stays open. */
  maxMessageBytes: number;
  /** Messages a socket may send per second on average, and in a burst; each message of a batch counts. */
  ratePerSecond: number;
  burst: number;
  /** Seconds a socket may stay open without logging in. */
  loginSeconds: number;
}

export const DEFAULT_RPC_OPTIONS: RpcOptions = {
  pingSeconds: 30,
  maxMessageBytes: 64 * 1024,
  ratePerSecond: 50,
  burst: 100,
  loginSeconds: 30,
};

/** What a session needs from the platform. */
export interface SessionHost {
  authenticate(token: string): Promise<{ user: UserRow; extensionId?: number } | undefined>;
  callerFor(user: UserRow, extensionId?: number): CcCaller;
  viewerFor(caller: CcCaller): Viewer;
  domain(): string;
  runCc(func: string, data: unknown, caller: CcCaller): Promise<CcEnvelope>;
  /**
   * Binds a client-chosen sessid to this signed-in session. A live socket of the same user that
   * holds it is replaced (a reconnect whose old socket has not noticed yet); one of another user
   * keeps it, and this login fails with "Session in use".
   */
  claim(sessid: string, session: VertoSession, userId: number): boolean;
  release(session: VertoSession): void;
  options: RpcOptions;
}

/**
 * One JSON-RPC connection on `/ws`, speaking mod_verto's dialect: `login` with the token in
 * `loginParams.xui_sessid`, then `verto.subscribe` / `verto.unsubscribe`, `jsapi` for the
 * call-center functions, and `verto.event` pushes for what the client subscribed to. A bad frame
 * gets an error answer; it never closes the socket nor touches another session.
 */
export class VertoSession {
  sessid = "";
  viewer?: Viewer;
  /** The token the session logged in with; the session lasts as long as it does. */
  token = "";
  readonly subscriptions = new Set<string>();
  private nextId = 1;
  private serno = 0;
  private tokens: number;
  private lastRefill = Date.now();
  private lastTraffic = Date.now();
  private pingTimer?: ReturnType<typeof setInterval>;
  private loginTimer?: ReturnType<typeof setTimeout>;
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly host: SessionHost,
  ) {
    this.tokens = host.options.burst;
    socket.on("message", (data, isBinary) => void this.onFrame(data as Buffer, isBinary));
    socket.on("close", () => this.close());
    socket.on("error", () => this.close());
    const every = host.options.pingSeconds * 1000;
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastTraffic >= every) this.request("verto.ping", { serno: this.serno });
    }, every);
    this.loginTimer = setTimeout(() => {
      if (!this.viewer) this.close();
    }, host.options.loginSeconds * 1000);
  }

  get caller(): CcCaller | undefined {
    return this.viewer?.caller;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.loginTimer) clearTimeout(this.loginTimer);
    this.host.release(this);
    if (this.socket.readyState === this.socket.OPEN) this.socket.close();
  }

  /** A server push on a channel the client subscribed to (mod_verto's write_event). */
  publish(subscribedChannel: string, eventChannel: string, data: unknown): void {
    this.request("verto.event", { eventChannel, data, eventSerno: this.serno++, subscribedChannel });
  }

  private request(method: string, params: Record<string, unknown>): void {
    this.send({ jsonrpc: "2.0", id: this.nextId++, method, params });
  }

  private send(message: unknown): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.lastTraffic = Date.now();
    this.socket.send(JSON.stringify(message));
  }

  /** Takes up to `n` messages from the allowance (a token bucket); returns how many it had. */
  private allow(n: number): number {
    const now = Date.now();
    const { ratePerSecond, burst } = this.host.options;
    this.tokens = Math.min(burst, this.tokens + ((now - this.lastRefill) / 1000) * ratePerSecond);
    this.lastRefill = now;
    const granted = Math.max(0, Math.min(n, Math.floor(this.tokens)));
    this.tokens -= granted;
    return granted;
  }

  private async onFrame(data: Buffer, isBinary: boolean): Promise<void> {
    this.lastTraffic = Date.now();
    if (this.allow(1) < 1) {
      this.send(fail(idOf(data), RpcCode.RATE_LIMITED, RATE_LIMITED_MESSAGE));
      return;
    }
    if (data.length > this.host.options.maxMessageBytes) {
      this.send(
        fail(
          null,
          RpcCode.INVALID_REQUEST,
          `Invalid Request: a frame may be at most ${this.host.options.maxMessageBytes} bytes`,
        ),
      );
      return;
    }
    if (isBinary) {
      this.send(fail(null, RpcCode.INVALID_REQUEST, "Invalid Request: frames are JSON text"));
      return;
    }
    const frame = parseFrame(data.toString("utf8"));
    if (frame.kind === "parse-error") {
      this.send(fail(null, RpcCode.PARSE_ERROR, frame.message));
      return;
    }
    if (frame.kind === "single") {
      const answer = await this.handle(frame.message);
      if (answer) this.send(answer);
      return;
    }
    // A batch is answered with an array, in order, leaving out what needs no answer. Each of its
    // messages counts toward the allowance (the frame took one); those beyond it are refused.
    const allowed = 1 + this.allow(frame.messages.length - 1);
    const answers: RpcReply[] = [];
    for (const [i, message] of frame.messages.entries()) {
      const answer = i < allowed ? await this.handle(message) : refusedForRate(message);
      if (answer) answers.push(answer);
    }
    if (answers.length) this.send(answers);
  }

  private async handle(message: Incoming): Promise<RpcReply | undefined> {
    if (message.kind === "invalid") return fail(message.id, RpcCode.INVALID_REQUEST, message.message);
    if (message.kind === "response") return undefined;
    const { id, method, params } = message;
    // mod_verto takes the session id from the first message (the client's, or a new one).
    if (!this.sessid)
      this.sessid = typeof params.sessid === "string" && params.sessid ? params.sessid.slice(0, 128) : randomUUID();
    try {
      if (method === "login") return await this.login(id, params);
      if (!this.viewer) return fail(id, RpcCode.AUTH_REQUIRED, "Authentication Required");
      switch (method) {
        case "verto.subscribe":
          return this.subscribe(id, params);
        case "verto.unsubscribe":
          return this.unsubscribe(id, params);
        case "verto.ping":
          return this.result(id, { message: "PONG", serno: params.serno });
        case "echo":
          return this.result(id, params);
        case "jsapi":
          return await this.jsapi(id, params);
        default:
          return fail(id, RpcCode.METHOD_NOT_FOUND, METHOD_NOT_FOUND_MESSAGE);
      }
    } catch (e) {
      console.error("JSON-RPC request failed", e);
      return fail(id, RpcCode.SESSION_ERROR, "Internal Error");
    }
  }

  /** mod_verto adds the session id to every result. */
  private result(id: RpcId, result: Record<string, unknown>): RpcReply {
    return reply(id, { ...result, sessid: this.sessid });
  }

  /**
   * mod_verto's check_auth with XSwitch's token: `login` is "<extn>@<domain>", `passwd` must not be
   * empty (mod_verto refuses "Missing passwd" before anything else), the token in
   * `loginParams.xui_sessid` must be a live user or extension token of that extension's owner.
   */
  private async login(id: RpcId, params: Record<string, unknown>): Promise<RpcReply> {
    const login = typeof params.login === "string" ? params.login.trim() : "";
    const passwd = typeof params.passwd === "string" ? params.passwd : "";
    const loginParams =
      params.loginParams && typeof params.loginParams === "object"
        ? (params.loginParams as Record<string, unknown>)
        : {};
    const token = typeof loginParams.xui_sessid === "string" ? loginParams.xui_sessid : "";
    if (!login) return fail(id, RpcCode.AUTH_REQUIRED, "Authentication Required");
    if (!passwd) return fail(id, RpcCode.AUTH_FAILED, "Missing passwd");
    const at = login.lastIndexOf("@");
    const name = at > 0 ? login.slice(0, at) : "";
    const domain = at > 0 ? login.slice(at + 1) : "";
    if (!name || !domain) return fail(id, RpcCode.AUTH_FAILED, "Missing or improper credentials");
    const found = token ? await this.host.authenticate(token) : undefined;
    if (!found || domain !== this.host.domain()) return fail(id, RpcCode.AUTH_FAILED, "Authentication Failure");
    const caller = this.host.callerFor(found.user, found.extensionId);
    // The login names the extension (or the user) the token belongs to, as the directory would check.
    if (!caller.extensions.includes(name) && !(found.extensionId === undefined && name === found.user.login)) {
      return fail(id, RpcCode.AUTH_FAILED, "Authentication Failure");
    }
    if (!this.host.claim(this.sessid, this, found.user.id)) return fail(id, RpcCode.AUTH_FAILED, "Session in use");
    const first = !this.viewer;
    this.token = token;
    this.viewer = this.host.viewerFor(caller);
    // A new identity keeps only the subscriptions it may have.
    for (const channel of this.subscriptions)
      if (!mayAccessChannel(channel, this.viewer)) this.subscriptions.delete(channel);
    if (first) queueMicrotask(() => this.request("verto.clientReady", { reattached_sessions: [] }));
    return this.result(id, { message: "logged in" });
  }

  private channelList(params: Record<string, unknown>): string[] | undefined {
    const v = params.eventChannel;
    if (typeof v === "string") return [v];
    if (Array.isArray(v) && v.every((c) => typeof c === "string")) return v as string[];
    return undefined;
  }

  private subscribe(id: RpcId, params: Record<string, unknown>): RpcReply {
    const channels = this.channelList(params);
    if (!channels)
      return fail(
        id,
        RpcCode.INVALID_PARAMS,
        "Invalid params: eventChannel must be a channel name or an array of them",
      );
    const subscribed: string[] = [];
    const unauthorized: string[] = [];
    const already: string[] = [];
    for (const channel of channels) {
      if (!mayAccessChannel(channel, this.viewer!)) unauthorized.push(channel);
      else if (this.subscriptions.has(channel)) already.push(channel);
      else {
        this.subscriptions.add(channel);
        subscribed.push(channel);
      }
    }
    const lists = {
      ...(subscribed.length || already.length ? { subscribedChannels: subscribed } : {}),
      ...(unauthorized.length ? { unauthorizedChannels: unauthorized } : {}),
      ...(already.length ? { alreadySubscribedChannels: already } : {}),
    };
    // As mod_verto: a subscription that got nothing it may have is an error carrying the lists.
    if (!subscribed.length && !already.length) return fail(id, RpcCode.INVALID_PARAMS, "Permission Denied", lists);
    return this.result(id, lists);
  }

  private unsubscribe(id: RpcId, params: Record<string, unknown>): RpcReply {
    const channels = this.channelList(params);
    if (!channels)
      return fail(
        id,
        RpcCode.INVALID_PARAMS,
        "Invalid params: eventChannel must be a channel name or an array of them",
      );
    const done = channels.filter((c) => this.subscriptions.delete(c));
    const missing = channels.filter((c) => !done.includes(c));
    const lists = {
      ...(done.length ? { unsubscribedChannels: done } : {}),
      ...(missing.length ? { notSubscribedChannels: missing } : {}),
    };
    if (!done.length) return fail(id, RpcCode.INVALID_PARAMS, "Not subscribed", lists);
    return this.result(id, lists);
  }

  /** XSwitch's call-center commands: `{command:'lua', data:{method:'ccc', func, data}}`. */
  private async jsapi(id: RpcId, params: Record<string, unknown>): Promise<RpcReply> {
    const data = params.data && typeof params.data === "object" ? (params.data as Record<string, unknown>) : undefined;
    if (params.command !== "lua" || !data || data.method !== "ccc") {
      return fail(
        id,
        RpcCode.METHOD_NOT_FOUND,
        `${METHOD_NOT_FOUND_MESSAGE}: jsapi takes {command:'lua', data:{method:'ccc', func, data}}`,
      );
    }
    if (typeof data.func !== "string" || !data.func)
      return fail(id, RpcCode.INVALID_PARAMS, "Invalid params: data.func must name a call-center function");
    const envelope = await this.host.runCc(data.func, data.data ?? {}, this.caller!);
    return this.result(id, { ...envelope });
  }
}

const RATE_LIMITED_MESSAGE = "Too many messages: slow down";

/** The answer to a message of a batch beyond the allowance (none to a client's answer). */
function refusedForRate(message: Incoming): RpcReply | undefined {
  return message.kind === "response" ? undefined : fail(message.id, RpcCode.RATE_LIMITED, RATE_LIMITED_MESSAGE);
}

/** The id of a single request in a frame, to address a refusal to it; null when there is none. */
function idOf(data: Buffer): RpcId {
  if (data.length > 4096) return null;
  try {
    const v = JSON.parse(data.toString("utf8")) as { id?: unknown };
    return typeof v?.id === "string" || typeof v?.id === "number" ? v.id : null;
  } catch {
    return null;
  }
}
