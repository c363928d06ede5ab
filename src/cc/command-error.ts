import { PlatformError } from "../api";

/** The call-center commands an agent gives; an error names which one failed, the UI words it. */
export type AgentCommand =
  | "ready"
  | "on-demand"
  | "break"
  | "sign-out"
  | "sign-in"
  | "hold"
  | "resume"
  | "transfer"
  | "consult"
  | "cancel-consult"
  | "three-way"
  | "dial"
  | "cancel-dial"
  /** Taking back the live call a page reload left with the platform (ccIntercept of its own call). */
  | "take-back";

/**
 * Why a command failed, for the UI to put into words:
 * - `not-working`: the agent is not working in the call center now (signed out, queues not joined);
 * - `refused`: the platform refused it; `message` is the platform's own words;
 * - `unreachable`: the platform did not answer (network, time-out);
 * - `not-confirmed`: the platform accepted it but never showed the change;
 * - `unknown-call`: the platform does not know the call it is about;
 * - `invalid-target`: the destination cannot be used for it (a queue cannot be consulted);
 * - `not-available`: the call has no such control (three-way on a call of the phone alone);
 * - `failed`: anything else; `message` says what.
 */
export type CommandErrorKind =
  | "not-working"
  | "refused"
  | "unreachable"
  | "not-confirmed"
  | "unknown-call"
  | "invalid-target"
  | "not-available"
  | "failed";

/**
 * A failed command as data: what the store keeps as its `error`, what crosses to another tab or a
 * host page. `message` is for logs and for the platform's words; the UI words the rest by `kind`.
 */
export interface CommandErrorInfo<C extends string = AgentCommand> {
  kind: CommandErrorKind;
  command: C;
  message: string;
  at: number;
}

/** A command the platform refused or did not confirm, as its promise rejects; `info` is its data. */
export class CommandError<C extends string = AgentCommand> extends Error implements CommandErrorInfo<C> {
  override readonly name = "CommandError";
  readonly kind: CommandErrorKind;
  readonly command: C;
  readonly at: number;

  constructor(info: CommandErrorInfo<C>) {
    super(info.message);
    this.kind = info.kind;
    this.command = info.command;
    this.at = info.at;
  }

  get info(): CommandErrorInfo<C> {
    return { kind: this.kind, command: this.command, message: this.message, at: this.at };
  }
}

const MESSAGES: Record<Exclude<CommandErrorKind, "refused" | "unreachable" | "failed">, string> = {
  "not-working": "not working in the call center now",
  "not-confirmed": "the platform did not confirm the change",
  "unknown-call": "the platform does not know this call",
  "invalid-target": "this destination cannot be used for it",
  "not-available": "this call has no such control",
};

/** An error of one of the kinds that carry no message of their own (or with `message` instead). */
export function commandError<C extends string = AgentCommand>(
  kind: keyof typeof MESSAGES,
  command: C,
  at: number,
  message: string = MESSAGES[kind],
): CommandError<C> {
  return new CommandError({ kind, command, message, at });
}

/** What went wrong, read from what was thrown: the platform's refusal keeps its words. */
export function commandErrorOf<C extends string = AgentCommand>(command: C, e: unknown, at: number): CommandError<C> {
  if (e instanceof CommandError) return new CommandError({ ...e.info, command, at });
  if (e instanceof PlatformError) {
    const kind =
      e.kind === "network" || e.kind === "timeout" ? "unreachable" : e.kind === "decode" ? "failed" : "refused";
    return new CommandError({ kind, command, message: e.message, at });
  }
  return new CommandError({ kind: "failed", command, message: e instanceof Error ? e.message : String(e), at });
}
