import { supervisionModeOfWord } from "../../shared/supervision-mode";
import { getAgentState, type AgentStateCall, type AgentStateRecord } from "../api/cc";
import type { KeyValueStorage } from "../session";
import type { AgentContext } from "./agent-context";
import { namedQueue, type AgentState, type Supervised } from "./agent-state";
import {
  agentViewOf,
  eventTime,
  sameStatusKind,
  unknownAgent,
  type AgentView,
  type CallCenterEventData,
} from "./agent-status";
import { hasLiveCcCall } from "./cc-call";
import type { EventFeed, EventFeedState } from "./event-feed";
import { StatusSince } from "./status-since";

/**
 * The agent as the platform reports it: status and state from the event feed, the current call and
 * everything events do not carry from `agent_state`, read at a pace that follows the moment (often
 * while a call is being set up, seldom while events flow), and at once after every command.
 */
export interface AgentSync {
  /** Follows the agent of this run and its queues (the store's `number` and `queues`). */
  start(): void;
  stop(): void;
  /** Reads agent_state now (for `run`, the current one by default). */
  refresh(run?: number): Promise<void>;
  /** Reads agent_state after `delay` ms (by default the pace of the moment), then goes on at that pace. */
  schedulePoll(delay?: number): void;
  /** Waits until `check` holds for the store, reading agent_state now and then; false after the time-out. */
  until(check: (s: AgentState) => boolean): Promise<boolean>;
}

export interface PollMs {
  /** With the event feed open, idle. */
  events: number;
  /** With the event feed open, during a call. */
  call: number;
  /** Without events. */
  polling: number;
  /** While a call is being set up. */
  setup: number;
}

export const POLL_MS: PollMs = { events: 30_000, call: 5_000, polling: 3_000, setup: 1_000 };

export interface AgentSyncDeps {
  ctx: AgentContext;
  feed: EventFeed | undefined;
  /** Keeps when each status began, per agent (localStorage). */
  deviceStorage: KeyValueStorage;
  /** After each read of agent_state: the call it showed, and when it was asked for. */
  onRead(platformCall: AgentStateCall | null, askedAt: number): void;
  confirmTimeoutMs: number;
  pollMs: PollMs;
}

