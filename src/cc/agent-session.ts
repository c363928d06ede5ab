import { createStore, type StoreApi } from "zustand/vanilla";
import { PlatformError, getUser, getUserQueueNames, type PlatformClient } from "../api";
import { cc, getAgentState, type AgentStateCall, type AgentTarget } from "../api/cc";
import { isLive, parseDialInput, type Call, type CallId, type Phone } from "../softphone";
import { agentViewOf, eventTime, namesAgent, sameStatusKind, statusKind, unknownAgent, type AgentView, type CallCenterEventData } from "./agent-status";
import { commandError, commandErrorOf, type AgentCommand, type CommandError } from "./command-error";
import type { EventFeed } from "./event-feed";
import { CC, ccLabelsOf, decideIncomingCall, type Offering } from "./queue-calls";
import { StatusSince } from "./status-since";
import { type KeyValueStorage, type PhoneSession, type SessionState, type SessionStore, type SettingsStore } from "../session";
import { WrapUpStorage, dispositionFor, type CallDisposition, type NextStatus, type WrapUp } from "./wrap-up";

/**
 * - `off`: nobody signed in;
 * - `waiting-for-phone`: signed in; the queues are joined once the phone is registered, so that
 *   no offer rings at a phone that is not there;
 * - `starting`: loading the agent's settings and queues, signing into them;
 * - `on`: working; `agent` is what the platform reports;
 * - `no-queues`: the user is in no queue (not an agent): no call-center controls;
 * - `failed`: the queues could not be joined; `problem` says why, `retry()` tries again.
 */
export type AgentPhase = "off" | "waiting-for-phone" | "starting" | "on" | "no-queues" | "failed";

export interface QueueView {
  name: string;
  /** Callers waiting, from `members-count` events; null until one arrives. */
  waiting: number | null;
}

/** Another agent of the agent's queues: a transfer or consultation target. */
export interface Colleague {
  number: string;
  name: string;
  status: string;
  callstate: string;
  /** The extension its calls ring (where it signed in). */
  extension: string;
}

/** Why a click-to-dial ended before the agent's phone rang: it did not ring in time, or the call ended first. */
export type DialFailure = "no-ring" | "ended";

/** Where a call goes: an agent, a queue, or an outside number. */
export type CallTarget = { kind: "agent"; number: string } | { kind: "queue"; name: string } | { kind: "number"; number: string };

/** A phone call seen with the call center's eyes: its labels and what the platform says of it now. */
export interface CcCall {
  action: string;
  callId: string;
  queue: string;
  joinedAt: number;
  /** Held by the platform (ccHold): the customer hears music. */
  held: boolean;
  /** A consultation in progress (ccConsult). */
  consult: { target: string; answered: boolean } | null;
  /** Who the agent is talking to, as the platform sees it (after a handover it is not who SIP says). */
  party: { name: string; number: string } | null;
  callstate: string;
}

export interface AgentSessionState {
  phase: AgentPhase;
  problem: string;
  /** The agent number (the extension). */
  number: string;
  queues: QueueView[];
  agent: AgentView | null;
  /** `events` while the event channel is open; `polling` otherwise (agent_state every few seconds). */
  feed: "events" | "polling";
  /** The agent's current call as the platform reports it. */
  platformCall: AgentStateCall | null;
  /** The status command under way, until the platform confirms it. */
  pending: { command: AgentCommand; reason?: string } | null;
  error: CommandError | null;
  /** The agent's wrap_up_time, seconds (the spec's default 10 until read). */
  wrapUpSec: number;
  wrapUp: WrapUp | null;
  /** The status chosen for when the current call ends (during a call); during wrap-up it is `wrapUp.next`. */
  next: NextStatus | null;
  colleagues: Colleague[];
  /** The last outcome and notes recorded after a call (the history shows them). */
  lastDisposition: CallDisposition | null;
  /**
   * A click-to-dial until the agent's phone rings: under way (the platform calls the phone first;
   * `callId` is its leg, once the platform said it), or why it failed before the phone rang.
   */
  dialling: { number: string; callId: string; at: number; failed: DialFailure | null } | null;

  /**
   * Ready, Ready on demand, Break with a reason, signing out of or into the queues. Applied at once
   * when the agent is free; during a call or wrap-up it becomes the next status. Resolves when the
   * platform confirms it; rejects (and sets `error`) when it refuses or never confirms.
   */
  choose(next: NextStatus | { kind: "sign-in" }): Promise<void>;
  /** Cancels a next status chosen during a call. */
  clearNext(): void;
  hold(callId: CallId): Promise<void>;
  resume(callId: CallId): Promise<void>;
  transfer(callId: CallId, target: CallTarget): Promise<void>;
  consult(callId: CallId, target: CallTarget): Promise<void>;
  cancelConsult(callId: CallId): Promise<void>;
  threeWay(callId: CallId, target: CallTarget): Promise<void>;
  /** Click-to-dial (ccDial): the agent's phone rings first and answers by itself, then the number. */
  dial(number: string): Promise<void>;
  /**
   * Ends a click-to-dial before the phone rings (ccKill of the platform's leg; before ccDial has
   * answered, whatever it brings is ended), or puts its failure away.
   */
  cancelDial(): Promise<void>;
  setDisposition(disposition: string): void;
  setNotes(notes: string): void;
  /** Adds `seconds` to the wrap-up; past wrap_up_time the agent is held On Break meanwhile. */
  extendWrapUp(seconds?: number): Promise<void>;
  /** Ends the wrap-up now and applies its next status. */
  finishWrapUp(): Promise<void>;
  refresh(): Promise<void>;
  loadColleagues(): Promise<void>;
  retry(): void;
  dismissError(): void;
}

