import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { CcCaller } from "../cc/cc-caller";
import type { CcEnvelope } from "../cc/cc-functions";
import type { UserRow } from "../store/users";
import { TokenBucket } from "../token-bucket";
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
  /** Most messages in one frame; a larger batch is refused whole, with one answer. */
  maxBatch: number;
  /** Messages a socket may send per second on average, and in a burst; each message of a batch counts. */
  ratePerSecond: number;
  burst: number;
  /** Bytes of frames a socket may send per second on average, and in a burst. */
  bytesPerSecond: number;
  burstBytes: number;
  /** Largest frame accepted before login (a login is a few hundred bytes); larger ones are refused unread. */
  maxLoginFrameBytes: number;
  /** Seconds a socket may stay open without logging in. */
  loginSeconds: number;
  /** Error answers a socket gets before it has logged in; with the last of them it is closed. */
  refusalsBeforeLogin: number;
  /**
   * Bytes written to a socket and not yet taken by its client (WebSocket bufferedAmount) beyond
   * which the socket is dropped at once: a client that does not read must not hold the
   * platform's memory.
   */
  maxUnreadBytes: number;
}

export const DEFAULT_RPC_OPTIONS: RpcOptions = {
  pingSeconds: 30,
  maxMessageBytes: 64 * 1024,
  maxBatch: 20,
  ratePerSecond: 50,
  burst: 100,
  bytesPerSecond: 64 * 1024,
  burstBytes: 256 * 1024,
  maxLoginFrameBytes: 8 * 1024,
  loginSeconds: 30,
  refusalsBeforeLogin: 3,
  maxUnreadBytes: 1024 * 1024,
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
 * from a signed-in client gets an error answer; it never closes the socket nor touches another
 * session.
 *
 * What a client can make the platform hold or do is bounded before any work is done: a frame's
 * size, a batch's length (refused whole beyond `maxBatch`), the messages and bytes taken per
 * second (a socket beyond them is refused and not read until its allowance is back, so that it
 * waits in TCP, not in the platform); a socket that has not logged in gets its login answer and
 * at most `refusalsBeforeLogin` errors (then it is dropped; it is never pinged, and its frames
 * over `maxLoginFrameBytes` are not parsed); a socket whose client leaves more than
 * `maxUnreadBytes` unread is dropped.
 */
export class VertoSession {
  sessid = "";
  viewer?: Viewer;
  /** The token the session logged in with; the session lasts as long as it does. */
  token = "";
  readonly subscriptions = new Set<string>();
  private nextId = 1;
  private serno = 0;
  private readonly messages: TokenBucket;
  private readonly bytes: TokenBucket;
  /** Whether the socket is not being read until the allowance is back. */
  private heldBack = false;
  private lastTraffic = Date.now();
  private pingTimer?: ReturnType<typeof setInterval>;
  private loginTimer?: ReturnType<typeof setTimeout>;
  /** Error answers sent before login. */
  private refusals = 0;
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly host: SessionHost,
  ) {
    const { burst, ratePerSecond, burstBytes, bytesPerSecond } = host.options;
    this.messages = new TokenBucket(burst, ratePerSecond, Date.now);
    this.bytes = new TokenBucket(burstBytes, bytesPerSecond, Date.now);
    socket.on("message", (data, isBinary) => void this.onFrame(data as Buffer, isBinary));
    socket.on("close", () => this.close());
    socket.on("error", () => this.close());
    const every = host.options.pingSeconds * 1000;
    this.pingTimer = setInterval(() => {
      if (this.viewer && Date.now() - this.lastTraffic >= every) this.request("verto.ping", { serno: this.serno });
    }, every);
    this.loginTimer = setTimeout(() => {
      if (!this.viewer) this.close();
    }, host.options.loginSeconds * 1000);
  }

  get caller(): CcCaller | undefined {
    return this.viewer?.caller;
  }

  /** Ends the session; `drop`: at once, discarding what the client has not read yet. */
  close(drop = false): void {
    if (this.closed) return;
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.loginTimer) clearTimeout(this.loginTimer);
    this.host.release(this);
    if (drop) this.socket.terminate();
    else if (this.socket.readyState === this.socket.OPEN) this.socket.close();
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
    if (this.socket.bufferedAmount > this.host.options.maxUnreadBytes) {
      this.close(true);
      return;
    }
    this.lastTraffic = Date.now();
    this.socket.send(JSON.stringify(message));
  }

  /** Counts an error answer made before login. */
  private counted(answer: RpcReply | undefined): RpcReply | undefined {
    if (answer && "error" in answer && !this.viewer) this.refusals++;
    return answer;
  }

  /** Whether a socket that has not logged in has had all the errors it gets. */
  private get spent(): boolean {
    return !this.viewer && this.refusals >= this.host.options.refusalsBeforeLogin;
  }

  /** Takes a frame of `size` bytes (one message) from the allowance, or nothing (false). */
  private admit(size: number): boolean {
    if (this.messages.level() < 1 || !this.bytes.take(size)) return false;
    this.messages.take();
    return true;
  }

  /**
   * The client sends faster than it may: its socket is not read until the allowance takes a frame
   * like the last one again (TCP then holds the client back, and nothing piles up here).
   */
  private holdBack(size: number): void {
    if (this.heldBack || this.closed) return;
    this.heldBack = true;
    this.socket.pause();
    const wait = Math.max(this.messages.msUntil(1), this.bytes.msUntil(size));
    setTimeout(() => {
      this.heldBack = false;
      if (!this.closed) this.socket.resume();
    }, wait);
  }

  private async onFrame(data: Buffer, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    this.lastTraffic = Date.now();
    if (!this.admit(data.length)) {
      this.refuse(fail(idOf(data), RpcCode.RATE_LIMITED, RATE_LIMITED_MESSAGE));
      this.holdBack(data.length);
      return;
    }
    const { maxBatch } = this.host.options;
    const maxBytes = this.viewer ? this.host.options.maxMessageBytes : this.host.options.maxLoginFrameBytes;
    if (data.length > maxBytes) {
      return this.refuse(
        fail(
          null,
          RpcCode.INVALID_REQUEST,
          `Invalid Request: a frame may be at most ${maxBytes} bytes${this.viewer ? "" : " before login"}`,
        ),
      );
    }
    if (isBinary) return this.refuse(fail(null, RpcCode.INVALID_REQUEST, "Invalid Request: frames are JSON text"));
    const frame = parseFrame(data.toString("utf8"), maxBatch);
    if (frame.kind === "parse-error") return this.refuse(fail(null, RpcCode.PARSE_ERROR, frame.message));
    if (frame.kind === "single") {
      const answer = this.counted(await this.handle(frame.message));
      if (answer) this.send(answer);
    } else {
      // A batch is answered with an array, in order, leaving out what needs no answer. Each of its
      // messages counts toward the allowance (the frame took one); those beyond it are refused. A
      // socket that has not logged in runs no more of it once it has had its errors.
      const allowed = 1 + this.messages.takeUpTo(frame.messages.length - 1);
      if (allowed < frame.messages.length) this.holdBack(data.length);
      const answers: RpcReply[] = [];
      for (const [i, message] of frame.messages.entries()) {
        if (this.spent) break;
        const answer = this.counted(i < allowed ? await this.handle(message) : refusedForRate(message));
        if (answer) answers.push(answer);
      }
      if (answers.length) this.send(answers);
    }
    if (this.spent) this.close(true);
  }

  /** Answers a frame that is not run with an error. */
  private refuse(answer: RpcReply): void {
    this.send(this.counted(answer));
    if (this.spent) this.close(true);
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