export function createAgentSync(deps: AgentSyncDeps): AgentSync {
  const { ctx, pollMs } = deps;
  const { store, now } = ctx;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let statusSince: StatusSince | undefined;
  let listening: (() => void)[] = [];

  /** When a status (with its reason) began, as the toolbar saw it; 0 for no status. */
  const sinceOf = (status: string, reason: string, at: number): number =>
    status && statusSince ? statusSince.of(status, reason, at) : 0;

  const refresh = async (myRun = ctx.run): Promise<void> => {
    const c = ctx.client;
    if (!c || myRun !== ctx.run) return;
    const askedAt = now();
    const queue = namedQueue(store.getState());
    try {
      const rows = await getAgentState(c, queue ? { queue } : {});
      if (myRun !== ctx.run) return;
      const { number, agent: before, tracking } = store.getState();
      // Never another agent's row: without its own the platform does not report this agent, whose
      // status is then unknown.
      const own = rows.find((r) => r.agent_id === number);
      const view = own ? agentViewOf(own) : unknownAgent(number);
      let agent: AgentView;
      if (before && tracking.statusEventAt > askedAt) {
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
      // A row with only `state` shows a command of this agent's taking effect, not its details: the
      // break reason, or On Demand, are then what the agent asked for.
      const asked = store.getState().pending;
      if (own && !own.status && asked && agent.status !== before?.status) {
        const words = askedStatus(asked.command);
        if (words && sameStatusKind(agent.status, words))
          agent = {
            ...agent,
            status: words,
            reason: asked.reason ?? "",
            since: sinceOf(words, asked.reason ?? "", now()),
          };
      }
      const platformCall = own ? (own.call ?? callOfSpecRecord(own)) : null;
      // What the platform tells of a supervisor, unless an event told something newer.
      const told = own?.supervision;
      const supervised =
        before && tracking.statusEventAt > askedAt
          ? store.getState().supervised
          : told
            ? { mode: modeOf(told.mode), by: told.by_name || told.by, callId: platformCall?.uuid ?? "" }
            : null;
      store.setState({ agent, platformCall, supervised });
      deps.onRead(platformCall, askedAt);
    } catch (e) {
      if (myRun === ctx.run) console.info("agentbar: agent_state failed", e instanceof Error ? e.message : e);
    }
  };

  const schedulePoll = (delay?: number) => {
    clearTimeout(pollTimer);
    const s = store.getState();
    if (s.phase !== "on") return;
    // Some changes of a call have no call-center event (a consulted agent answering, a handover):
    // while a call is being set up agent_state is read often, during a call now and then.
    const pc = s.platformCall;
    const settingUp =
      (!!s.dialling && !s.dialling.failed) ||
      s.agent?.callstate === "RINGING" ||
      s.agent?.callstate === "DIALING" ||
      (!!pc?.consult && !pc.consult.answered);
    const inCall = pc !== null || hasLiveCcCall(ctx.calls.getState().calls);
    const wait =
      delay ?? (settingUp ? pollMs.setup : s.feed !== "events" ? pollMs.polling : inCall ? pollMs.call : pollMs.events);
    const myRun = ctx.run;
    pollTimer = setTimeout(() => {
      void refresh(myRun).finally(() => {
        if (myRun === ctx.run) schedulePoll();
      });
    }, wait);
  };

  const until = (check: (s: AgentState) => boolean): Promise<boolean> =>
    new Promise((resolve) => {
      if (check(store.getState())) return resolve(true);
      const myRun = ctx.run;
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
      const limit = setTimeout(() => finish(false), deps.confirmTimeoutMs);
      const unsubscribe = store.subscribe((s) => {
        if (check(s)) finish(true);
      });
      // An immediate refresh, then a few more while no event has told.
      const poll = () => {
        void refresh(myRun).finally(() => {
          // Confirmed (or timed out) while this read was under way: no more reads.
          if (done) return;
          if (myRun !== ctx.run) return finish(false);
          again = setTimeout(poll, (delay = Math.min(delay * 2, 2000)));
        });
      };
      poll();
    });

  /**
   * Events the feed had received when it last opened: it counts as live once it has carried one
   * more. A channel that opens and stays quiet (the spec shows no events on `/ws`) is no reason to
   * read agent_state less often, and the toolbar says that it is updated every few seconds.
   */
  let receivedAtOpen: number | null = null;

  const onAgentEvent = (e: CallCenterEventData) => {
    const s = store.getState();
    if (s.phase !== "on" && s.phase !== "starting") return;
    const agent = s.agent ?? { ...unknownAgent(s.number), since: 0 };
    const tracking = { ...s.tracking, statusEventAt: now() };
    switch (e["CC-Action"]) {
      case "agent-status-change": {
        const status = e["CC-Agent-Status"] ?? agent.status;
        const reason = e["CC-Agent-Break-Reason"] ?? "";
        store.setState({
          agent: { ...agent, status, reason, since: sinceOf(status, reason, eventTime(e, now())) },
          tracking,
        });
        break;
      }
      case "agent-state-change":
        store.setState({ agent: { ...agent, state: e["CC-Agent-State"] ?? agent.state }, tracking });
        break;
      case "agent-supervision": {
        const word = e["CC-Supervision-Mode"] ?? "none";
        const supervised =
          word === "none"
            ? null
            : {
                mode: modeOf(word),
                by: e["CC-Supervisor-Name"] || e["CC-Supervisor"] || "",
                callId: e["CC-Agent-UUID"] ?? "",
              };
        store.setState({ supervised, tracking });
        break;
      }
      case "bridge-agent-start":
      case "bridge-agent-end":
      case "bridge-agent-fail":
        // Who the call is with, its uuid, delays: agent_state has them.
        schedulePoll(0);
        break;
    }
  };

  const onQueueCount = (e: CallCenterEventData) => {
    const s = store.getState();
    const count = Number(e["CC-Count"]);
    if ((s.phase === "on" || s.phase === "starting") && Number.isFinite(count)) {
      store.setState({ queues: s.queues.map((q) => (q.name === e["CC-Queue"] ? { ...q, waiting: count } : q)) });
    }
  };

  const followFeed = (f: EventFeedState) => {
    if (f.status !== "open") receivedAtOpen = null;
    else receivedAtOpen ??= f.received;
    const live = receivedAtOpen !== null && f.received > receivedAtOpen;
    if ((store.getState().feed === "events") === live) return;
    store.setState({ feed: live ? "events" : "polling" });
    // What happened while no event could arrive: read it now. Events flowing: read less often.
    schedulePoll(live ? undefined : 0);
  };

  return {
    start() {
      const { number, queues } = store.getState();
      statusSince = new StatusSince(deps.deviceStorage, number, now);
      const feed = deps.feed;
      if (!feed) return;
      listening = [
        feed.subscribe({ agents: [number] }, onAgentEvent),
        feed.subscribe({ actions: ["members-count"], queues: queues.map((q) => q.name) }, onQueueCount),
        feed.store.subscribe(followFeed),
      ];
      followFeed(feed.store.getState());
    },
    stop() {
      clearTimeout(pollTimer);
      receivedAtOpen = null;
      listening.forEach((stop) => stop());
      listening = [];
      statusSince = undefined;
    },
    refresh,
    schedulePoll,
    until,
  };
}

/**
 * The agent's call from the spec's fields alone, for a platform whose agent_state has no `call`:
 * `agent_uuid` is the callID the cc functions take and `callstate` says whether it is answered,
 * held or in a consultation; who it is with, its kind and its queue are not said ("").
 */
export function callOfSpecRecord(r: AgentStateRecord): AgentStateCall | null {
  if (!r.agent_uuid) return null;
  const callstate = r.callstate.toUpperCase();
  return {
    uuid: r.agent_uuid,
    kind: "",
    direction: "",
    queue: "",
    member_uuid: "",
    customer_uuid: "",
    cid_name: "",
    cid_number: "",
    answered: ["TALKING", "HOLD", "CONSULTING"].includes(callstate),
    held: callstate === "HOLD",
    consult: callstate === "CONSULTING" ? { uuid: "", target: "", answered: false } : null,
  };
}

/** The status a status command asks for, in mod_callcenter's words. */
function askedStatus(command: string): string | undefined {
  return (
    { ready: "Available", "on-demand": "Available (On Demand)", break: "On Break", "sign-out": "Logged Out" } as Record<
      string,
      string
    >
  )[command];
}

/**
 * A supervisor's mode from the platform's word for it (its agent-supervision event and
 * agent_state's `supervision.mode`): the one place the app reads those words. A word that names
 * no mode is kept as it was said, so that the agent still sees that a supervisor is on the call.
 */
function modeOf(word: string): Supervised["mode"] {
  return supervisionModeOfWord(word) ?? word;
}