export type AgentSessionStore = StoreApi<AgentSessionState>;

/** What the agent session uses of the phone session: its calls, its registration, and its two hooks. */
export type AgentPhone = Pick<PhoneSession, "setCallCenterHook" | "setDialer"> & { phone: Pick<Phone, "callsStore" | "phoneStore"> };

export interface AgentSessionDeps {
  session: SessionStore;
  phoneSession: AgentPhone;
  settings: SettingsStore;
  /** localStorage: the wrap-up, the dispositions and when the status began. */
  deviceStorage: KeyValueStorage;
  /** The platform's events, shared with the page's other consumers; without it the session polls. */
  feed?: EventFeed;
  now?: () => number;
  /** How long a command waits for the platform to confirm it. */
  confirmTimeoutMs?: number;
  /** agent_state polling: with the event channel open (idle, in a call), without it, and while a call is being set up. */
  pollMs?: { events: number; call: number; polling: number; setup: number };
}

export interface AgentSession {
  store: AgentSessionStore;
  /** What was recorded after a call (outcome, notes), by the uuid of either of its legs. */
  disposition(uuid: string): CallDisposition | undefined;
  dispose(): void;
}

/** The break reason of extended after-call work: the platform shows why no call is offered. */
export const WRAP_UP_BREAK_REASON = "After-call work";
export const DEFAULT_EXTEND_SEC = 30;

const POLL_MS = { events: 30_000, call: 5_000, polling: 3_000, setup: 1_000 };
/** How long a click-to-dial waits for the platform's leg to reach the phone. */
const DIAL_WAIT_MS = 30_000;

/**
 * The agent at work: after sign-in and registration it loads the agent's queues and signs into
 * them, follows status, state and the current call from the event channel (agent_state polling
 * when no events come, and at once after every command), labels queue calls, runs after-call
 * work, and carries out the call-center commands of the toolbar.
 */
