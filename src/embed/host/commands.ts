import {
  CONNECT,
  MAX_ID,
  PROTOCOL_VERSIONS,
  id,
  schemaOfAny,
  statusChoice,
  text,
  type Checked,
  type CommandName,
  type Scope,
} from "./protocol";
import { at, bool, int, isRecord, list, literal, obj, oneOf, str, type Infer, type Schema } from "./schema";

/**
 * What the host sends to the app: the handshake and the commands, with their schemas and the
 * scope each command needs. The app checks every one of them; the host SDK uses the types only,
 * so none of these schemas weighs in its bundle.
 */

const callRef = { callId: id };
const digits = str(64, /^[0-9*#A-Da-d]+$/);

/** The arguments of each command; `callId` left out means the call the command fits (the ringing one, the one talking). */
export const COMMAND_ARGS = {
  dial: obj({ number: text }),
  answer: obj({}, callRef),
  /** `busy` answers 486 instead of 603. */
  reject: obj({}, { ...callRef, busy: bool }),
  hangUp: obj({}, callRef),
  hold: obj({}, callRef),
  resume: obj({}, callRef),
  mute: obj({}, callRef),
  unmute: obj({}, callRef),
  sendDtmf: obj({ digits }, callRef),
  transfer: obj({ destination: text }, callRef),
  /** An attended transfer's first step: the other party waits while the agent talks to `destination`. */
  consult: obj({ destination: text }, callRef),
  /** The agent leaves the consultation: the other party and the consulted one stay together. */
  completeTransfer: obj({}, callRef),
  /** The consulted party is let go; the agent talks to the other party again. */
  cancelConsultation: obj({}, callRef),
  /** `destination` joins the call: everyone hears everyone. */
  threeWay: obj({ destination: text }, callRef),
  setStatus: obj({ status: statusChoice }, { reason: text }),
  getState: obj({}),
  /** Outcome and notes of a call's after-call work; `done` ends the after-call work too. */
  setDisposition: obj({ callId: id, outcome: text, notes: str(4000) }, { done: bool }),
  getDiagnostics: obj({}),
  getDiagnosticsFile: obj({}),
} satisfies Record<CommandName, Schema<unknown>>;
export type CommandArgs<C extends CommandName> = Infer<(typeof COMMAND_ARGS)[C]>;
export const COMMAND_NAMES = Object.keys(COMMAND_ARGS) as CommandName[];

/** The scopes each command needs, all of them (none: any allowed host). */
export const COMMAND_SCOPES: Record<CommandName, readonly Scope[]> = {
  dial: ["dial"],
  answer: ["call-control"],
  reject: ["call-control"],
  hangUp: ["call-control"],
  hold: ["call-control"],
  resume: ["call-control"],
  mute: ["call-control"],
  unmute: ["call-control"],
  sendDtmf: ["call-control"],
  transfer: ["call-control"],
  consult: ["call-control"],
  completeTransfer: ["call-control"],
  cancelConsultation: ["call-control"],
  threeWay: ["call-control"],
  setStatus: ["status"],
  getState: [],
  setDisposition: ["call-control"],
  getDiagnostics: ["diagnostics"],
  // The file holds the recent SIP messages, and with them who called.
  getDiagnosticsFile: ["diagnostics", "caller-data"],
};

export interface CommandMessage<C extends CommandName = CommandName> {
  type: "command";
  id: number;
  command: C;
  args: CommandArgs<C>;
}

const commandId = int(1, MAX_ID);
const commandEnvelope = obj({
  type: literal("command"),
  id: commandId,
  command: oneOf(...COMMAND_NAMES),
  args: schemaOfAny(),
});

/** Checks a message that arrived at the app; when it is refused, `id` is its id if that much could be read. */
export function checkCommand(message: unknown): Checked<CommandMessage> {
  const readId = isRecord(message) && !commandId(message.id) ? (message.id as number) : undefined;
  const refuse = (problem: string): Checked<CommandMessage> => ({
    ok: false,
    problem,
    ...(readId === undefined ? {} : { id: readId }),
  });
  const problem = commandEnvelope(message);
  if (problem) return refuse(problem);
  const m = message as CommandMessage;
  const argsProblem = COMMAND_ARGS[m.command](m.args);
  return argsProblem ? refuse(at("args", argsProblem)) : { ok: true, value: m };
}

// ---- The handshake: host -> app, through window.postMessage with one MessagePort ----

/**
 * `instance` names one page of the frame as the host's SDK sees it: the host repeats its connect
 * until it is answered (the app may not be listening yet), and the app takes repeats of the
 * instance it already serves as such. `credential` is a token (or a developer key, which the
 * platform takes as a token) the app signs in with when nobody is signed in.
 */
export const connectMessage = obj(
  { type: literal(CONNECT), versions: list(int(1, 1000), 16), instance: str(64, /^[\w-]+$/) },
  { credential: obj({ token: str(4096, /^[\x21-\x7e]+$/) }) },
);
export type ConnectMessage = Infer<typeof connectMessage>;

/** The highest version both sides speak, or undefined. */
export function chooseVersion(
  offered: readonly number[],
  spoken: readonly number[] = PROTOCOL_VERSIONS,
): number | undefined {
  const common = offered.filter((v) => spoken.includes(v));
  return common.length ? Math.max(...common) : undefined;
}

/** The host's heartbeat (version 2 on): the app answers `pong` at once. */
export const pingMessage = obj({ type: literal("ping") });
