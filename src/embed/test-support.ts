import { expect, vi } from "vitest";
import type { CommandArgs } from "./host/commands";
import { handshake, type Connection, type HostEvents } from "./host/connection";
import type { CallInfo, CommandName, CommandResult, EventData, EventName, Scope, Snapshot } from "./host/protocol";
import { parseEmbedConfig, type EmbedConfig } from "../../shared/embed-config";
import { startEndpoint, type EmbedApp } from "./endpoint";

/**
 * Both ends of the embedding channel in one process, over a real MessageChannel: the host SDK's
 * handshake and connection, and the app's endpoint with a stand-in of the app whose every action
 * is recorded. Messages from the host's window arrive through `deliver`, as a browser would hand
 * them to the app's window.
 */

export const HOST_ORIGIN = "https://crm.example.com";

export const ringingCall: CallInfo = {
  callId: "c1",
  platformCallId: "0f3a-agent-leg",
  customerCallId: "77b2-customer",
  direction: "inbound",
  state: "ringing",
  held: false,
  muted: false,
  queue: "support",
  startedAt: 1_760_000_000_000,
  answeredAt: null,
  party: { number: "+15550100", name: "Carla" },
  data: { "X-IVR-Account": "12345", "X-IVR-Choice": "billing" },
};

export const sampleSnapshot: Snapshot = {
  user: { login: "agent1", name: "Agent One", extension: "1001" },
  registration: { state: "registered", detail: "wss://pbx.example.com/sip" },
  agent: {
    status: "ready",
    reason: "",
    platformStatus: "Available",
    state: "Receiving",
    pending: null,
    next: null,
    queues: ["support"],
  },
  calls: [ringingCall],
  wrapUp: {
    callId: "c0",
    queue: "support",
    endsAt: 1_760_000_030_000,
    outcome: "Sold",
    notes: "Wants a call back on Friday",
  },
};

export type Handler = <C extends CommandName>(command: C, args: CommandArgs<C>) => Promise<CommandResult<C>>;

export function fakeApp(snapshot: Snapshot = sampleSnapshot) {
  const listeners = new Set<<E extends EventName>(event: E, data: EventData<E>) => void>();
  const runs: { command: CommandName; args: unknown }[] = [];
  const tokens: string[] = [];
  let handler: Handler = async (command) => {
    const results: { [C in CommandName]?: CommandResult<C> } = {
      getState: snapshot,
      setStatus: { agent: snapshot.agent!, applied: "now" },
      setDisposition: { callId: "c0" },
      getDiagnostics: {
        appVersion: "0.1.0",
        protocolVersion: 1,
        registration: snapshot.registration,
        eventFeed: "events",
        storage: "browser",
      },
      getDiagnosticsFile: { name: "agentbar-diagnostics-1001.json", type: "application/json", text: "{}" },
    };
    return (results[command] ?? { call: snapshot.calls[0]! }) as CommandResult<typeof command>;
  };
  const app: EmbedApp = {
    snapshot: () => snapshot,
    run: (command, args) => {
      runs.push({ command, args });
      return handler(command, args);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    signInWithToken: (token) => void tokens.push(token),
  };
  return {
    app,
    runs,
    tokens,
    /** Sends an event as the app would. */
    emit<E extends EventName>(event: E, data: EventData<E>) {
      for (const l of listeners) l(event, data);
    },
    handle(h: Handler) {
      handler = h;
    },
    get listening() {
      return listeners.size;
    },
  };
}

export function configWith(hosts: { origin: string; scopes: Scope[]; destinations?: string }[]): EmbedConfig {
  const parsed = parseEmbedConfig({ embed: { hosts } });
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.config;
}

/** The app's window: its parent, and what the browser delivers to it. */
export function appWindow() {
  const listeners = new Set<(e: MessageEvent) => void>();
  const parent = { name: "the host page" };
  return {
    parent,
    window: {
      parent,
      addEventListener: (_: "message", l: (e: MessageEvent) => void) => void listeners.add(l),
      removeEventListener: (_: "message", l: (e: MessageEvent) => void) => void listeners.delete(l),
    },
    deliver(data: unknown, origin: string, source: unknown, ports: MessagePort[] = []) {
      const event = { data: structuredClone(data), origin, source, ports } as unknown as MessageEvent;
      for (const l of listeners) l(event);
    },
  };
}

const opened: { close(): void }[] = [];

/** Closes every port and endpoint the tests opened (an open port keeps the process alive). */
export function closeAll(): void {
  for (const o of opened.splice(0)) o.close();
}

export interface Pair {
  connection: Connection;
  events: { event: keyof HostEvents; data: unknown }[];
  app: ReturnType<typeof fakeApp>;
  win: ReturnType<typeof appWindow>;
}

/** An app with an endpoint for `config`, and a host connecting to it from `origin`. */
export async function connectPair(
  o: {
    scopes?: Scope[];
    destinations?: string;
    origin?: string;
    source?: "parent" | "other";
    versions?: number[];
    timeoutMs?: number;
    commandTimeoutMs?: number;
    snapshot?: Snapshot;
    credential?: string;
  } = {},
): Promise<Pair> {
  const app = fakeApp(o.snapshot);
  const win = appWindow();
  const stop = startEndpoint({
    window: win.window,
    config: configWith([
      {
        origin: HOST_ORIGIN,
        scopes: o.scopes ?? ["dial", "call-control", "status", "caller-data", "diagnostics"],
        ...(o.destinations ? { destinations: o.destinations } : {}),
      },
    ]),
    app: app.app,
    appVersion: "0.1.0",
  });
  opened.push({ close: stop });
  const events: Pair["events"] = [];
  const source = o.source === "other" ? { name: "another frame" } : win.parent;
  const connection = await handshake({
    post: (message, port) => {
      const m = o.versions ? { ...message, versions: o.versions } : message;
      win.deliver(m, o.origin ?? HOST_ORIGIN, source, [port]);
    },
    instance: "test",
    ...(o.credential ? { credential: { token: o.credential } } : {}),
    retryMs: 50,
    timeoutMs: o.timeoutMs ?? 30_000,
    commandTimeoutMs: o.commandTimeoutMs ?? 30_000,
    emit: (event, data) => void events.push({ event, data }),
    cancelled: () => false,
  });
  opened.push(connection);
  return { connection, events, app, win };
}

/** Waits for a condition the other end of the channel brings about (messages are delivered asynchronously). */
export const until = (condition: () => boolean) =>
  vi.waitFor(() => expect(condition()).toBe(true), { timeout: 10_000, interval: 5 });

/** One valid message of every command. */
export const validCommands: Record<string, Record<string, unknown>> = {
  dial: { number: "+1 555 0100" },
  answer: {},
  reject: { callId: "c1", busy: true },
  hangUp: { callId: "c1" },
  hold: {},
  resume: { callId: "c1" },
  mute: {},
  unmute: {},
  sendDtmf: { digits: "12#" },
  transfer: { destination: "1002", callId: "c1" },
  consult: { destination: "1002" },
  completeTransfer: {},
  cancelConsultation: { callId: "c1" },
  threeWay: { destination: "+1 555 0100", callId: "c1" },
  setStatus: { status: "break", reason: "Lunch" },
  getState: {},
  setDisposition: { callId: "c1", outcome: "Sold", notes: "", done: true },
  getDiagnostics: {},
  getDiagnosticsFile: {},
};
