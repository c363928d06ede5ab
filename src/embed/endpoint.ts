import { parseDialInput } from "../softphone/dial-input";
import {
  COMMAND_SCOPES,
  checkCommand,
  chooseVersion,
  pingMessage,
  connectMessage,
  type CommandArgs,
  type CommandMessage,
} from "./host/commands";
import {
  CONNECT,
  CALL_DATA_VERSION,
  HEARTBEAT_VERSION,
  PROTOCOL_VERSIONS,
  type CommandName,
  type CommandResult,
  type ErrorCode,
  type EventData,
  type EventName,
  type Scope,
  type Snapshot,
} from "./host/protocol";
import { isRecord } from "./host/schema";
import { hostRuleFor, type EmbedConfig, type EmbedHostRule } from "../../shared/embed-config";

/** A command the app could not carry out; `code` is what the host is told. */
export class EmbedCommandError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What the endpoint needs of the app: its state, its events and its actions, whole; the endpoint leaves out what a host may not see. */
export interface EmbedApp {
  snapshot(): Snapshot;
  /** Carries out a checked, permitted command; resolves once the new state is confirmed, rejects with EmbedCommandError. */
  run<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<CommandResult<C>>;
  /** Every event from now on, in order. Returns the function that stops them. */
  subscribe(listener: <E extends EventName>(event: E, data: EventData<E>) => void): () => void;
  /** Signs in with a credential the host passed, when nobody is signed in (otherwise does nothing). */
  signInWithToken(token: string): void;
}

