import { SCOPES } from "../../../shared/embed-scopes";
import { HEADER_NAME, MAX_CALL_DATA_FIELDS, MAX_CALL_DATA_NAME, MAX_CALL_DATA_VALUE } from "../../../shared/call-data";
import {
  at,
  bool,
  dict,
  int,
  isRecord,
  list,
  literal,
  nullable,
  obj,
  oneOf,
  str,
  type Infer,
  type Schema,
} from "./schema";

/**
 * The embedding protocol between a host page (a CRM) and the Agentbar app in its iframe.
 *
 * 1. The host posts a `connect` message to the iframe's window, addressed to the app's exact
 *    origin, with one end of a new `MessageChannel`. The app accepts it only from its parent
 *    window and an origin its configuration allows; anything else gets no answer at all.
 * 2. The app answers on that port with `hello` (the protocol version chosen, the scopes this
 *    origin has, and a snapshot of the whole state) or `refused` (no common version).
 * 3. From then on both sides talk only over the port: the host sends commands, each with an id;
 *    the app answers each with a reply naming that id, once the new state is confirmed, and sends
 *    events as things change.
 *
 * Every message is checked against its schema on arrival, on both sides. The protocol version
 * is a whole number; a change that an older peer could misread gets a new one, and both sides
 * say which versions they speak in the handshake.
 */

/**
 * The protocol versions this build speaks. 2 adds the heartbeat (`ping`, `pong`) and the
 * commands `consult`, `completeTransfer`, `cancelConsultation`, `threeWay`; 3 adds a call's
 * `data` (an older SDK's strict schema would refuse the field).
 */
export const PROTOCOL_VERSIONS: readonly number[] = [1, 2, 3];
/** The first version with the heartbeat. */
export const HEARTBEAT_VERSION = 2;
/** The first version with a call's `data`. */
export const CALL_DATA_VERSION = 3;

// The scopes are also the words of the embedding allowlist, which the platform reads as well.
export { SCOPES, type Scope } from "../../../shared/embed-scopes";

export const ERROR_CODES = [
  "invalid-message",
  "unsupported-version",
  "not-permitted",
  "invalid-destination",
  "destination-not-allowed",
  "not-signed-in",
  "not-an-agent",
  "no-call",
  "invalid-state",
  "refused",
  "timeout",
  "busy",
  "failed",
  // Only the host SDK raises these two: the app never answered, or the channel closed.
  "no-answer",
  "disconnected",
] as const;
/**
 * - `invalid-message`: the message does not fit its schema (nothing was done);
 * - `unsupported-version`: no protocol version both sides speak;
 * - `not-permitted`: the host's origin lacks the scope the command needs;
 * - `invalid-destination`: not something the dial pad would dial;
 * - `destination-not-allowed`: dialable, but outside the destinations configured for hosts;
 * - `not-signed-in`: nobody is signed in, or the phone is not registered;
 * - `not-an-agent`: the user is in no queue, so has no call-center status;
 * - `no-call`: no such call (or no call to act on);
 * - `invalid-state`: the call or the agent is not in a state that allows this;
 * - `refused`: the platform refused; the message is its own words;
 * - `timeout`: the platform did not confirm in time;
 * - `busy`: too many commands of this host are under way; wait for their replies;
 * - `failed`: anything else; the message says what.
 */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Ids of commands. */
export const MAX_ID = 2 ** 31 - 1;
/** The longest diagnostics file (300 SIP messages of at most 8,000 characters, the stats, pretty-printed). */
export const MAX_DIAGNOSTICS_FILE = 8 * 1024 * 1024;
// Times are epoch milliseconds.
const time = int(0, 8.64e15);
export const id = str(128);
export const text = str(256);

export const errorInfo = obj({ code: oneOf(...ERROR_CODES), message: str(1000) });
export type ErrorInfo = Infer<typeof errorInfo>;

// ---- State: what the app tells the host ----

export const userInfo = obj({ login: text, name: text, extension: str(64) });
export type UserInfo = Infer<typeof userInfo>;

export const REGISTRATION_STATES = ["signed-out", "connecting", "registered", "reconnecting", "failed"] as const;
/** Whether the agent's phone can take calls; `detail` and `nextAttemptAt` only with the `diagnostics` scope. */
export const registrationInfo = obj(
  { state: oneOf(...REGISTRATION_STATES) },
  { detail: str(1000), nextAttemptAt: time },
);
export type RegistrationInfo = Infer<typeof registrationInfo>;