export function createAgentSession(deps: AgentSessionDeps): AgentSession {
  const { session, phoneSession, settings } = deps;
  const phone = phoneSession.phone;
  const now = deps.now ?? Date.now;
  const confirmTimeoutMs = deps.confirmTimeoutMs ?? 10_000;
  const pollMs = deps.pollMs ?? POLL_MS;

  /** Bumped at every start and stop: answers for an older run are dropped. */
  let run = 0;
  let client: PlatformClient | null = null;
  let user: SessionState["user"] = null;
  /** The feed's listeners of this run. */
  let listening: (() => void)[] = [];
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let wrapUpTimer: ReturnType<typeof setTimeout> | undefined;
  let storage: WrapUpStorage | undefined;
  let statusSince: StatusSince | undefined;
  let offering: Offering | undefined;
  /** When the last status event arrived: a poll answer older than it does not overwrite it. */
  let lastStatusEventAt = 0;
  /** When a read of agent_state last showed the click-to-dial's leg (0: not yet). */
  let dialSeenAt = 0;
  /** Click-to-dials cancelled while their ccDial was under way (their `at`): what the request brings is ended. */
  const cancelledDials = new Set<number>();
  /** Legs of cancelled click-to-dials: the phone turns them away; each is ended once (turned away or killed). */
  const cancelledLegs = new Set<string>();
  /** Phone calls the platform reported as a queue's customer handed over to this agent: they end in after-call work. */
  const handedOver = new Set<CallId>();

  const initial = {
    phase: "off" as AgentPhase,
    problem: "",
    number: "",
    queues: [] as QueueView[],
    agent: null,
    feed: "polling" as const,
    platformCall: null,
    pending: null,
    error: null,
    wrapUpSec: 10,
    wrapUp: null,
    next: null,
    colleagues: [] as Colleague[],
    lastDisposition: null,
    dialling: null,
  };

  const store = createStore<AgentSessionState>()((set, get) => ({
    ...initial,

    async choose(next) {
      const s = get();
      if (s.phase !== "on") throw commandError("not-working", next.kind === "logged-out" ? "sign-out" : next.kind, now());
      if (next.kind !== "sign-in" && s.wrapUp) {
        keepWrapUp({ ...s.wrapUp, next });
        await holdOffersBack();
      } else if (next.kind !== "sign-in" && hasLiveCcCall()) set({ next });
      else await applyStatus(next);
    },

    clearNext() {
      set({ next: null });
    },

    hold: (callId) => callCommand("hold", callId, (c, id) => cc.hold(c, { callID: id }), (pc) => pc?.held === true),
    resume: (callId) => callCommand("resume", callId, (c, id) => cc.unhold(c, { callID: id }), (pc) => pc?.held === false),
    transfer: (callId, target) => callCommand("transfer", callId, (c, id) => cc.transfer(c, { callID: id, destNumber: destinationOf(target) })),
    consult: (callId, target) =>
      callCommand("consult", callId, (c, id) => cc.consult(c, { agent: get().number, callID: id, ...agentTargetOf("consult", target, get().colleagues, now()) }), (pc) => !!pc?.consult),
    cancelConsult: (callId) => callCommand("cancel-consult", callId, (c, id) => cc.cancelConsult(c, { callID: id }), (pc) => !pc?.consult),
    threeWay: (callId, target) => callCommand("three-way", callId, (c, id) => cc.threeWay(c, { agent: get().number, callID: id, ...agentTargetOf("three-way", target, get().colleagues, now()) })),

    async dial(number) {
      const c = requireClient("dial");
      const myRun = run;
      const at = now();
      dialSeenAt = 0;
      set({ error: null, dialling: { number, callId: "", at, failed: null } });
      try {
        const { callID } = await cc.dial(c, { agent: get().number, extn: user?.extension ?? get().number, destNumber: number });
        if (myRun !== run) return;
        if (cancelledDials.delete(at)) return endCancelledLeg(c, callID);
        // The platform's leg may reach the phone before its answer does: then the call card has taken over.
        const d = get().dialling;
        if (d?.at === at && callID) set({ dialling: { ...d, callId: callID } });
        schedulePoll(0);
      } catch (e) {
        // Cancelled meanwhile: nothing was dialled, as the agent wanted.
        if (cancelledDials.delete(at)) return;
        if (get().dialling?.at === at) set({ dialling: null });
        throw fail("dial", e);
      }
    },

    async cancelDial() {
      const d = get().dialling;
      if (!d) return;
      set({ dialling: null });
      if (d.failed) return;
      // The platform has not said which leg it rings yet: the request's outcome is ended when it comes.
      if (!d.callId) {
        cancelledDials.add(d.at);
        return;
      }
      const c = requireClient("cancel-dial");
      try {
        await cc.kill(c, { destUUID: d.callId });
      } catch (e) {
        throw fail("cancel-dial", e);
      }
    },

    setDisposition(disposition) {
      const w = get().wrapUp;
      if (w) keepWrapUp({ ...w, disposition });
    },

    setNotes(notes) {
      const w = get().wrapUp;
      if (w) keepWrapUp({ ...w, notes });
    },

    async extendWrapUp(seconds = DEFAULT_EXTEND_SEC) {
      const w = get().wrapUp;
      if (!w) return;
      const base = Math.max(w.endsAt, now());
      keepWrapUp({ ...w, endsAt: base + seconds * 1000, extendedSec: w.extendedSec + seconds });
      armWrapUpTimer();
      // The platform offers again once wrap_up_time has passed: a break holds offers back meanwhile.
      const kind = statusKind(get().agent?.status ?? "");
      if (!w.heldOnBreak && (kind === "ready" || kind === "on-demand")) {
        await applyStatus({ kind: "break", reason: WRAP_UP_BREAK_REASON });
        const now2 = get().wrapUp;
        if (now2?.id === w.id) keepWrapUp({ ...now2, heldOnBreak: true });
      }
    },

    finishWrapUp: () => finishWrapUp(),

    refresh: () => refresh(run),

    async loadColleagues() {
      const c = client;
      const { queues, number } = get();
      if (!c) return;
      const rows = (await Promise.all(queues.map((q) => getAgentState(c, { queue: q.name }).catch(() => [])))).flat();
      const seen = new Map<string, Colleague>();
      for (const r of rows) {
        if (r.agent_id && r.agent_id !== number && !seen.has(r.agent_id)) {
          seen.set(r.agent_id, { number: r.agent_id, name: r.name, status: agentViewOf(r).status, callstate: r.callstate, extension: r.extn });
        }
      }
      set({ colleagues: [...seen.values()].sort((a, b) => a.number.localeCompare(b.number)) });
    },

    retry() {
      if (get().phase === "failed") void start(run);
    },

    dismissError() {
      set({ error: null });
    },
  }));

  // ---- errors ----

  /** Records a failure for the UI and gives it back to the caller. */
  const fail = (command: AgentCommand, e: unknown): CommandError => {
    const error = commandErrorOf(command, e, now());
    if (e instanceof PlatformError) console.info(`agentbar: ${command} refused: ${e.endpoint} -> ${e.code} ${e.message}`);
    store.setState({ error, pending: null });
    return error;
  };

  const requireClient = (command: AgentCommand): PlatformClient => {
    if (!client || store.getState().phase !== "on") throw commandError("not-working", command, now());
    return client;
  };

  // ---- status commands ----

  /**
   * The queue named where the spec's requests name one (status commands, agent_state): the agent's
   * first. A status is the agent's in every queue (mod_callcenter's is per agent), so one command
   * changes it everywhere; agent_state of any of its queues has the agent's row.
   */
  const namedQueue = () => store.getState().queues[0]?.name ?? "";

  const matches = (next: NextStatus | { kind: "sign-in" }, view: AgentView | null): boolean => {
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
  };

  /** Waits until `check` holds for the store, refreshing now and then; false after the time-out. */
  const confirmed = (check: (s: AgentSessionState) => boolean): Promise<boolean> =>
    new Promise((resolve) => {
      if (check(store.getState())) return resolve(true);
      const myRun = run;
      let delay = 250;
      let again: ReturnType<typeof setTimeout> | undefined;
      let done = false;
      const finish = (ok: boolean) => {
        done = true;
        clearTimeout(limit);
        clearTimeout(again);
        unsubscribe();
        resolve(ok);
      };
      const limit = setTimeout(() => finish(false), confirmTimeoutMs);
      const unsubscribe = store.subscribe((s) => {
        if (check(s)) finish(true);
      });
      // An immediate refresh, then a few more while no event has told.
      const poll = () => {
        void refresh(myRun).finally(() => {
          // Confirmed (or timed out) while this read was under way: no more reads.
          if (done) return;
          if (myRun !== run) return finish(false);
          again = setTimeout(poll, (delay = Math.min(delay * 2, 2000)));
        });
      };
      poll();
    });

  const applyStatus = async (next: NextStatus | { kind: "sign-in" }): Promise<void> => {
    const command: AgentCommand = next.kind === "logged-out" ? "sign-out" : next.kind;
    const c = requireClient(command);
    const { number, queues } = store.getState();
    const queue = namedQueue();
    store.setState({ pending: { command, ...(next.kind === "break" ? { reason: next.reason } : {}) }, error: null });
    try {
      switch (next.kind) {
        case "ready":
        case "on-demand":
          await cc.goReady(c, { agent: number, queue, ...(next.kind === "on-demand" ? { onDemand: true } : {}) });
          break;
        case "break":
          await cc.goBreak(c, { agent: number, reason: next.reason, queue });
          break;
        case "logged-out":
          await cc.logout(c, { agent: number, queue });
          break;
        case "sign-in":
          for (const q of queues) await cc.login(c, { agent: number, extn: user?.extension ?? number, queue: q.name });
          break;
      }
    } catch (e) {
      throw fail(command, e);
    }
    if (!(await confirmed((s) => matches(next, s.agent)))) {
      throw fail(command, commandError("not-confirmed", command, now()));
    }
    store.setState({ pending: null });
  };

  // ---- call commands ----

  /** The platform's callID of a phone call: its label, else the platform's current call when it is the only one. */
  const callIdOf = (callId: CallId): string => {
    const call = phone.callsStore.getState().calls.find((c) => c.id === callId);
    if (!call) return "";
    const labelled = ccLabelsOf(call)?.callId;
    if (labelled) return labelled;
    const live = phone.callsStore.getState().calls.filter(isLive);
    return live.length === 1 && live[0]!.id === callId ? (store.getState().platformCall?.uuid ?? "") : "";
  };

  const callCommand = async (
    command: AgentCommand,
    callId: CallId,
    send: (c: PlatformClient, platformCallId: string) => Promise<void>,
    done?: (pc: AgentStateCall | null) => boolean,
  ): Promise<void> => {
    const c = requireClient(command);
    const id = callIdOf(callId);
    if (!id) throw fail(command, commandError("unknown-call", command, now()));
    store.setState({ error: null });
    try {
      await send(c, id);
    } catch (e) {
      throw fail(command, e);
    }
    if (done) {
      if (!(await confirmed((s) => done(s.platformCall?.uuid === id ? s.platformCall : null)))) throw fail(command, commandError("not-confirmed", command, now()));
    } else await refresh(run);
  };

  // ---- what the platform reports ----

  const refresh = async (myRun: number): Promise<void> => {
    const c = client;
    if (!c || myRun !== run) return;
    const askedAt = now();
    const queue = namedQueue();
    try {
      const rows = await getAgentState(c, queue ? { queue } : {});
      if (myRun !== run) return;
      const number = store.getState().number;
      // Never another agent's row: without its own the platform does not report this agent, whose
      // status is then unknown.
      const own = rows.find((r) => r.agent_id === number);
      const view = own ? agentViewOf(own) : unknownAgent(number);
      const before = store.getState().agent;
      let agent: AgentView;
      if (before && lastStatusEventAt > askedAt) {
        // An event newer than this answer has the last word on status and state.
        agent = { ...view, status: before.status, reason: before.reason, state: before.state, since: before.since };
      } else if (before && own && !own.status && sameStatusKind(view.status, before.status)) {
        // A row with only XSwitch's `state` (READY, UNREADY) tells neither Available from Available
        // (On Demand) nor a break's reason: while it agrees with the status known, that one stays.
        agent = { ...view, status: before.status, reason: before.reason, since: before.since };
      } else {
        // A status this answer shows for the first time began when it was seen.
        agent = { ...view, since: sinceOf(view.status, view.reason, now()) };
      }
      const platformCall = own?.call ?? null;
      store.setState({ agent, platformCall });
      followDial(platformCall, askedAt);
      if (platformCall?.kind === "handover" && platformCall.queue) noteHandover(platformCall);
    } catch (e) {
      if (myRun === run) console.info("agentbar: agent_state failed", e instanceof Error ? e.message : e);
    }
  };

  /** When a status (with its reason) began, as the toolbar saw it; 0 for no status. */
  const sinceOf = (status: string, reason: string, at: number): number => (status && statusSince ? statusSince.of(status, reason, at) : 0);

  // ---- click-to-dial until the phone rings ----

  /** A click-to-dial that failed before the phone rang says why; a leg the platform still rings is ended. */
  const dialFailed = (failed: DialFailure) => {
    const d = store.getState().dialling;
    if (!d) return;
    store.setState({ dialling: { ...d, failed } });
    if (failed === "no-ring" && d.callId && client) {
      void cc.kill(client, { destUUID: d.callId }).catch((e: unknown) => console.info("agentbar: ending a click-to-dial that never rang failed", e));
    }
  };

  /** The leg of a click-to-dial cancelled before ccDial answered is ended, unless the phone turned it away already. */
  const endCancelledLeg = (c: PlatformClient, callId: string | undefined) => {
    if (!callId || cancelledLegs.has(callId)) return;
    cancelledLegs.add(callId);
    void cc.kill(c, { destUUID: callId }).catch((e: unknown) => console.info("agentbar: ending a cancelled click-to-dial failed", e));
  };

  /**
   * Whether a leg reaching the phone is a cancelled click-to-dial's, to be turned away (and then
   * not killed): a known leg, or a click-to-dial leg arriving while a cancelled ccDial has not
   * answered and no other click-to-dial waits for its own leg (the leg may come before the answer).
   */
  const turnsAwayCancelledDial = (context: Record<string, string> | undefined): boolean => {
    if (context?.[CC.action] !== "dial") return false;
    const leg = context[CC.callId] ?? "";
    if (cancelledLegs.has(leg)) return true;
    const d = store.getState().dialling;
    const otherWaiting = !!d && !d.failed && !d.callId;
    if (!cancelledDials.size || otherWaiting) return false;
    if (leg) cancelledLegs.add(leg);
    return true;
  };

  /** The platform's leg of a click-to-dial, once seen in agent_state, gone before the phone rang: the call ended. */
  const followDial = (platformCall: AgentStateCall | null, askedAt: number) => {
    const d = store.getState().dialling;
    if (!d?.callId || d.failed) return;
    if (platformCall?.uuid === d.callId) dialSeenAt = Math.max(dialSeenAt, askedAt);
    else if (dialSeenAt && askedAt > dialSeenAt) dialFailed("ended");
  };

  /** The phone call a handed-over customer is on, when the platform's call is one of the phone's. */
  const noteHandover = (platformCall: AgentStateCall) => {
    const live = phone.callsStore.getState().calls.filter(isLive);
    const call = live.find((c) => ccCallOf(c, store.getState(), live)?.callId === platformCall.uuid);
    if (call) handedOver.add(call.id);
  };

  /**
   * bridge-agent-start on a leg that was no queue offer (a consultation, a transfer, an intercept):
   * a queue's customer handed over to this agent. The call ends in after-call work, and the card
   * names the customer now: a short handover may end before agent_state is read again.
   */
  const takeHandover = (e: CallCenterEventData) => {
    const leg = e["CC-Agent-UUID"] ?? "";
    const customer = e["CC-Member-Session-UUID"] ?? "";
    const call = phone.callsStore.getState().calls.find((c) => {
      const labels = ccLabelsOf(c);
      return isLive(c) && !!labels && labels.action !== "queue" && ((!!leg && labels.callId === leg) || (!!customer && c.context[CC.customerUuid] === customer));
    });
    if (!call) return;
    handedOver.add(call.id);
    store.setState({
      platformCall: {
        uuid: leg,
        kind: "handover",
        direction: "inbound",
        queue: e["CC-Queue"] ?? "",
        member_uuid: e["CC-Member-UUID"] ?? "",
        customer_uuid: customer,
        cid_name: e["CC-Member-CID-Name"] ?? "",
        cid_number: e["CC-Member-CID-Number"] ?? "",
        answered: true,
        held: false,
        consult: null,
      },
    });
  };

  const schedulePoll = (delay?: number) => {
    clearTimeout(pollTimer);
    let s = store.getState();
    if (s.phase !== "on") return;
    if (s.dialling && !s.dialling.failed && now() - s.dialling.at > DIAL_WAIT_MS) {
      dialFailed("no-ring");
      s = store.getState();
    }
    // Some changes of a call have no call-center event (a consulted agent answering, a handover):
    // while a call is being set up agent_state is read often, during a call now and then.
    const pc = s.platformCall;
    const settingUp =
      (!!s.dialling && !s.dialling.failed) || s.agent?.callstate === "RINGING" || s.agent?.callstate === "DIALING" || (!!pc?.consult && !pc.consult.answered);
    const inCall = pc !== null || hasLiveCcCall();
    const wait = delay ?? (settingUp ? pollMs.setup : s.feed !== "events" ? pollMs.polling : inCall ? pollMs.call : pollMs.events);
    const myRun = run;
    pollTimer = setTimeout(() => {
      void refresh(myRun).finally(() => {
        if (myRun === run) schedulePoll();
      });
    }, wait);
  };

  const onEvent = (e: CallCenterEventData) => {
    const s = store.getState();
    if (s.phase !== "on" && s.phase !== "starting") return;
    const action = e["CC-Action"];
    const queue = e["CC-Queue"];
    if (action === "members-count" && queue) {
      const count = Number(e["CC-Count"]);
      if (Number.isFinite(count)) store.setState({ queues: s.queues.map((q) => (q.name === queue ? { ...q, waiting: count } : q)) });
      return;
    }
    if (!namesAgent(e, s.number)) return;
    const agent = s.agent ?? { ...unknownAgent(s.number), since: 0 };
    switch (action) {
      case "agent-status-change": {
        lastStatusEventAt = now();
        const status = e["CC-Agent-Status"] ?? agent.status;
        const reason = e["CC-Agent-Break-Reason"] ?? "";
        store.setState({ agent: { ...agent, status, reason, since: sinceOf(status, reason, eventTime(e, now())) } });
        break;
      }
      case "agent-state-change":
        lastStatusEventAt = now();
        store.setState({ agent: { ...agent, state: e["CC-Agent-State"] ?? agent.state } });
        break;
      case "agent-offering":
        offering = {
          queue: queue ?? "",
          memberUuid: e["CC-Member-UUID"] ?? "",
          customerUuid: e["CC-Member-Session-UUID"] ?? "",
          cidName: e["CC-Member-CID-Name"] ?? "",
          cidNumber: e["CC-Member-CID-Number"] ?? "",
          joinedAt: Number(e["CC-Member-Joined-Time"] ?? 0) * 1000 || 0,
          at: now(),
        };
        break;
      case "bridge-agent-start":
        takeHandover(e);
        schedulePoll(0);
        break;
      case "bridge-agent-end":
      case "bridge-agent-fail":
        // Who the call is with, its uuid, delays: agent_state has them.
        schedulePoll(0);
        break;
    }
  };

  // ---- after-call work ----

  const keepWrapUp = (w: WrapUp | null) => {
    storage?.keep(w);
    store.setState({ wrapUp: w });
  };

  const armWrapUpTimer = () => {
    clearTimeout(wrapUpTimer);
    const w = store.getState().wrapUp;
    if (!w) return;
    wrapUpTimer = setTimeout(() => void finishWrapUp().catch(() => {}), Math.max(0, w.endsAt - now()));
  };

  /** After-call work of a call that ended, seen as the call center saw it while it was live. */
  const startWrapUp = (call: Call, view: CcCall | undefined) => {
    const s = store.getState();
    if (!storage) return;
    const endedAt = call.endedAt ?? now();
    const party = view?.party ?? call.remote;
    const w: WrapUp = {
      id: view?.callId || call.id,
      customerUuid: call.context[CC.customerUuid] ?? "",
      queue: view?.queue ?? "",
      customerName: party.name ?? "",
      customerNumber: party.number ?? "",
      callEndedAt: endedAt,
      endsAt: endedAt + s.wrapUpSec * 1000,
      wrapUpSec: s.wrapUpSec,
      extendedSec: 0,
      heldOnBreak: false,
      disposition: "",
      notes: "",
      // Unless the agent chose otherwise during the call, the status stays what it was.
      next: s.next ?? nextOfView(s.agent),
    };
    store.setState({ next: null });
    keepWrapUp(w);
    armWrapUpTimer();
    void holdOffersBack().catch(() => {});
  };

  /**
   * A break or sign-out chosen for after the call applies on the platform at once, while after-call
   * work goes on: the platform's wrap_up_time may end before the countdown, and an offer would ring
   * meanwhile. Ready waits for the end of after-call work.
   */
  const holdOffersBack = async (): Promise<void> => {
    const w = store.getState().wrapUp;
    if (!w || (w.next.kind !== "break" && w.next.kind !== "logged-out") || matches(w.next, store.getState().agent)) return;
    // The chosen status now holds offers back: Extend needs no break of its own.
    keepWrapUp({ ...w, heldOnBreak: false });
    await applyStatus(w.next);
  };

  const finishWrapUp = async (): Promise<void> => {
    clearTimeout(wrapUpTimer);
    const w = store.getState().wrapUp;
    if (!w || !storage) return;
    const record: CallDisposition = {
      id: w.id,
      customerUuid: w.customerUuid,
      queue: w.queue,
      customerName: w.customerName,
      customerNumber: w.customerNumber,
      disposition: w.disposition,
      notes: w.notes,
      endedAt: w.callEndedAt,
      savedAt: now(),
    };
    storage.record(record);
    store.setState({ lastDisposition: record });
    keepWrapUp(null);
    const view = store.getState().agent;
    if (w.heldOnBreak || !matches(w.next, view)) await applyStatus(w.next);
  };

  /**
   * A queue call (or a queue's customer handed over by another agent) that was answered and is over
   * starts after-call work; the next status of a call without it applies now.
   */
  const onCalls = (calls: readonly Call[], before: readonly Call[]) => {
    if (store.getState().phase !== "on") return;
    for (const c of calls) {
      const old = before.find((o) => o.id === c.id);
      if (c.state !== "ended" || !old || old.state === "ended") continue;
      const labels = ccLabelsOf(c);
      const s = store.getState();
      const handover = handedOver.delete(c.id);
      if ((labels?.action === "queue" || handover) && c.answeredAt && s.wrapUpSec > 0) startWrapUp(c, ccCallOf(old, s, before.filter(isLive)));
      else if (labels && s.next && !hasLiveCcCall()) {
        const next = s.next;
        store.setState({ next: null });
        void applyStatus(next).catch(() => {});
      }
    }
    // The platform's leg reached the phone: the click-to-dial card takes over.
    const dialling = store.getState().dialling;
    if (dialling && calls.some((c) => isLive(c) && ccLabelsOf(c)?.action === "dial")) store.setState({ dialling: null });
    schedulePoll(0);
  };

  const hasLiveCcCall = () => phone.callsStore.getState().calls.some((c) => isLive(c) && !!ccLabelsOf(c));

  // ---- start and stop ----

  const start = async (myRun: number) => {
    const c = client;
    const u = user;
    if (!c || !u || myRun !== run) return;
    store.setState({ phase: "starting", problem: "", number: u.extension });
    try {
      // The agent's wrap_up_time; a platform that does not show the user record leaves the spec's default.
      const [info, queueNames] = await Promise.all([getUser(c, u.id).catch(() => null), getUserQueueNames(c, u.id)]);
      if (myRun !== run) return;
      const wrapUpSec = Number(info?.agent_info.wrap_up_time ?? 10);
      store.setState({ wrapUpSec: Number.isFinite(wrapUpSec) && wrapUpSec >= 0 ? wrapUpSec : 10 });
      if (!queueNames.length || !u.extension) {
        store.setState({ phase: "no-queues" });
        return;
      }
      store.setState({ queues: queueNames.map((name) => ({ name, waiting: null })) });
      for (const queue of queueNames) await cc.login(c, { agent: u.extension, extn: u.extension, queue });
      if (myRun !== run) return;
    } catch (e) {
      if (myRun !== run) return;
      console.warn("agentbar: joining the queues failed", e);
      store.setState({ phase: "failed", problem: e instanceof Error ? e.message : String(e) });
      return;
    }
    storage = new WrapUpStorage(deps.deviceStorage, u.extension);
    statusSince = new StatusSince(deps.deviceStorage, u.extension, now);
    const kept = storage.active();
    store.setState({ phase: "on", wrapUp: kept ?? null });
    listen(u.extension, store.getState().queues.map((q) => q.name));
    await refresh(myRun);
    if (myRun !== run) return;
    if (kept) armWrapUpTimer();
    schedulePoll();
  };

  /** Events of this agent and of its queues' callers; while none flow, agent_state is read more often. */
  const listen = (number: string, queues: readonly string[]) => {
    const feed = deps.feed;
    if (!feed) return;
    const follow = (open: boolean) => {
      if ((store.getState().feed === "events") === open) return;
      store.setState({ feed: open ? "events" : "polling" });
      // What happened while no event could arrive: read it now.
      schedulePoll(0);
    };
    listening = [
      feed.subscribe({ agents: [number] }, onEvent),
      feed.subscribe({ actions: ["members-count"], queues }, onEvent),
      feed.store.subscribe((f) => follow(f.status === "open")),
    ];
    if (feed.store.getState().status === "open") store.setState({ feed: "events" });
  };

  const stop = () => {
    run++;
    clearTimeout(pollTimer);
    clearTimeout(wrapUpTimer);
    listening.forEach((stop) => stop());
    listening = [];
    storage = undefined;
    statusSince = undefined;
    offering = undefined;
    dialSeenAt = 0;
    cancelledDials.clear();
    cancelledLegs.clear();
    handedOver.clear();
    store.setState({ ...initial });
  };

  const onSession = (s: SessionState) => {
    // Signing out still has the session: the sign-out step leaves the queues with it.
    const signedIn = (s.status === "signed-in" || s.status === "signing-out") && !!s.user && !!s.client;
    if (signedIn && s.client !== client) {
      stop();
      client = s.client;
      user = s.user;
      store.setState({ phase: "waiting-for-phone", number: s.user!.extension });
      startWhenRegistered();
    } else if (!signedIn && client) {
      client = null;
      user = null;
      stop();
    }
  };

  const startWhenRegistered = () => {
    if (store.getState().phase === "waiting-for-phone" && phone.phoneStore.getState().registration.status === "registered") void start(run);
  };

  phoneSession.setCallCenterHook((incoming) => {
    if (store.getState().phase !== "on") return undefined;
    const queueAutoAnswerSec = settings.getState().queueAutoAnswerSec;
    const decision = decideIncomingCall(incoming, { offering, now: now(), queueAutoAnswerSec: queueAutoAnswerSec < 0 ? null : queueAutoAnswerSec });
    // The agent cancelled this click-to-dial before the platform answered: its leg is declined.
    return decision && turnsAwayCancelledDial(decision.context) ? { ...decision, reject: 603 } : decision;
  });

  // Calls typed in the dial pad go through the call center while the agent works in it.
  phoneSession.setDialer(async (input) => {
    const s = store.getState();
    if (settings.getState().outboundCalls !== "call-center" || s.phase !== "on" || statusKind(s.agent?.status ?? "") === "logged-out") return false;
    const parsed = parseDialInput(input);
    if (!parsed.ok || parsed.target.kind !== "number") return false;
    await store.getState().dial(parsed.target.number);
    return true;
  });

  const unsubscribe = [
    session.subscribe(onSession),
    phone.phoneStore.subscribe(startWhenRegistered),
    phone.callsStore.subscribe((s, before) => onCalls(s.calls, before.calls)),
  ];
  // Before the app signs out, the agent leaves the queues (no offers to a phone that is gone).
  const removeSignOutStep = session.getState().addSignOutStep(async () => {
    const c = client;
    const s = store.getState();
    if (c && s.phase === "on" && statusKind(s.agent?.status ?? "") !== "logged-out") {
      await cc.logout(c, { agent: s.number, queue: namedQueue() }).catch((e: unknown) => console.info("agentbar: ccLogout at sign-out failed", e));
    }
  });
  onSession(session.getState());

  return {
    store,
    disposition: (uuid) => dispositionFor(deps.deviceStorage, uuid),
    dispose() {
      unsubscribe.forEach((u) => u());
      removeSignOutStep();
      phoneSession.setCallCenterHook(undefined);
      phoneSession.setDialer(undefined);
      stop();
    },
  };
}

