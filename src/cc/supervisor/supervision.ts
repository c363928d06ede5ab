import { createStore, type StoreApi } from "zustand/vanilla";
import { cc, type PlatformClient } from "../../api";
import type { SessionStore } from "../../session";
import type { Call, CallId, Phone } from "../../softphone";
import { statusKind } from "../agent-status";
import { commandError, commandErrorOf, type CommandError } from "../command-error";
import { CC } from "../queue-calls";
import { matches, sendStatus, type StatusChoice } from "../status-commands";
import type { WallboardAgent } from "./wallboard";
import type { WallboardStore } from "./wallboard-store";

/**
 * What a supervisor does to agents and their calls: listen in, whisper to the agent, barge in,
 * take the customer, and set an agent's status. The platform's functions where the spec has them
 * (ccMonitor, ccThreeWay, ccIntercept, ccGoReady/ccGoBreak/ccLogout), and where it has none
 * (whisper, switching modes) the keys of FreeSWITCH's eavesdrop on the supervisor's own leg:
 * `2` speaks to the agent, `3` to both, `0` listens again — so switching never drops the call.
 */

/** What the supervisor's leg does now. */
export type SupervisionMode = "monitor" | "whisper" | "barge";

export type SupervisorCommand = SupervisionMode | "intercept" | "stop" | "agent-status";

/** The digit of FreeSWITCH's eavesdrop that puts a listening leg in each mode. */
export const MODE_DIGITS: Record<SupervisionMode, string> = { monitor: "0", whisper: "2", barge: "3" };

export interface Supervising {
  /** The agent whose call it is. */
  agent: string;
  agentName: string;
  /** The agent's call (its callID). */
  callUuid: string;
  /** Who the agent talks to. */
  customer: string;
  mode: SupervisionMode;
  /** The supervisor's phone call carrying it, once it arrived. */
  phoneCall: CallId | null;
  since: number;
}

/** One line of the supervisor's action log: who did what to whom, when, and how it went. */
export interface SupervisorLogEntry {
  at: number;
  /** The supervisor (login). */
  by: string;
  agent: string;
  agentName: string;
  command: SupervisorCommand;
  /** The status asked for, the customer of the call: what the line is about. */
  detail: string;
  outcome: "done" | "failed";
  error?: string;
}

export interface SupervisionState {
  current: Supervising | null;
  pending: { command: SupervisorCommand; agent: string } | null;
  error: CommandError<SupervisorCommand> | null;
  /** Newest first, at most LOG_SIZE. */
  log: readonly SupervisorLogEntry[];
}

export const LOG_SIZE = 200;

export type SupervisionStore = StoreApi<SupervisionState>;

export type SupervisorPhone = Pick<Phone, "callsStore" | "sendDtmf" | "hangup">;

export interface SupervisionDeps {
  session: SessionStore;
  phone: SupervisorPhone;
  wallboard: WallboardStore;
  now?: () => number;
  /** How long the supervisor's leg may take to reach and be answered by the phone. */
  legTimeoutMs?: number;
  /** How long a status change may take to show on the board. */
  confirmTimeoutMs?: number;
}

export interface SupervisorActions {
  monitor(agent: string): Promise<void>;
  whisper(agent: string): Promise<void>;
  barge(agent: string): Promise<void>;
  intercept(agent: string): Promise<void>;
  /** Hangs up the supervisor's leg: back to watching. */
  stop(): Promise<void>;
  setAgentStatus(agent: string, next: StatusChoice): Promise<void>;
  dismissError(): void;
}

export interface Supervision {
  store: SupervisionStore;
  actions: SupervisorActions;
  dispose(): void;
}

const liveCallOf = (row: WallboardAgent | undefined) => (row?.call?.uuid && row.call.answeredAt ? row.call : null);