export const AGENT_STATUSES = ["ready", "ready-on-demand", "break", "signed-out", "unknown"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const statusChoice = oneOf("ready", "ready-on-demand", "break", "signed-out");
export type StatusChoice = Infer<typeof statusChoice>;

/**
 * The agent as the platform reports it: the status (with the break reason), the platform's own
 * words for status and state, the status command not confirmed yet, and the status chosen for
 * when the current call (or after-call work) ends.
 */
export const agentInfo = obj({
  status: oneOf(...AGENT_STATUSES),
  reason: text,
  platformStatus: str(64),
  state: str(64),
  pending: nullable(oneOf("ready", "ready-on-demand", "break", "signed-out", "signed-in")),
  next: nullable(obj({ status: statusChoice, reason: text })),
  queues: list(text, 100),
});
export type AgentInfo = Infer<typeof agentInfo>;

export const partyInfo = obj({ number: text, name: text });

export const CALL_STATES = ["ringing", "dialling", "connected", "ended"] as const;
/**
 * What came with a call besides who calls: the headers of its INVITE that the deployment lists
 * (an IVR's input: `{"X-IVR-Account": "12345"}`), header name as written to value.
 */
export const callData = dict(str(MAX_CALL_DATA_NAME, HEADER_NAME), str(MAX_CALL_DATA_VALUE), MAX_CALL_DATA_FIELDS);

/**
 * A call of the agent's phone. `callId` names it in commands. `platformCallId` is the uuid the
 * platform knows the agent's leg by (the call records', `CC-Agent-UUID`), `customerCallId` the
 * customer's channel of a queue call (`CC-Member-UUID`). `party` (who is on the other end) and
 * `data` (what came with the call, protocol 3 on) only with the `caller-data` scope.
 */
export const callInfo = obj(
  {
    callId: id,
    platformCallId: nullable(id),
    customerCallId: nullable(id),
    direction: oneOf("inbound", "outbound"),
    state: oneOf(...CALL_STATES),
    held: bool,
    muted: bool,
    queue: nullable(text),
    startedAt: time,
    answeredAt: nullable(time),
  },
  { party: partyInfo, data: callData },
);
export type CallInfo = Infer<typeof callInfo>;

/** Who ended a call: the agent (here), the other party, or the platform (a transfer, a time-out, an interception). */
export const HUNG_UP_BY = ["agent", "remote", "platform", "unknown"] as const;
export type HungUpBy = (typeof HUNG_UP_BY)[number];

/** After-call work of a call: until when it runs; `outcome` and `notes` only with `caller-data`. */
export const wrapUpInfo = obj({ callId: id, queue: nullable(text), endsAt: time }, { outcome: text, notes: str(4000) });
export type WrapUpInfo = Infer<typeof wrapUpInfo>;

/** Everything at once: sent in `hello`, and the answer to `getState`. */
export const snapshotInfo = obj({
  user: nullable(userInfo),
  registration: registrationInfo,
  agent: nullable(agentInfo),
  calls: list(callInfo, 16),
  wrapUp: nullable(wrapUpInfo),
});
export type Snapshot = Infer<typeof snapshotInfo>;

export const diagnosticsInfo = obj({
  appVersion: str(64),
  protocolVersion: int(1, 1000),
  registration: registrationInfo,
  eventFeed: oneOf("events", "polling", "off"),
  /** `memory` when the browser refuses storage to the frame (third-party storage blocked). */
  storage: oneOf("browser", "memory"),
});
export type Diagnostics = Infer<typeof diagnosticsInfo>;

/**
 * The diagnostics file the devices panel downloads (recent SIP messages, registration history,
 * the last calls' stats, devices, settings; no password, token or digest answer), as JSON text.
 */
export const diagnosticsFileInfo = obj({
  name: str(200),
  type: literal("application/json"),
  text: str(MAX_DIAGNOSTICS_FILE),
});
export type DiagnosticsFile = Infer<typeof diagnosticsFileInfo>;

// ---- Replies: what each command resolves with ----

const withCall = obj({ call: callInfo });
/**
 * The commands (their arguments are in commands.ts), and what each resolves with once the app
 * confirmed the new state.
 */
export const COMMAND_RESULTS = {
  dial: withCall,
  answer: withCall,
  reject: withCall,
  hangUp: withCall,
  hold: withCall,
  resume: withCall,
  mute: withCall,
  unmute: withCall,
  sendDtmf: withCall,
  transfer: withCall,
  consult: withCall,
  completeTransfer: withCall,
  cancelConsultation: withCall,
  threeWay: withCall,
  /** `applied: "after-call"`: chosen during a call or after-call work, it applies when they end. */
  setStatus: obj({ agent: agentInfo, applied: oneOf("now", "after-call") }),
  getState: snapshotInfo,
  setDisposition: obj({ callId: id }),
  getDiagnostics: diagnosticsInfo,
  getDiagnosticsFile: diagnosticsFileInfo,
};
export type CommandName = keyof typeof COMMAND_RESULTS;
export type CommandResult<C extends CommandName> = Infer<(typeof COMMAND_RESULTS)[C]>;

// ---- Events: app -> host ----

export const EVENTS = {
  /** Signed in or out: `user` is who is signed in. */
  session: obj({ user: nullable(userInfo) }),
  registration: obj({ registration: registrationInfo }),
  /** Status, state, pending and next status; `agent` is null when the user works in no queue or nobody is signed in. */
  agent: obj({ agent: nullable(agentInfo) }),
  /** A call rings at the agent's phone, before anyone answered: the screen-pop. */
  "call.ringing": withCall,
  /** The agent's call to someone is under way (for a click-to-dial: the agent's phone has it). */
  "call.dialling": withCall,
  "call.answered": withCall,
  "call.held": withCall,
  "call.resumed": withCall,
  "call.muted": withCall,
  "call.unmuted": withCall,
  /** Anything else about a call changed (who it is with after a handover, the platform's ids learnt). */
  "call.updated": withCall,
  /** `cause` is the platform's (Q.850 name, e.g. NORMAL_CLEARING, USER_BUSY), or the phone's when the platform gave none. */
  "call.ended": obj({ call: callInfo, cause: str(128), hungUpBy: oneOf(...HUNG_UP_BY) }),
  "wrapup.started": obj({ wrapUp: wrapUpInfo }),
  /** The after-call work's outcome or notes were changed, or its time extended. */
  "wrapup.updated": obj({ wrapUp: wrapUpInfo }),
  /** After-call work ended (Done, or its time ran out), with what was recorded. */
  "wrapup.ended": obj({ wrapUp: wrapUpInfo }),
  /** A message was refused, or something failed that no command is waiting for. `re` is the id of the message concerned. */
  error: obj({ error: errorInfo }, { re: int(1, MAX_ID) }),
};
export type EventName = keyof typeof EVENTS;
export type EventData<E extends EventName> = Infer<(typeof EVENTS)[E]>;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

// ---- Everything the app sends on the port ----

/** A message as checked: its value, or the first problem found (and its id, when that much could be read). */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string; id?: number };

