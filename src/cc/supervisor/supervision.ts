import { createStore, type StoreApi } from "zustand/vanilla";
import { EAVESDROP_KEYS, type SupervisionMode } from "../../../shared/supervision-mode";
import { cc, PlatformError, type PlatformClient } from "../../api";
import type { SessionStore } from "../../session";
import type { Call, CallId, Phone } from "../../softphone";
import { statusKind } from "../agent-status";
import { commandError, commandErrorOf, type CommandErrorInfo } from "../command-error";
import { PARTY, SUPERVISION } from "../cc-call";
import { CC } from "../queue-calls";
import { matches, sendStatus, type StatusChoice } from "../status-commands";
import { actionLogOf, type ActionLog, type SupervisorCommand, type SupervisorLogEntry } from "./action-log";
import type { WallboardAgent } from "./wallboard";
import type { WallboardStore } from "./wallboard-store";

/**
 * What a supervisor does to agents and their calls: listen in, whisper to the agent, barge in,
 * take the customer, and set an agent's status. The platform's functions where the spec has them
 * (ccMonitor, ccThreeWay, ccIntercept, ccGoReady/ccGoBreak/ccLogout), and where it has none
 * (whisper, switching modes) the keys of FreeSWITCH's eavesdrop on the supervisor's own leg
 * (EAVESDROP_KEYS: `2` speaks to the agent, `1` to the customer, `3` to both, `0` listens again)
 * — so switching never drops the call.
 */

/** What the supervisor's leg does now (shared/supervision-mode.ts): listen, speak to the agent only, to the customer only, to both. */
export type { SupervisionMode } from "../../../shared/supervision-mode";

export type { SupervisorCommand, SupervisorLogEntry } from "./action-log";

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
  /** The platform's uuid of that leg, when known (its call record). */
  leg: string;
  since: number;
  /** Whether the platform tells the agent (ccMonitor's answer); null: the platform does not say. */
  agentTold: boolean | null;
}

export interface SupervisionState {
  current: Supervising | null;
  pending: { command: SupervisorCommand; agent: string } | null;
  error: CommandErrorInfo<SupervisorCommand> | null;
  /** The action log (action-log.ts): newest first, bounded, kept across reloads. */
  log: readonly SupervisorLogEntry[];
}

export type SupervisionStore = StoreApi<SupervisionState>;

export type SupervisorPhone = Pick<Phone, "callsStore" | "sendDtmf" | "hangup" | "decorate" | "warmMicrophone">;

export interface SupervisionDeps {
  session: SessionStore;
  phone: SupervisorPhone;
  wallboard: WallboardStore;
  /** Where actions are recorded (default: the session's log in localStorage). */
  log?: ActionLog;
  now?: () => number;
  /** How long the supervisor's leg may take to reach and be answered by the phone. */
  legTimeoutMs?: number;
  /** How long a status change may take to show on the board. */
  confirmTimeoutMs?: number;
}

