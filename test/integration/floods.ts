import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { DEMO_DOMAIN, DEMO_PASSWORD } from "./harness";
import { newId, request } from "./sip-raw";

/**
 * What an attacker on the LAN sends to knock the platform over, as tests and the bench replay
 * it: JSON-RPC batches on sockets that never read their answers, SIP messages far bigger than
 * any phone sends, REGISTER floods. Each flood runs until its amount is sent and dealt with
 * (`done`) or it is stopped; each counts what it got back. And the agent who must not notice.
 */
export interface Flood {
  /** Resolves when every message has been answered or its connection closed by the platform. */
  readonly done: Promise<void>;
  readonly finished: boolean;
  /** Frames handed to the network, answers (frames) received, connections the platform closed. */
  readonly sent: number;
  readonly answers: number;
  readonly closedByPlatform: number;
  stop(): void;
}

class FloodState implements Flood {
  sent = 0;
  answers = 0;
  closedByPlatform = 0;
  finished = false;
  stopped = false;
  readonly sockets = new Set<WebSocket>();
  readonly done: Promise<void>;

  constructor(workers: ((flood: FloodState) => Promise<void>)[]) {
    this.done = Promise.all(workers.map((w) => w(this))).then(() => {
      this.finished = true;
    });
  }

  stop(): void {
    this.stopped = true;
    for (const ws of this.sockets) ws.terminate();
  }

  async open(url: string, protocol: string | undefined, localAddress?: string): Promise<WebSocket | undefined> {
    const ws = new WebSocket(
      url.replace(/^http/, "ws") + (protocol ? "/sip" : "/ws"),
      protocol ? [protocol] : [],
      localAddress ? { localAddress } : {},
    );
    const opened = await new Promise<boolean>((resolve) => {
      ws.once("open", () => resolve(true));
      ws.once("error", () => resolve(false));
    });
    if (!opened || this.stopped) {
      ws.terminate();
      return undefined;
    }
    this.sockets.add(ws);
    ws.on("error", () => undefined);
    ws.once("close", () => {
      this.sockets.delete(ws);
      if (!this.stopped) this.closedByPlatform++;
    });
    return ws;
  }
}

/** Resolves once `ws` has handed `data` to the network, false when the socket closed first. */
function sent(ws: WebSocket, data: string): Promise<boolean> {
  if (ws.readyState !== ws.OPEN) return Promise.resolve(false);
  return new Promise((resolve) => ws.send(data, (error) => resolve(!error)));
}

/** One 62 KiB frame holding about 21,000 empty requests. */
export const EMPTY_REQUESTS_BATCH = `[${Array(21_000).fill("{}").join(",")}]`;

/**
 * `sockets` JSON-RPC connections that never read what the platform writes, each sending
 * `frames` batches of empty requests (forever when Infinity), reconnecting when the platform
 * closes them. `token(i)` makes socket i log in first (as the extension of `login(i)`).
 */
export function unreadBatches(
  url: string,
  o: { sockets: number; frames: number; token?: (i: number) => string | undefined; login?: (i: number) => string },
): Flood {
  const worker = (i: number) => async (flood: FloodState) => {
    let frames = 0;
    while (frames < o.frames && !flood.stopped) {
      const ws = await flood.open(url, undefined);
      if (!ws) continue;
      const token = o.token?.(i);
      if (token) {
        const login = o.login?.(i) ?? `1001@${DEMO_DOMAIN}`;
        const params = { login, passwd: "x", loginParams: { xui_sessid: token }, sessid: newId() };
        await sent(ws, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "login", params }));
      }
      // Never read: what the platform writes stays in its buffers (and the network's).
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      while (frames < o.frames && !flood.stopped && (await sent(ws, EMPTY_REQUESTS_BATCH))) {
        frames++;
        flood.sent++;
      }
      ws.terminate();
    }
  };
  return new FloodState(Array.from({ length: o.sockets }, (_, i) => worker(i)));
}

