import type { CommandArgs, ConnectMessage } from "./commands";
import {
  CONNECT,
  HEARTBEAT_VERSION,
  PROTOCOL_VERSIONS,
  checkAppMessage,
  type AppMessage,
  type CommandName,
  type CommandResult,
  type ErrorCode,
  type EventData,
  type EventName,
  type Scope,
  type Snapshot,
} from "./protocol";

/** A refusal or failure of the app, or of the channel; `code` says which kind (see `ErrorCode`). */
export class AgentbarError extends Error {
  override readonly name = "AgentbarError";
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a host can listen to: the app's events, plus `state` (the whole state after every change,
 * and on connecting) and `protocol-error` (a message from the app that did not fit the protocol;
 * it was ignored).
 */
export type HostEvents = { [E in EventName]: EventData<E> } & {
  state: Snapshot;
  "protocol-error": { message: string };
  /** The app stopped answering (its frame crashed, hung, reloaded or was navigated away); commands under way were rejected. */
  disconnected: { reason: string };
  /** The app answers again: its whole state, fresh (also given as `state`). */
  reconnected: { state: Snapshot };
};
export type Emit = <E extends keyof HostEvents>(event: E, data: HostEvents[E]) => void;

/** The part of a MessagePort the connection uses. */
export interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  close(): void;
}

/** The longest pause between two connects. */
const MAX_RETRY_MS = 2000;
/** The heartbeat: a ping this often; an app that leaves one unanswered this long is gone. */
const PING_MS = 500;
const SILENCE_MS = 3000;

interface Pending {
  command: CommandName;
  resolve(result: unknown): void;
  reject(error: AgentbarError): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The host's side of a connection made by a handshake: commands with ids and the replies that
 * answer them, checked events, and the state kept up to date from them.
 */
export class Connection {
  /** The app's state: the snapshot sent on connecting, with every event since applied. */
  state: Snapshot;
  readonly version: number;
  readonly scopes: readonly Scope[];
  readonly appVersion: string;
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private closed = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  /** `lost` is called once when the app stops answering the heartbeat (version 2 on); the connection is closed then. */
  constructor(
    private readonly port: PortLike,
    hello: Extract<AppMessage, { type: "hello" }>,
    private readonly commandTimeoutMs: number,
    private readonly emit: Emit,
    lost?: (reason: string) => void,
  ) {
    this.state = hello.state;
    this.version = hello.version;
    this.scopes = hello.scopes;
    this.appVersion = hello.appVersion;
    let answered = true;
    let pingAt = 0;
    port.onmessage = (e) => {
      answered = true;
      this.receive(e.data);
    };
    if (hello.version < HEARTBEAT_VERSION || !lost) return;
    // A ping when the last one was answered; one left unanswered for SILENCE_MS means the app is
    // gone. Timers of a hidden page may run once a minute: the ping is then late, never unanswered.
    this.heartbeat = setInterval(() => {
      if (answered) {
        answered = false;
        pingAt = Date.now();
        port.postMessage({ type: "ping" });
      } else if (Date.now() - pingAt >= SILENCE_MS) {
        const reason = "Agentbar stopped answering";
        this.close(reason);
        lost(reason);
      }
    }, PING_MS);
  }

  /** Sends a command; resolves with its result once the app confirmed the new state. */
  send<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<CommandResult<C>> {
    if (this.closed) return Promise.reject(new AgentbarError("disconnected", "The connection to Agentbar is closed"));
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new AgentbarError("timeout", `${command}: no answer from Agentbar`)),
        this.commandTimeoutMs,
      );
      this.pending.set(id, { command, resolve: resolve as (r: unknown) => void, reject, timer });
      this.port.postMessage({ type: "command", id, command, args });
    });
  }

  /** Ends the connection: commands under way reject with `disconnected`. */
  close(reason = "The connection to Agentbar closed"): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.port.onmessage = null;
    this.port.close();
    for (const id of [...this.pending.keys()]) this.settle(id, new AgentbarError("disconnected", reason));
  }

  private receive(data: unknown): void {
    const checked = checkAppMessage(data, (id) => this.pending.get(id)?.command);
    if (!checked.ok) return this.emit("protocol-error", { message: checked.problem });
    const m = checked.value;
    if (m.type === "reply") {
      this.settle(
        m.re,
        m.ok ? undefined : new AgentbarError(m.error.code, m.error.message),
        m.ok ? m.result : undefined,
      );
    } else if (m.type === "pong") {
      // The heartbeat's answer: any message counts as one.
    } else if (m.type === "event") {
      this.state = applyEvent(this.state, m.event, m.data);
      this.emit(m.event, m.data as never);
      this.emit("state", this.state);
    }
    // A second hello or a refusal after the handshake has no meaning: ignored.
  }

  private settle(id: number, error: AgentbarError | undefined, result?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (error) p.reject(error);
    else p.resolve(result);
  }
}

