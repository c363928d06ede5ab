import { PlatformError, type PlatformClient } from "../api";
import type { SessionUser, SettingsStore } from "../session";
import type { CallsStore } from "../softphone";
import type { AgentStore } from "./agent-state";
import { commandError, commandErrorOf, type AgentCommand, type CommandError } from "./command-error";

/**
 * What the parts of an agent session share: its store, the phone's calls, the settings, the
 * clock, and the platform of the current run. A run goes from sign-in to sign-out (or the end of
 * the session); every answer that comes back for an older run is dropped.
 */
export interface AgentContext {
  readonly store: AgentStore;
  readonly calls: CallsStore;
  readonly settings: SettingsStore;
  now(): number;
  /** The current run; bumped at every start and stop. */
  readonly run: number;
  /** The signed-in session's REST client and user (null while nobody is). */
  readonly client: PlatformClient | null;
  readonly user: SessionUser | null;
  /** The client while the agent works in the call center; a `not-working` error otherwise. */
  requireClient(command: AgentCommand): PlatformClient;
  /** Records a failure for the UI (the store's `error`) and gives it back, to be thrown. */
  fail(command: AgentCommand, e: unknown): CommandError;
}

/** The context with its run controls, for the agent session that owns it. */
export interface AgentRuns extends AgentContext {
  /** Ends the run (what is under way for it is dropped) and begins the next, for this client and user (null: nobody signed in). */
  begin(client: PlatformClient | null, user: SessionUser | null): void;
}

export function createAgentContext(o: {
  store: AgentStore;
  calls: CallsStore;
  settings: SettingsStore;
  now: () => number;
}): AgentRuns {
  let run = 0;
  let client: PlatformClient | null = null;
  let user: SessionUser | null = null;
  const { store, now } = o;
  return {
    store,
    calls: o.calls,
    settings: o.settings,
    now,
    get run() {
      return run;
    },
    get client() {
      return client;
    },
    get user() {
      return user;
    },
    requireClient(command) {
      if (!client || store.getState().phase !== "on") throw commandError("not-working", command, now());
      return client;
    },
    fail(command, e) {
      const error = commandErrorOf(command, e, now());
      if (e instanceof PlatformError)
        console.info(`agentbar: ${command} refused: ${e.endpoint} -> ${e.code} ${e.message}`);
      store.setState({ error: error.info, pending: null });
      return error;
    },
    begin(c, u) {
      run++;
      client = c;
      user = u;
    },
  };
}