/** A REGISTER of about `bytes` bytes: thousands of Contact headers (9,000 in 250 KB). */
export function bigRegister(bytes: number): string {
  const contact = (n: number) => `Contact: <sip:c${n}@${newId()}.invalid;transport=ws>`;
  const contacts: string[] = [];
  for (let size = 0, n = 0; size < bytes; n++) {
    contacts.push(contact(n));
    size += contacts[n]!.length + 2;
  }
  return request({
    method: "REGISTER",
    uri: `sip:${DEMO_DOMAIN}`,
    from: `<sip:1004@${DEMO_DOMAIN}>`,
    to: `<sip:1004@${DEMO_DOMAIN}>`,
    headers: contacts,
  }).text;
}

/**
 * `sockets` SIP connections from `localAddress`, each sending `count` big REGISTERs (forever
 * when Infinity) one after another: the next once the last was answered or its connection closed
 * (then on a new connection).
 */
export function bigSipMessages(
  url: string,
  o: { sockets: number; bytes: number; count: number; localAddress?: string },
): Flood {
  const message = bigRegister(o.bytes);
  const worker = async (flood: FloodState) => {
    let ws: WebSocket | undefined;
    for (let n = 0; n < o.count && !flood.stopped; n++) {
      if (!ws || ws.readyState !== ws.OPEN) ws = await flood.open(url, "sip", o.localAddress);
      if (!ws) continue;
      const socket = ws;
      const answered = new Promise<void>((resolve) => {
        socket.once("message", () => {
          flood.answers++;
          resolve();
        });
        socket.once("close", () => resolve());
      });
      if (await sent(socket, message)) {
        flood.sent++;
        await answered;
      }
    }
    ws?.terminate();
  };
  return new FloodState(Array.from({ length: o.sockets }, () => worker));
}

/**
 * `sockets` SIP connections from `localAddress`, each sending `perSocket` REGISTERs (new
 * Contacts, no credentials): all at once when `perSecond` is not given, else paced at that rate
 * per socket. Done when each was answered or its connection closed.
 */
export function registerFlood(
  url: string,
  o: { sockets: number; perSocket: number; perSecond?: number; localAddress?: string },
): Flood {
  const register = () =>
    request({
      method: "REGISTER",
      uri: `sip:${DEMO_DOMAIN}`,
      from: `<sip:1004@${DEMO_DOMAIN}>`,
      to: `<sip:1004@${DEMO_DOMAIN}>`,
      contact: `<sip:${newId()}@x.invalid;transport=ws>`,
      headers: ["Expires: 600"],
    }).text;
  const worker = async (flood: FloodState) => {
    const ws = await flood.open(url, "sip", o.localAddress);
    if (!ws) return;
    let answered = 0;
    ws.on("message", () => {
      flood.answers++;
      answered++;
    });
    const all = new Promise<void>((resolve) => {
      const check = () => answered >= o.perSocket && resolve();
      ws.on("message", check);
      ws.once("close", () => resolve());
    });
    const started = performance.now();
    for (let n = 0; n < o.perSocket && !flood.stopped && ws.readyState === ws.OPEN; n++) {
      if (o.perSecond) {
        const due = started + (n * 1000) / o.perSecond;
        if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      }
      ws.send(register());
      flood.sent++;
    }
    await all;
    ws.terminate();
  };
  return new FloodState(Array.from({ length: o.sockets }, () => worker));
}

/** POST /api/sessions over HTTP; the token. */
export async function signIn(url: string, login: string): Promise<string> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login, password: DEMO_PASSWORD }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || !body.token) throw new Error(`sign-in of ${login}: ${res.status}`);
  return body.token;
}

/**
 * An agent going about its work over REST (its own agent_state, one request after another) and
 * what it got: how many answers and how long each took, ms.
 */
export class RestAgent {
  /** How long each request took, ms (one given up after 30 s counts as 30 s). */
  readonly times: number[] = [];
  /** Requests that failed or were given up. */
  failures = 0;
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  /** One request. Throws unless 200. */
  async request(): Promise<void> {
    const started = performance.now();
    try {
      const res = await fetch(`${this.url}/api/cc/agent_state`, {
        headers: { "X-XTRA-AUTH-ID": this.token },
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`agent_state answered ${res.status}`);
    } finally {
      this.times.push(performance.now() - started);
    }
  }

  /** Requests one after another until `stop` (failures counted, not thrown). */
  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) await this.request().catch(() => this.failures++);
    })();
  }

  async stop(): Promise<number[]> {
    this.running = false;
    await this.loop;
    return this.times;
  }
}