export function createSupervision(deps: SupervisionDeps): Supervision {
  const now = deps.now ?? Date.now;
  const legTimeoutMs = deps.legTimeoutMs ?? 20_000;
  const confirmTimeoutMs = deps.confirmTimeoutMs ?? 10_000;
  const store = createStore<SupervisionState>()(() => ({ current: null, pending: null, error: null, log: [] }));
  const { phone } = deps;

  const me = () => {
    const s = deps.session.getState();
    if (s.status !== "signed-in" || !s.client || !s.user) return null;
    return { client: s.client, user: s.user };
  };

  const log = (entry: Omit<SupervisorLogEntry, "at" | "by">) => {
    const by = deps.session.getState().user?.login ?? "";
    store.setState((s) => ({ log: [{ at: now(), by, ...entry }, ...s.log].slice(0, LOG_SIZE) }));
  };

  /** Runs a command: pending while it runs, logged and kept as the error when it fails. */
  const perform = async (command: SupervisorCommand, agent: string, detail: string, work: (o: { client: PlatformClient; ext: string; row: WallboardAgent | undefined }) => Promise<void>) => {
    const row = deps.wallboard.getState().board.agents.get(agent);
    const agentName = row?.name ?? "";
    store.setState({ pending: { command, agent }, error: null });
    try {
      const who = me();
      if (!who) throw commandError("not-working", command, now());
      if (!who.user.extension) throw { ...commandError("not-available", command, now()), message: "you have no extension to listen on" };
      await work({ client: who.client, ext: who.user.extension, row });
      log({ agent, agentName, command, detail, outcome: "done" });
      store.setState({ pending: null });
    } catch (e) {
      const error = commandErrorOf(command, e, now());
      log({ agent, agentName, command, detail, outcome: "failed", error: error.message });
      store.setState({ pending: null, error });
      throw error;
    }
  };

  /** The monitoring party must be signed in (the spec's ccMonitor): in the call's queue, else the agent's first. */
  const signedIn = async (client: PlatformClient, ext: string, row: WallboardAgent | undefined) => {
    const mine = deps.wallboard.getState().board.agents.get(ext);
    if (mine && statusKind(mine.status) !== "logged-out" && statusKind(mine.status) !== "unknown") return;
    const queue = row?.call?.queue || row?.queues[0] || mine?.queues[0] || "";
    if (queue) await cc.login(client, { agent: ext, extn: ext, queue });
  };

  /** The phone call carrying the supervisor's new leg: named by its headers, else the first one the platform answered by itself since `since`. */
  const awaitLeg = (callUuid: string, legUuid: string | undefined, since: number, command: SupervisorCommand): Promise<Call> =>
    new Promise((resolve, reject) => {
      const find = (calls: readonly Call[]) =>
        calls.find((c) => c.direction === "inbound" && c.state !== "ended" && (c.context[CC.callId] === legUuid || c.context[CC.customerUuid] === callUuid)) ??
        calls.find((c) => c.direction === "inbound" && c.state !== "ended" && c.startedAt >= since && c.autoAnswer);
      const check = () => {
        const call = find(phone.callsStore.getState().calls);
        if (call && call.state === "active") {
          done();
          resolve(call);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject({ ...commandError("not-confirmed", command, now()), message: "your phone did not answer the supervision leg" });
      }, legTimeoutMs);
      const unsubscribe = phone.callsStore.subscribe(check);
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
      };
      check();
    });

  /** Follows the supervisor's leg: when it ends, supervising ends. */
  const follow = (call: Call) => {
    const unsubscribe = phone.callsStore.subscribe((s) => {
      const c = s.calls.find((x) => x.id === call.id);
      if (c && c.state !== "ended") return;
      unsubscribe();
      if (store.getState().current?.phoneCall === call.id) store.setState({ current: null });
    });
  };

  const startSupervising = async (agent: string, mode: SupervisionMode, o: { client: PlatformClient; ext: string; row: WallboardAgent | undefined }) => {
    const call = liveCallOf(o.row);
    if (!call) throw commandError("unknown-call", mode, now());
    if (store.getState().current) await stopCurrent();
    await signedIn(o.client, o.ext, o.row);
    const since = now();
    let legUuid: string | undefined;
    if (mode === "barge") {
      // The agent's call, with the supervisor's own phone as the third party: it answers by itself.
      await cc.threeWay(o.client, { agent, callID: call.uuid, destAgent: o.ext, destExtn: o.ext });
    } else {
      legUuid = (await cc.monitor(o.client, { agent: o.ext, extn: o.ext, destAgent: agent, destUUID: call.uuid })).uuid;
    }
    const leg = await awaitLeg(call.uuid, legUuid, since, mode);
    store.setState({ current: { agent, agentName: o.row?.name ?? "", callUuid: call.uuid, customer: call.number, mode: "monitor", phoneCall: leg.id, since: now() } });
    follow(leg);
    if (mode !== "barge" && mode !== "monitor") await switchMode(mode);
    else store.setState((s) => ({ current: s.current && { ...s.current, mode } }));
  };

  const switchMode = async (mode: SupervisionMode) => {
    const current = store.getState().current;
    if (!current?.phoneCall) return;
    // By SIP INFO: a key in the audio could be lost in what the supervisor is saying.
    if (current.mode !== mode) await phone.sendDtmf(current.phoneCall, MODE_DIGITS[mode], "info");
    store.setState((s) => ({ current: s.current && { ...s.current, mode } }));
  };

  const stopCurrent = async () => {
    const current = store.getState().current;
    if (!current) return;
    store.setState({ current: null });
    if (current.phoneCall) await phone.hangup(current.phoneCall).catch(() => undefined);
  };

  const supervise = (mode: SupervisionMode) => (agent: string) => {
    const row = deps.wallboard.getState().board.agents.get(agent);
    return perform(mode, agent, row?.call?.number ?? "", async (o) => {
      const current = store.getState().current;
      // Same call: the keys switch the mode; nobody is dropped.
      if (current && current.agent === agent && current.callUuid === liveCallOf(o.row)?.uuid && current.phoneCall) await switchMode(mode);
      else await startSupervising(agent, mode, o);
    });
  };

  const actions: SupervisorActions = {
    monitor: supervise("monitor"),
    whisper: supervise("whisper"),
    barge: supervise("barge"),
    intercept: (agent) => {
      const row = deps.wallboard.getState().board.agents.get(agent);
      return perform("intercept", agent, row?.call?.number ?? "", async (o) => {
        const call = liveCallOf(o.row);
        if (!call) throw commandError("unknown-call", "intercept", now());
        await signedIn(o.client, o.ext, o.row);
        const current = store.getState().current;
        const since = now();
        await cc.intercept(o.client, { agent: o.ext, extn: o.ext, destAgent: agent, destUUID: call.uuid });
        // Monitoring this call: the platform takes the customer on that leg; else the phone rings first.
        if (!(current?.callUuid === call.uuid && current.phoneCall)) await awaitLeg(call.uuid, undefined, since, "intercept");
        // The supervisor's leg is now a call with the customer, no longer a supervision.
        store.setState({ current: null });
      });
    },
    stop: async () => {
      const current = store.getState().current;
      if (!current) return;
      await perform("stop", current.agent, current.customer, stopCurrent);
    },
    setAgentStatus: (agent, next) =>
      perform("agent-status", agent, next.kind === "break" ? `break: ${next.reason}` : next.kind, async (o) => {
        if (!o.row) throw commandError("unknown-call", "agent-status", now());
        await sendStatus(o.client, { agent, extn: o.row.extension || agent, queues: o.row.queues, next });
        // Done when the board shows it (an event or a read), not when the request was accepted.
        await new Promise<void>((resolve, reject) => {
          const shown = () => {
            const row = deps.wallboard.getState().board.agents.get(agent);
            return !!row && matches(next, { number: agent, status: row.status, state: row.state, callstate: row.callstate, reason: row.reason, since: row.statusSince });
          };
          if (shown()) return resolve();
          const timer = setTimeout(() => {
            unsubscribe();
            reject(commandError("not-confirmed", "agent-status", now()));
          }, confirmTimeoutMs);
          const unsubscribe = deps.wallboard.subscribe(() => {
            if (!shown()) return;
            clearTimeout(timer);
            unsubscribe();
            resolve();
          });
        });
      }),
    dismissError: () => store.setState({ error: null }),
  };

  return {
    store,
    actions,
    dispose() {
      store.setState({ current: null, pending: null });
    },
  };
}
