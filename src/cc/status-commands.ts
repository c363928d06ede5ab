import type { PlatformClient } from "../api";
import { cc } from "../api/cc";
import type { AgentContext } from "./agent-context";
import { namedQueue, type NextStatus } from "./agent-state";
import { statusKind, type AgentView } from "./agent-status";
import type { AgentSync } from "./agent-sync";
import { hasLiveCcCall } from "./cc-call";
import { commandError, type AgentCommand } from "./command-error";

/** A status the agent (or a supervisor for an agent) can ask for: one to be in, or back into the queues. */
export type StatusChoice = NextStatus | { kind: "sign-in" };

/**
 * The agent's status: Ready, Ready on demand, Break with a reason, signing out of or into the
 * queues. A status shown is a status the platform reported: a command resolves once an event or
 * an agent_state read shows it, and fails in the platform's words when refused or never shown.
 */
export interface StatusCommands {
  /**
   * Applied at once when the agent is free; during a call or after-call work it becomes the next
   * status (a break or a sign-out chosen during after-call work still applies at once).
   */
  choose(next: StatusChoice): Promise<void>;
  /** Cancels a next status chosen during a call. */
  clearNext(): void;
  /** Sends the status now and waits until the platform shows it. */
  apply(next: StatusChoice): Promise<void>;
  /** Before the app signs out: the agent leaves its queues, so that no offer rings at a phone that is gone. */
  leaveQueues(client: PlatformClient): Promise<void>;
}

export interface StatusCommandsDeps {
  ctx: AgentContext;
  sync: AgentSync;
  /** After-call work takes a status chosen while it runs. */
  afterCall: { active(): boolean; chooseNext(next: NextStatus): Promise<void> };
}

export function createStatusCommands({ ctx, sync, afterCall }: StatusCommandsDeps): StatusCommands {
  const { store, now } = ctx;

  const apply = async (next: StatusChoice): Promise<void> => {
    const command = commandOf(next);
    const client = ctx.requireClient(command);
    const { number, queues } = store.getState();
    store.setState({ pending: { command, ...(next.kind === "break" ? { reason: next.reason } : {}) }, error: null });
    try {
      await sendStatus(client, {
        agent: number,
        extn: ctx.user?.extension ?? number,
        queues: queues.map((q) => q.name),
        next,
      });
    } catch (e) {
      throw ctx.fail(command, e);
    }
    if (!(await sync.until((s) => matches(next, s.agent))))
      throw ctx.fail(command, commandError("not-confirmed", command, now()));
    store.setState({ pending: null });
  };

  return {
    async choose(next) {
      if (store.getState().phase !== "on") throw commandError("not-working", commandOf(next), now());
      if (next.kind !== "sign-in" && afterCall.active()) await afterCall.chooseNext(next);
      else if (next.kind !== "sign-in" && hasLiveCcCall(ctx.calls.getState().calls)) store.setState({ next });
      else await apply(next);
    },
    clearNext() {
      store.setState({ next: null });
    },
    apply,
    async leaveQueues(client) {
      const s = store.getState();
      if (s.phase !== "on" || statusKind(s.agent?.status ?? "") === "logged-out") return;
      await cc
        .logout(client, { agent: s.number, queue: namedQueue(s) })
        .catch((e: unknown) => console.info("agentbar: ccLogout at sign-out failed", e));
    },
  };
}

/**
 * Sends a status to the platform for `agent` (this agent, or another for a supervisor), naming its
 * first queue where the spec's request names one; signing in goes into each of `queues`.
 */
export async function sendStatus(
  client: PlatformClient,
  o: { agent: string; extn: string; queues: readonly string[]; next: StatusChoice },
): Promise<void> {
  const queue = o.queues[0] ?? "";
  switch (o.next.kind) {
    case "ready":
    case "on-demand":
      return cc.goReady(client, { agent: o.agent, queue, ...(o.next.kind === "on-demand" ? { onDemand: true } : {}) });
    case "break":
      return cc.goBreak(client, { agent: o.agent, reason: o.next.reason, queue });
    case "logged-out":
      return cc.logout(client, { agent: o.agent, queue });
    case "sign-in":
      return signIntoQueues(client, o.agent, o.extn, o.queues);
  }
}

/** ccLogin to each queue in turn: the agent, the extension its calls ring. */
export async function signIntoQueues(
  client: PlatformClient,
  agent: string,
  extn: string,
  queues: readonly string[],
): Promise<void> {
  for (const queue of queues) await cc.login(client, { agent, extn, queue });
}

/** The command a status choice is, as errors and pending states name it. */
export function commandOf(next: StatusChoice): AgentCommand {
  return next.kind === "logged-out" ? "sign-out" : next.kind;
}

/** Whether the agent is in the status chosen, as far as the platform's report tells. */
export function matches(next: StatusChoice, view: AgentView | null): boolean {
  if (!view) return false;
  const kind = statusKind(view.status);
  switch (next.kind) {
    case "ready":
    case "on-demand":
      return kind === next.kind;
    case "break":
      return kind === "break" && view.reason === next.reason;
    case "logged-out":
      return kind === "logged-out";
    case "sign-in":
      return kind !== "logged-out" && kind !== "unknown";
  }
}

/** The status the agent is in, as the status to go back to. */
export function nextOfView(view: AgentView | null): NextStatus {
  switch (statusKind(view?.status ?? "")) {
    case "on-demand":
      return { kind: "on-demand" };
    case "break":
      return { kind: "break", reason: view?.reason ?? "" };
    case "logged-out":
      return { kind: "logged-out" };
    default:
      return { kind: "ready" };
  }
}
