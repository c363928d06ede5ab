/**
 * The platform's JSON-RPC event channel (`/ws`, mod_verto's dialect): `login` with the user or
 * extension token in `loginParams.xui_sessid`, `verto.subscribe` to event channels, and
 * `verto.event` pushes. The connection is kept up: it reconnects with backoff and jitter after a
 * drop, logs in again with a fresh token and the same `sessid` (as verto.js does), subscribes
 * again, and takes a connection that stays silent too long for a dead one.
 */

/** mod_verto's name for mod_callcenter's events (`CUSTOM callcenter::info`). */
export const CALL_CENTER_CHANNEL = "FSevent.custom::callcenter::info";

export type EventChannelStatus = "connecting" | "open" | "reconnecting" | "closed";

/** The part of the browser's WebSocket the channel uses (Node tests pass the `ws` package's). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string) => SocketLike;

export interface EventChannelOptions {
  url: string;
  /** `<extension>@<domain>` and the token to present, read at every (re)connection. */
  credentials: () => { login: string; token: string };
  channels: readonly string[];
  onEvent: (channel: string, data: unknown) => void;
  onStatus?: (status: EventChannelStatus, detail: { error?: string; nextAttemptAt?: number }) => void;
  /** The platform refused the token (-32000/-32001): the app may renew it before the next try. */
  onAuthFailure?: (message: string) => void;
  socket?: SocketFactory;
  /** First wait after a drop, and the longest; doubled each failed try, ±20 % jitter. */
  backoffMs?: { first: number; max: number };
  /** With no frame at all for this long the connection is taken for dead (the platform pings after 30 s of silence). */
  silenceMs?: number;
  requestTimeoutMs?: number;
  random?: () => number;
  now?: () => number;
}

/** A JSON-RPC error answered to a request. */
export class EventChannelError extends Error {
  override readonly name = "EventChannelError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

const OPEN = 1;
const AUTH_ERRORS = new Set([-32000, -32001]);

export class EventChannel {
  private socket: SocketLike | undefined;
  private readonly sessid: string;
  private channels: string[];
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private silenceTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last frame came (or the connection opened), ms since epoch. */
  private lastFrameAt = 0;
  private closed = false;
  private loggedIn = false;
  private state: EventChannelStatus = "connecting";
  private readonly warned = new Set<string>();

  constructor(private readonly o: EventChannelOptions) {
    this.sessid =
      typeof crypto !== "undefined" && "randomUUID" in crypto
        ? crypto.randomUUID()
        : fallbackUuid(o.random ?? Math.random);
    this.channels = [...o.channels];
    this.connect();
  }

  get status(): EventChannelStatus {
    return this.state;
  }

