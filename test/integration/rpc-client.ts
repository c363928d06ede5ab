import { randomUUID } from "node:crypto";
import WebSocket from "ws";

export interface RpcMessage {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; [k: string]: unknown };
}

export interface VertoEvent {
  eventChannel: string;
  subscribedChannel: string;
  eventSerno: number;
  data: Record<string, string>;
}

/**
 * A JSON-RPC (Verto-framed) client of the platform's `/ws` for integration tests: sends
 * requests and waits for their answers, answers the server's requests (verto.event, verto.ping,
 * verto.clientReady) as verto.js does, and keeps every server request it got for the test to read.
 */
export class RpcClient {
  /** Requests the server sent, in order. */
  readonly received: RpcMessage[] = [];
  /** Answers to requests sent with `raw`, and errors without an id. */
  readonly stray: RpcMessage[] = [];
  private nextId = 1;
  private readonly pending = new Map<string | number, (m: RpcMessage) => void>();
  private readonly waiters = new Set<() => void>();
  readonly sessid = randomUUID();
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.onMessage(JSON.parse(String(data)) as RpcMessage | RpcMessage[]));
    ws.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  static async connect(baseUrl: string, protocols?: string[]): Promise<RpcClient> {
    const ws = new WebSocket(baseUrl.replace(/^http/, "ws") + "/ws", protocols);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new RpcClient(ws);
  }

  private onMessage(message: RpcMessage | RpcMessage[]) {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (m.method) {
        this.received.push(m);
        // verto.js answers every server request with a result.
        this.ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { method: m.method } }));
      } else if (m.id !== undefined && m.id !== null && this.pending.has(m.id)) {
        this.pending.get(m.id)!(m);
        this.pending.delete(m.id);
      } else {
        this.stray.push(m);
      }
    }
    this.wake();
  }

  private wake() {
    for (const w of [...this.waiters]) w();
  }

  /** Sends a request and resolves with the server's answer (result or error). */
  call(method: string, params: Record<string, unknown> = {}): Promise<RpcMessage> {
    const id = this.nextId++;
    const answer = new Promise<RpcMessage>((resolve) => this.pending.set(id, resolve));
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: { sessid: this.sessid, ...params } }));
    return answer;
  }

  /** Sends text as it is (malformed frames, batches); answers land in `stray`. */
  raw(text: string) {
    this.ws.send(text);
  }

  login(token: string, login: string, passwd = "x"): Promise<RpcMessage> {
    return this.call("login", { login, passwd, loginParams: { xui_sessid: token } });
  }

  subscribe(...channels: string[]): Promise<RpcMessage> {
    return this.call("verto.subscribe", { eventChannel: channels.length === 1 ? channels[0] : channels });
  }

  /** jsapi with XSwitch's call-center command shape. */
  ccc(func: string, data: Record<string, unknown>): Promise<RpcMessage> {
    return this.call("jsapi", { command: "lua", data: { method: "ccc", func, data } });
  }

  /** Resolves once `check` holds (re-checked on every message); fails if the socket closes first. */
  async until<T>(check: () => T | undefined | false): Promise<T> {
    for (;;) {
      const value = check();
      if (value) return value;
      if (this.closed) throw new Error("the socket closed while waiting");
      await new Promise<void>((resolve) => {
        const w = () => {
          this.waiters.delete(w);
          resolve();
        };
        this.waiters.add(w);
      });
    }
  }

  /** verto.event pushes received so far. */
  events(): VertoEvent[] {
    return this.received.filter((m) => m.method === "verto.event").map((m) => m.params as unknown as VertoEvent);
  }

  /** Call-center pushes as "action agent value" lines. */
  ccLog(channel?: string): string[] {
    return this.events()
      .filter((e) => (!channel || e.subscribedChannel === channel) && e.data["CC-Action"])
      .map((e) => {
        const d = e.data;
        const value =
          d["CC-Agent-Status"] ?? d["CC-Agent-State"] ?? d["CC-Count"] ?? d["CC-Hangup-Cause"] ?? d["CC-Cause"] ?? "";
        return [d["CC-Action"], d["CC-Agent"] ?? d["CC-Queue"], value].filter(Boolean).join(" ");
      });
  }

  /** Waits until `n` call-center pushes have arrived on a channel, and returns them as lines. */
  async ccLogOf(n: number, channel?: string): Promise<string[]> {
    await this.until(() => this.ccLog(channel).length >= n);
    return this.ccLog(channel);
  }

  close() {
    this.ws.close();
  }
}