export interface SupervisorActions {
  monitor(agent: string): Promise<void>;
  whisper(agent: string): Promise<void>;
  /** Speaks to the customer only (the eavesdrop key `1`): the agent does not hear it. */
  whisperCustomer(agent: string): Promise<void>;
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

/**
 * The platform's refusal of a request that wants its agent signed in: the local platform's words
 * ("agent 1010 is not signed in; ..."), "not logged in", or the spec's answer to ccDial then.
 */
const refusedAsSignedOut = (e: unknown) =>
  e instanceof PlatformError &&
  e.code === 500 &&
  (/\bnot (signed|logged) in\b/i.test(e.message) || e.message === "can not find group?");

const liveCallOf = (row: WallboardAgent | undefined) => (row?.call?.uuid && row.call.answeredAt ? row.call : null);

export function createSupervision(deps: SupervisionDeps): Supervision {
  const now = deps.now ?? Date.now;
  const legTimeoutMs = deps.legTimeoutMs ?? 20_000;
  const confirmTimeoutMs = deps.confirmTimeoutMs ?? 10_000;
  const actionLog = deps.log ?? actionLogOf(deps.session);
  const store = createStore<SupervisionState>()(() => ({
    current: null,
    pending: null,
    error: null,
    log: actionLog.store.getState().entries,
  }));
  const unsubscribeLog = actionLog.store.subscribe((s) => store.setState({ log: s.entries }));
  const { phone } = deps;

  const me = () => {
    const s = deps.session.getState();
    if (s.status !== "signed-in" || !s.client || !s.user) return null;
    return { client: s.client, user: s.user };
  };

  /** Runs a command: pending while it runs, logged (with the leg it used) and kept as the error when it fails. */
  const perform = async (
    command: SupervisorCommand,
    agent: string,
    detail: string,
    work: (o: { client: PlatformClient; ext: string; row: WallboardAgent | undefined }) => Promise<string | void>,
  ) => {
    const row = deps.wallboard.getState().board.agents.get(agent);
    const agentName = row?.name ?? "";
    store.setState({ pending: { command, agent }, error: null });
    try {
      const who = me();
      if (!who) throw commandError("not-working", command, now());
      if (!who.user.extension)
        throw commandError("not-available", command, now(), "you have no extension to listen on");
      const leg = await work({ client: who.client, ext: who.user.extension, row });
      actionLog.add({ agent, agentName, command, detail, outcome: "done", ...(leg ? { leg } : {}) });
      store.setState({ pending: null });
    } catch (e) {
      const error = commandErrorOf(command, e, now());
      actionLog.add({ agent, agentName, command, detail, outcome: "failed", error: error.message });
      store.setState({ pending: null, error: error.info });
      throw error;
    }
  };

  /**
   * The spec's ccMonitor (and ccIntercept) want the monitoring party signed in. A supervisor who
   * is not (the usual case) is signed in to the call's queue for the request alone and signed out
   * as soon as the platform answered it, whatever the answer: the leg it made does not depend on
   * the sign-in, and a supervisor left signed in would count as one of the queue's agents (and
   * could be offered its callers). One the board shows signed in (also an agent) stays as he is;
   * the board can be behind (a read's answer older than his last sign-out), so when the platform
   * answers that he is not signed in, he is signed in for the request after all, and it is asked
   * once more.
   */
  const whileSignedIn = async <T>(
    client: PlatformClient,
    ext: string,
    row: WallboardAgent | undefined,
    request: () => Promise<T>,
  ): Promise<T> => {
    const mine = deps.wallboard.getState().board.agents.get(ext);
    const kind = mine ? statusKind(mine.status) : "logged-out";
    const queue = row?.call?.queue || row?.queues[0] || mine?.queues[0] || "";
    if (!queue) return request();
    if (kind !== "logged-out" && kind !== "unknown") {
      try {
        return await request();
      } catch (e) {
        if (!refusedAsSignedOut(e)) throw e;
      }
    }
    await cc.login(client, { agent: ext, extn: ext, queue });
    try {
      return await request();
    } finally {
      await cc.logout(client, { agent: ext, queue }).catch(() => undefined);
    }
  };

  /** The phone call carrying the supervisor's new leg: named by its headers, else the first one the platform answered by itself since `since`. */
  const awaitLeg = (
    callUuid: string,
    legUuid: string | undefined,
    since: number,
    command: SupervisorCommand,
  ): Promise<Call> =>
    new Promise((resolve, reject) => {
      const find = (calls: readonly Call[]) =>
        calls.find(
          (c) =>
            c.direction === "inbound" &&
            c.state !== "ended" &&
            (c.context[CC.callId] === legUuid || c.context[CC.customerUuid] === callUuid),
        ) ??
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
        reject(commandError("not-confirmed", command, now(), "your phone did not answer the supervision leg"));
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

  /** Writes what the leg does into the phone call, for the supervisor's call card. */
  const label = (id: CallId, mode: string, agentName?: string) => {
    try {
      phone.decorate(id, { [SUPERVISION.mode]: mode, ...(agentName ? { [SUPERVISION.agent]: agentName } : {}) });
    } catch {
      // The call has gone meanwhile: nothing to label.
    }
  };

  const nameParty = (id: CallId, name: string, number: string) => {
    try {
      phone.decorate(id, { [PARTY.name]: name, [PARTY.number]: number });
    } catch {
      // The call has gone meanwhile.
    }
  };

  const switchMode = async (mode: SupervisionMode) => {
    const current = store.getState().current;
    if (!current?.phoneCall) return;
    // By SIP INFO: a key in the audio could be lost in what the supervisor is saying.
    if (current.mode !== mode) await phone.sendDtmf(current.phoneCall, EAVESDROP_KEYS[mode], "info");
    store.setState((s) => ({ current: s.current && { ...s.current, mode } }));
    label(current.phoneCall, mode);
    return current.leg;
  };

  const stopCurrent = async () => {
    const current = store.getState().current;
    if (!current) return;
    store.setState({ current: null });
    if (current.phoneCall) await phone.hangup(current.phoneCall).catch(() => undefined);
  };

  const startSupervising = async (
    agent: string,
    mode: SupervisionMode,
    o: { client: PlatformClient; ext: string; row: WallboardAgent | undefined },
  ) => {
    const call = liveCallOf(o.row);
    if (!call) throw commandError("unknown-call", mode, now());
    if (store.getState().current) await stopCurrent();
    const since = now();
    // The leg comes and is answered by itself: its microphone opens while the platform makes it
    // (and is stopped if the leg does not come).
    const giveUpMicrophone = phone.warmMicrophone(legTimeoutMs);
    const { made, leg } = await (async () => {
      // Barge in: the agent's call, with the supervisor's own phone as the third party (it answers by itself).
      const made =
        mode === "barge"
          ? await cc.threeWay(o.client, { agent, callID: call.uuid, destAgent: o.ext, destExtn: o.ext })
          : await whileSignedIn(o.client, o.ext, o.row, () =>
              cc.monitor(o.client, { agent: o.ext, extn: o.ext, destAgent: agent, destUUID: call.uuid }),
            );
      return { made, leg: await awaitLeg(call.uuid, made.uuid, since, mode) };
    })().catch((e: unknown) => {
      giveUpMicrophone();
      throw e;
    });
    const agentName = o.row?.name ?? "";
    const legUuid = made.uuid ?? leg.context[CC.callId] ?? "";
    store.setState({
      current: {
        agent,
        agentName,
        callUuid: call.uuid,
        customer: call.number,
        mode: "monitor",
        phoneCall: leg.id,
        leg: legUuid,
        since: now(),
        agentTold: made.agentTold ?? null,
      },
    });
    label(leg.id, "monitor", agentName || agent);
    follow(leg);
    if (mode !== "barge" && mode !== "monitor") await switchMode(mode);
    else {
      store.setState((s) => ({ current: s.current && { ...s.current, mode } }));
      label(leg.id, mode);
    }
    return legUuid;
  };

  const supervise = (mode: SupervisionMode) => (agent: string) => {
    const row = deps.wallboard.getState().board.agents.get(agent);
    return perform(mode, agent, row?.call?.number ?? "", async (o) => {
      const current = store.getState().current;
      // Same call: the keys switch the mode; nobody is dropped.
      if (current && current.agent === agent && current.callUuid === liveCallOf(o.row)?.uuid && current.phoneCall)
        return switchMode(mode);
      return startSupervising(agent, mode, o);
    });
  };

  const actions: SupervisorActions = {
    monitor: supervise("monitor"),
    whisper: supervise("whisper"),
    whisperCustomer: supervise("whisper-customer"),
    barge: supervise("barge"),
    intercept: (agent) => {
      const row = deps.wallboard.getState().board.agents.get(agent);
      return perform("intercept", agent, row?.call?.number ?? "", async (o) => {
        const call = liveCallOf(o.row);
        if (!call) throw commandError("unknown-call", "intercept", now());
        const current = store.getState().current;
        const since = now();
        await whileSignedIn(o.client, o.ext, o.row, () =>
          cc.intercept(o.client, { agent: o.ext, extn: o.ext, destAgent: agent, destUUID: call.uuid }),
        );
        // Monitoring this call: the platform takes the customer on that leg; else the phone rings first.
        let leg = { id: current?.phoneCall ?? "", uuid: current?.leg ?? "" };
        if (!(current?.callUuid === call.uuid && current.phoneCall)) {
          const rang = await awaitLeg(call.uuid, undefined, since, "intercept");
          leg = { id: rang.id, uuid: rang.context[CC.callId] ?? "" };
        }
        label(leg.id, "intercept", o.row?.name || agent);
        // The leg's SIP still names the agent (it was the agent's call the leg joined): the card
        // and its Call back name the customer the supervisor now talks to.
        nameParty(leg.id, call.name, call.number);
        // The supervisor's leg is now a call with the customer, no longer a supervision.
        store.setState({ current: null });
        return leg.uuid;
      });
    },
    stop: async () => {
      const current = store.getState().current;
      if (!current) return;
      await perform("stop", current.agent, current.customer, async () => {
        await stopCurrent();
        return current.leg;
      });
    },
    setAgentStatus: (agent, next) =>
      perform("agent-status", agent, next.kind === "break" ? `break: ${next.reason}` : next.kind, async (o) => {
        if (!o.row) throw commandError("unknown-call", "agent-status", now());
        await sendStatus(o.client, { agent, extn: o.row.extension || agent, queues: o.row.queues, next });
        // Done when the board shows it (an event or a read), not when the request was accepted.
        await new Promise<void>((resolve, reject) => {
          const shown = () => {
            const row = deps.wallboard.getState().board.agents.get(agent);
            return (
              !!row &&
              matches(next, {
                number: agent,
                status: row.status,
                state: row.state,
                callstate: row.callstate,
                reason: row.reason,
                since: row.statusSince,
              })
            );
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
      unsubscribeLog();
      store.setState({ current: null, pending: null });
    },
  };
}