export const helloMessage = obj({
  type: literal("hello"),
  version: int(1, 1000),
  appVersion: str(64),
  scopes: list(oneOf(...SCOPES), SCOPES.length),
  state: snapshotInfo,
});
export type HelloMessage = Infer<typeof helloMessage>;
export const refusedMessage = obj({ type: literal("refused"), error: errorInfo, versions: list(int(1, 1000), 16) });
export type RefusedMessage = Infer<typeof refusedMessage>;

/** The app's answer to the host's `ping` (version 2 on): the app is alive. */
export const pongMessage = obj({ type: literal("pong") });

export type ReplyMessage =
  { type: "reply"; re: number; ok: true; result: unknown } | { type: "reply"; re: number; ok: false; error: ErrorInfo };
export type EventMessage<E extends EventName = EventName> = { type: "event"; event: E; data: EventData<E> };
export type AppMessage = HelloMessage | RefusedMessage | ReplyMessage | EventMessage | { type: "pong" };

const replyOk = obj({ type: literal("reply"), re: int(1, MAX_ID), ok: literal(true), result: schemaOfAny() });
const replyError = obj({ type: literal("reply"), re: int(1, MAX_ID), ok: literal(false), error: errorInfo });
const eventEnvelope = obj({ type: literal("event"), event: oneOf(...EVENT_NAMES), data: schemaOfAny() });

/**
 * Checks a message that arrived at the host. A reply's result is checked against the result of
 * the command it answers (`commandOf` says which command an id was), an event's data against
 * that event's schema.
 */
export function checkAppMessage(
  message: unknown,
  commandOf: (id: number) => CommandName | undefined,
): Checked<AppMessage> {
  if (!isRecord(message)) return { ok: false, problem: "must be an object" };
  const fail = (problem: string): Checked<AppMessage> => ({ ok: false, problem });
  const pass = (): Checked<AppMessage> => ({ ok: true, value: message as unknown as AppMessage });
  switch (message.type) {
    case "hello": {
      const p = helloMessage(message);
      return p ? fail(p) : pass();
    }
    case "refused": {
      const p = refusedMessage(message);
      return p ? fail(p) : pass();
    }
    case "pong": {
      const p = pongMessage(message);
      return p ? fail(p) : pass();
    }
    case "event": {
      const p = eventEnvelope(message) ?? EVENTS[message.event as EventName](message.data);
      return p ? fail(p) : pass();
    }
    case "reply": {
      const p = message.ok === true ? replyOk(message) : replyError(message);
      if (p) return fail(p);
      if (message.ok !== true) return pass();
      const command = commandOf(message.re as number);
      if (!command) return fail(`re: answers no command under way`);
      const r = COMMAND_RESULTS[command](message.result);
      return r ? fail(at("result", r)) : pass();
    }
    default:
      return fail("type: must be one of hello, refused, reply, event, pong");
  }
}

/** The message a host posts to the app's window to connect (see commands.ts). */
export const CONNECT = "agentbar:connect";

/** Any value: its own schema checks it further. */
export function schemaOfAny(): Schema<unknown> {
  return () => undefined;
}