  /** Sends a request on the logged-in connection; rejects on a JSON-RPC error, a drop or the time-out. */
  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return Promise.reject(new EventChannelError(-32002, "not connected"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new EventChannelError(-32003, `no answer to ${method}`));
      }, this.o.requestTimeoutMs ?? 10_000);
      this.pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, sessid: this.sessid } }));
    });
  }

  /** Subscribes to what is new and unsubscribes from what is gone; the set is kept for reconnections. */
  setChannels(channels: readonly string[]): void {
    const added = channels.filter((c) => !this.channels.includes(c));
    const removed = this.channels.filter((c) => !channels.includes(c));
    this.channels = [...channels];
    if (!this.loggedIn) return;
    if (added.length)
      void this.request("verto.subscribe", { eventChannel: added }).catch((e: unknown) => this.warn("subscribe", e));
    if (removed.length)
      void this.request("verto.unsubscribe", { eventChannel: removed }).catch((e: unknown) =>
        this.warn("unsubscribe", e),
      );
  }

  /** Skips the wait before the next connection attempt. */
  retryNow(): void {
    if (this.closed || this.state !== "reconnecting") return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Stops for good. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopSilenceWatch();
    this.drop(new EventChannelError(-32002, "closed"));
    this.socket?.close(1000, "closed");
    this.socket = undefined;
    this.setStatus("closed", {});
  }

  private connect(): void {
    const factory = this.o.socket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
    this.loggedIn = false;
    this.setStatus(this.attempt === 0 ? "connecting" : "reconnecting", {});
    let socket: SocketLike;
    try {
      socket = factory(this.o.url);
    } catch (e) {
      return this.scheduleReconnect(e instanceof Error ? e.message : String(e));
    }
    this.socket = socket;
    let failure = "";
    socket.onopen = () => void this.logIn(socket);
    socket.onmessage = (ev) => {
      if (socket !== this.socket) return;
      this.armSilence();
      this.receive(ev.data);
    };
    socket.onerror = () => {
      failure ||= "the connection failed";
    };
    socket.onclose = (ev) => {
      if (socket !== this.socket) return;
      this.socket = undefined;
      this.loggedIn = false;
      this.stopSilenceWatch();
      this.drop(new EventChannelError(-32002, "connection closed"));
      if (!this.closed) this.scheduleReconnect(failure || (ev.reason ? `closed: ${ev.reason}` : `closed (${ev.code})`));
    };
  }

  private async logIn(socket: SocketLike): Promise<void> {
    this.armSilence();
    const { login, token } = this.o.credentials();
    try {
      await this.request("login", { login, passwd: "x", loginParams: { xui_sessid: token } });
      if (socket !== this.socket) return;
      if (this.channels.length) await this.request("verto.subscribe", { eventChannel: this.channels });
      if (socket !== this.socket) return;
      this.loggedIn = true;
      this.attempt = 0;
      this.setStatus("open", {});
    } catch (e) {
      if (socket !== this.socket) return;
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof EventChannelError && AUTH_ERRORS.has(e.code)) this.o.onAuthFailure?.(message);
      this.socket = undefined;
      socket.close(4000, "login failed");
      this.drop(new EventChannelError(-32002, "login failed"));
      this.scheduleReconnect(message);
    }
  }

  private receive(raw: unknown): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof raw === "string" ? raw : String(raw));
    } catch {
      return this.warn("frame", new Error("a frame that is not JSON"));
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!m || typeof m !== "object") {
        this.warn("message", new Error("a message that is not an object"));
        continue;
      }
      const msg = m as {
        id?: number | string;
        method?: string;
        params?: Record<string, unknown>;
        result?: unknown;
        error?: { code?: number; message?: string };
      };
      if (typeof msg.method === "string") {
        if (msg.method === "verto.event" && msg.params && typeof msg.params.eventChannel === "string") {
          try {
            this.o.onEvent(msg.params.eventChannel, msg.params.data);
          } catch (e) {
            console.warn("agentbar: an event listener failed", e);
          }
        }
        // Every server request is answered, as verto.js does (pings, events, clientReady).
        if (msg.id !== undefined)
          this.socket?.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { method: msg.method } }));
        continue;
      }
      const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
      if (!p) continue;
      this.pending.delete(msg.id as number);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new EventChannelError(msg.error.code ?? -32603, msg.error.message ?? "error"));
      else p.resolve(msg.result);
    }
  }

  /**
   * A frame came (or the connection opened): the silence counts from now. A busy channel brings
   * thousands of frames a second: each notes the time, and one timer, armed again only when it
   * fires, compares it with the clock.
   */
  private armSilence(): void {
    this.lastFrameAt = this.now();
    this.silenceTimer ??= setTimeout(() => this.checkSilence(), this.silenceMs);
  }

  private get silenceMs(): number {
    return this.o.silenceMs ?? 75_000;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private checkSilence(): void {
    this.silenceTimer = undefined;
    const socket = this.socket;
    if (!socket) return;
    const t = this.now();
    // A clock set back: the silence counts from now.
    if (this.lastFrameAt > t) this.lastFrameAt = t;
    const quiet = t - this.lastFrameAt;
    if (quiet < this.silenceMs) {
      this.silenceTimer = setTimeout(() => this.checkSilence(), this.silenceMs - quiet);
      return;
    }
    // Nothing came, not even the platform's ping: the connection is dead without knowing it.
    this.socket = undefined;
    socket.close(4001, "silent");
    this.drop(new EventChannelError(-32002, "connection silent"));
    this.scheduleReconnect("no message from the platform for too long");
  }

  private stopSilenceWatch(): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = undefined;
  }

  private scheduleReconnect(error: string): void {
    if (this.closed) return;
    const { first, max } = this.o.backoffMs ?? { first: 1000, max: 30_000 };
    const base = Math.min(max, first * 2 ** this.attempt);
    const wait = Math.round(base * (0.8 + 0.4 * (this.o.random ?? Math.random)()));
    this.attempt++;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), wait);
    this.setStatus("reconnecting", { error, nextAttemptAt: this.now() + wait });
  }

  private drop(e: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
  }

  private setStatus(status: EventChannelStatus, detail: { error?: string; nextAttemptAt?: number }): void {
    this.state = status;
    this.o.onStatus?.(status, detail);
  }

  private warn(kind: string, e: unknown): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    console.warn(`agentbar: event channel: ${kind}:`, e instanceof Error ? e.message : e);
  }
}

function fallbackUuid(random: () => number): string {
  return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (c) => {
    const r = Math.floor(random() * 16);
    return (c === "x" ? r : (r & 0x3) | 0x8).toString(16);
  });
}