/** The part of `window` the endpoint uses. */
export interface EmbedWindow {
  parent: unknown;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

export interface EndpointOptions {
  window: EmbedWindow;
  config: EmbedConfig;
  app: EmbedApp;
  appVersion: string;
}

/** Commands of one host under way at once; more are refused (a page gone wrong must not flood the platform). */
export const MAX_COMMANDS_UNDER_WAY = 16;

interface Session {
  /** The host page's instance it serves (repeats of its handshake are ignored). */
  instance: string;
  stop(): void;
}

/**
 * The app's side of the embedding channel. It listens for `connect` messages and accepts one
 * only from the parent window and an origin the configuration allows (anything else gets no
 * answer); then it talks over the port that message brought: the snapshot, the events and the
 * replies, each cut down to what the origin's scopes allow, and every command checked (shape,
 * scope, destination) before anything is done. A newer handshake of the parent replaces the
 * connection (the host page reloaded its SDK); a repeat of the current one is ignored.
 */
export function startEndpoint(o: EndpointOptions): () => void {
  let session: Session | undefined;

  const onMessage = (e: MessageEvent) => {
    if (e.source !== o.window.parent || e.source === (o.window as unknown)) return;
    const rule = hostRuleFor(o.config, e.origin);
    if (!rule) return;
    if (!isRecord(e.data) || e.data.type !== CONNECT) return;
    const port = e.ports.length === 1 ? e.ports[0]! : undefined;
    if (!port) return;
    const problem = connectMessage(e.data);
    if (problem) return refuse(port, "invalid-message", `connect: ${problem}`);
    const hello = e.data as { versions: number[]; instance: string; credential?: { token: string } };
    if (hello.instance === session?.instance) return;
    const version = chooseVersion(hello.versions);
    if (version === undefined)
      return refuse(port, "unsupported-version", `Agentbar speaks protocol versions ${PROTOCOL_VERSIONS.join(", ")}`);
    session?.stop();
    session = connect(port, rule, version, hello.instance);
    if (hello.credential) o.app.signInWithToken(hello.credential.token);
  };

  const refuse = (port: MessagePort, code: ErrorCode, message: string) => {
    port.postMessage({ type: "refused", error: { code, message }, versions: [...PROTOCOL_VERSIONS] });
    port.close();
  };

  const connect = (port: MessagePort, rule: EmbedHostRule, version: number, instance: string): Session => {
    const scopes = rule.scopes;
    const post = (message: unknown) => port.postMessage(message);
    const postError = (code: ErrorCode, message: string, re?: number) => {
      post({ type: "event", event: "error", data: { error: { code, message }, ...(re === undefined ? {} : { re }) } });
      if (re !== undefined) post({ type: "reply", re, ok: false, error: { code, message } });
    };
    const seen = <T>(value: T) => redact(value, scopes, version);
    const unsubscribe = o.app.subscribe((event, data) => post({ type: "event", event, data: seen(data) }));
    post({
      type: "hello",
      version,
      appVersion: o.appVersion,
      scopes: [...scopes],
      state: seen(o.app.snapshot()),
    });
    let underWay = 0;

    port.onmessage = (e: MessageEvent) => {
      // The host's heartbeat: answered at once, whatever is under way.
      if (version >= HEARTBEAT_VERSION && !pingMessage(e.data)) return post({ type: "pong" });
      const checked = checkCommand(e.data);
      if (!checked.ok) return postError("invalid-message", checked.problem, checked.id);
      const m = checked.value;
      const missing = COMMAND_SCOPES[m.command].filter((scope) => !scopes.has(scope));
      if (missing.length)
        return postError(
          "not-permitted",
          `${m.command} needs the ${missing.map((x) => `'${x}'`).join(" and ")} scope, which this page's origin does not have`,
          m.id,
        );
      const args = checkDestination(m, rule, o.app.snapshot());
      if (args instanceof EmbedCommandError) return postError(args.code, args.message, m.id);
      if (underWay >= MAX_COMMANDS_UNDER_WAY)
        return postError("busy", `${MAX_COMMANDS_UNDER_WAY} commands are under way: wait for their replies`, m.id);
      underWay++;
      o.app.run(m.command, args).then(
        (result) => {
          underWay--;
          post({ type: "reply", re: m.id, ok: true, result: seen(result) });
        },
        (e: unknown) => {
          underWay--;
          const error =
            e instanceof EmbedCommandError
              ? e
              : new EmbedCommandError("failed", e instanceof Error ? e.message : String(e));
          post({ type: "reply", re: m.id, ok: false, error: { code: error.code, message: error.message } });
        },
      );
    };
    return {
      instance,
      stop() {
        unsubscribe();
        port.onmessage = null;
        port.close();
      },
    };
  };

  o.window.addEventListener("message", onMessage);
  return () => {
    o.window.removeEventListener("message", onMessage);
    session?.stop();
    session = undefined;
  };
}

/**
 * The destination of a dial, a transfer, a consultation or a three-way as the dial pad would take it, and within the host's
 * configured destinations: the command's arguments with the destination cleaned up, or the
 * refusal. A transfer may also name one of the agent's queues.
 */
export function checkDestination<C extends CommandName>(
  m: CommandMessage<C>,
  rule: EmbedHostRule,
  state: Snapshot,
): CommandArgs<C> | EmbedCommandError {
  if (!["dial", "transfer", "consult", "threeWay"].includes(m.command)) return m.args;
  const args = m.args as CommandArgs<"dial"> | CommandArgs<"transfer" | "consult" | "threeWay">;
  const text = "number" in args ? args.number : args.destination;
  if (m.command === "transfer" && state.agent?.queues.includes(text)) return m.args;
  const parsed = parseDialInput(text);
  if (!parsed.ok)
    return new EmbedCommandError("invalid-destination", `'${text}' cannot be dialled (${parsed.problem.kind})`);
  const cleaned = parsed.target.kind === "number" ? parsed.target.number : parsed.target.uri;
  if (rule.destinations && !rule.destinations.test(cleaned)) {
    return new EmbedCommandError(
      "destination-not-allowed",
      `'${cleaned}' is not among the destinations this page's origin may call`,
    );
  }
  return ("number" in args ? { ...args, number: cleaned } : { ...args, destination: cleaned }) as CommandArgs<C>;
}

/**
 * What a host with these scopes, speaking this protocol version, may see of a value the app
 * sends: who is calling (`party`), what came with the call (`data`, protocol 3 on) and what was
 * written after a call (`outcome`, `notes`) only with `caller-data`; why the phone is not
 * connected (`detail`, `nextAttemptAt`) only with `diagnostics`. It goes by field name through
 * the whole value, so no message can carry these fields past it.
 */
export function redact<T>(value: T, scopes: ReadonlySet<Scope>, version: number): T {
  const hidden = new Set<string>();
  if (!scopes.has("caller-data")) ["party", "data", "outcome", "notes"].forEach((k) => hidden.add(k));
  if (version < CALL_DATA_VERSION) hidden.add("data");
  if (!scopes.has("diagnostics")) ["detail", "nextAttemptAt"].forEach((k) => hidden.add(k));
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (!isRecord(x)) return x;
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(x)) if (!hidden.has(k)) out[k] = walk(val);
    return out;
  };
  return walk(value) as T;
}