/** The state after an event. */
export function applyEvent(state: Snapshot, event: EventName, data: unknown): Snapshot {
  switch (event) {
    case "session":
      return { ...state, user: (data as EventData<"session">).user };
    case "registration":
      return { ...state, registration: (data as EventData<"registration">).registration };
    case "agent":
      return { ...state, agent: (data as EventData<"agent">).agent };
    case "wrapup.started":
    case "wrapup.updated":
      return { ...state, wrapUp: (data as EventData<"wrapup.started">).wrapUp };
    case "wrapup.ended":
      return { ...state, wrapUp: null };
    case "error":
      return state;
    default: {
      const call = (data as EventData<"call.answered">).call;
      const known = state.calls.some((c) => c.callId === call.callId);
      const calls =
        event === "call.ended"
          ? state.calls.filter((c) => c.callId !== call.callId)
          : known
            ? state.calls.map((c) => (c.callId === call.callId ? call : c))
            : [...state.calls, call];
      return { ...state, calls };
    }
  }
}

export interface HandshakeOptions {
  /** Posts the connect message with its port to the app's window (addressed to the app's origin). */
  post(message: ConnectMessage, port: MessagePort): void;
  instance: string;
  credential?: { token: string };
  /**
   * The first pause before the connect is repeated (the app may not be listening yet); each pause
   * doubles, up to 2 s, so that a frame that never answers is not posted to 60 times.
   */
  retryMs?: number;
  timeoutMs: number;
  commandTimeoutMs: number;
  emit: Emit;
  /** Told when the app stops answering after the handshake (see Connection). */
  lost?: (reason: string) => void;
  /** True once the answer is no longer wanted (the frame loaded another page meanwhile). */
  cancelled(): boolean;
}

/**
 * Connects to the app: posts `connect` with a fresh channel, again and again (from `retryMs`
 * apart, doubling up to 2 s) until the app answers on one of them, then keeps that one and closes the others. Rejects with `no-answer` after
 * `timeoutMs` (the app is not there, or does not allow this origin: it never says which), or with
 * `unsupported-version`.
 */
export function handshake(o: HandshakeOptions): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const ports: MessagePort[] = [];
    let retry: ReturnType<typeof setTimeout> | undefined;
    let pause = o.retryMs ?? 250;
    const finish = (keep?: MessagePort) => {
      clearTimeout(retry);
      clearTimeout(deadline);
      for (const p of ports) {
        if (p === keep) continue;
        p.onmessage = null;
        p.close();
      }
    };
    const attempt = () => {
      if (o.cancelled()) {
        finish();
        return reject(new AgentbarError("disconnected", "Agentbar reloaded"));
      }
      const channel = new MessageChannel();
      const port = channel.port1;
      ports.push(port);
      port.onmessage = (e: MessageEvent) => {
        const checked = checkAppMessage(e.data, () => undefined);
        if (!checked.ok || (checked.value.type !== "hello" && checked.value.type !== "refused")) return;
        const m = checked.value;
        if (o.cancelled()) return attempt();
        if (m.type === "refused") {
          finish();
          reject(new AgentbarError(m.error.code, m.error.message));
          return;
        }
        finish(port);
        resolve(new Connection(port, m, o.commandTimeoutMs, o.emit, o.lost));
      };
      const message: ConnectMessage = {
        type: CONNECT,
        versions: [...PROTOCOL_VERSIONS],
        instance: o.instance,
        ...(o.credential ? { credential: o.credential } : {}),
      };
      o.post(message, channel.port2);
      retry = setTimeout(attempt, pause);
      pause = Math.min(pause * 2, MAX_RETRY_MS);
    };
    const deadline = setTimeout(() => {
      finish();
      if (o.cancelled()) return reject(new AgentbarError("disconnected", "Agentbar reloaded or was removed"));
      reject(
        new AgentbarError(
          "no-answer",
          "Agentbar did not answer: is this page's origin allowed in the app's configuration?",
        ),
      );
    }, o.timeoutMs);
    attempt();
  });
}