function nextOfView(view: AgentView | null): NextStatus {
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

function destinationOf(target: CallTarget): string {
  return target.kind === "queue" ? target.name : target.number;
}

/** `destAgent` and `destExtn`: an agent and the extension its calls ring (its number when not known), or PSTN and the number. */
function agentTargetOf(command: AgentCommand, target: CallTarget, colleagues: readonly Colleague[], at: number): AgentTarget {
  if (target.kind === "agent") return { destAgent: target.number, destExtn: colleagues.find((c) => c.number === target.number)?.extension || target.number };
  if (target.kind === "number") return { destAgent: "PSTN", destExtn: target.number };
  // A queue cannot be consulted or joined to a call.
  throw commandError("invalid-target", command, at);
}

/** A phone call seen with the call center's eyes, or undefined for calls of the phone alone. */
export function ccCallOf(call: Call, s: Pick<AgentSessionState, "platformCall" | "agent">, liveCalls: readonly Call[]): CcCall | undefined {
  const labels = ccLabelsOf(call);
  const pc = s.platformCall;
  const onlyCall = liveCalls.length === 1 && liveCalls[0]!.id === call.id;
  const platform = pc && (labels?.callId ? pc.uuid === labels.callId : onlyCall && pc.kind !== "direct") ? pc : null;
  if (!labels && !platform) return undefined;
  return {
    action: labels?.action ?? platform?.kind ?? "",
    callId: labels?.callId || platform?.uuid || "",
    queue: labels?.queue || platform?.queue || "",
    joinedAt: labels?.joinedAt ?? 0,
    held: platform?.held ?? false,
    consult: platform?.consult ? { target: platform.consult.target, answered: platform.consult.answered } : null,
    party: platform && (platform.cid_name || platform.cid_number) ? { name: platform.cid_name, number: platform.cid_number } : null,
    callstate: platform ? (s.agent?.callstate ?? "") : "",
  };
}
