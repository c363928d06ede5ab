import { createStore, type StoreApi } from "zustand/vanilla";
import type { SupervisionMode } from "../../shared/supervision-mode";
import type { AgentStateCall } from "../api/cc";
import type { CallId } from "../softphone";
import type { AgentView } from "./agent-status";
import type { AgentCommand, CommandErrorInfo } from "./command-error";
import type { Offering } from "./queue-calls";

/**
 * The agent at work, as plain data: what every surface reads (the toolbar, a host page, another
 * tab of the same agent), serialisable as it is. Changes come from the agent session's parts;
 * surfaces change it only through commands (`commands.ts`).
 */
export interface AgentState {
  phase: AgentPhase;
  /** Why the queues could not be joined (phase `failed`), in the platform's words. */
  problem: string;
  /** The agent number (the extension). */
  number: string;
  queues: readonly QueueView[];
  agent: AgentView | null;
  /** `events` while the event feed is open; `polling` otherwise (agent_state every few seconds). */
  feed: "events" | "polling";
  /** The agent's current call as the platform reports it. */
  platformCall: AgentStateCall | null;
  /**
   * A supervisor on the agent's call, where the platform tells agents (a local-platform addition,
   * off unless the platform is set to): null when nobody is, or the platform does not say.
   */
  supervised: Supervised | null;
  /** The status command under way, until the platform confirms it. */
  pending: { command: AgentCommand; reason?: string } | null;
  error: CommandErrorInfo | null;
  /** The agent's wrap_up_time, seconds (the spec's default 10 until read). */
  wrapUpSec: number;
  wrapUp: WrapUp | null;
  /** The status chosen for when the current call ends (during a call); during wrap-up it is `wrapUp.next`. */
  next: NextStatus | null;
  colleagues: readonly Colleague[];
  /** The last outcome and notes recorded after a call (the history shows them). */
  lastDisposition: CallDisposition | null;
  /** Notes typed during calls, by conversation (`conversationOf`), until after-call work takes them (call-notes.ts). */
  callNotes: Readonly<Record<string, string>>;
  /** The caller's earlier calls, by call (caller-story.ts): read as the call rings. */
  callerStories: Readonly<Record<string, CallerStory>>;
  /** The agent's own day since local midnight (my-day.ts). */
  day: MyDay;
  /**
   * After Done before the platform's wrap_up_time was over: when the platform lets the next offer
   * come (ms since epoch; 0: no wait). Nothing in the spec lets an agent end that wait sooner.
   */
  nextOfferAt: number;
  /** A click-to-dial until the agent's phone rings (the platform calls the phone first). */
  dialling: Dialling | null;
  /** Whether calls can reach this page's phone, and what was done when they could not (phone-watch.ts). */
  phoneWatch: PhoneWatch;
  /** What the session keeps track of between the platform's reports; surfaces need not read it. */
  tracking: AgentTracking;
}

/**
 * The page's watch over its own phone:
 * - `trouble`: `lost`, the registration has been gone longer than a short grace; `asleep`, the
 *   browser froze the page (seen on the way in, and by another tab); null while calls can ring here;
 * - `breakSetAt`: when the watch set the agent On Break for the current trouble (0: it did not,
 *   or the platform refused); it does so once for each trouble;
 * - `woke`: the page slept and the watch sent the break as it went to sleep (`earlier`: the agent
 *   was found On Break "Phone unreachable" as this page started, after a reload or from another
 *   tab): said until the agent goes Ready or dismisses it.
 */
export interface PhoneWatch {
  trouble: "lost" | "asleep" | null;
  breakSetAt: number;
  woke: { at: number; earlier?: true } | null;
  /** The watch is the phone's tab's, shown in another tab of the agent (tab-mirror.ts). */
  elsewhere?: true;
}

/**
 * - `off`: nobody signed in;
 * - `waiting-for-phone`: signed in; the queues are joined once the phone is registered, so that
 *   no offer rings at a phone that is not there;
 * - `starting`: loading the agent's settings and queues, signing into them;
 * - `on`: working; `agent` is what the platform reports;
 * - `no-queues`: the user is in no queue (not an agent): no call-center controls;
 * - `failed`: the queues could not be joined; `problem` says why, `retry` tries again.
 */
export type AgentPhase = "off" | "waiting-for-phone" | "starting" | "on" | "no-queues" | "failed";

export interface QueueView {
  name: string;
  /** Callers waiting, from `members-count` events; null until one arrives. */
  waiting: number | null;
}

/** What a supervisor does on the agent's call, as the platform tells the agent. */
export interface Supervised {
  /**
   * The supervisor's leg's mode (`monitor`, `whisper` to the agent, `whisper-customer`, `barge`:
   * shared/supervision-mode.ts, read from the platform's words in agent-sync.ts); a word of the
   * platform's that names none of them is kept as it was said.
   */
  mode: SupervisionMode | (string & {});
  /** The supervisor's name (else its number). */
  by: string;
  /** The agent's call it is on (its callID); "" when not said. */
  callId: string;
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

/**
 * A click-to-dial under way (the platform calls the phone first; `callId` is its leg, once the
 * platform said it), or why it failed before the phone rang.
 */
export interface Dialling {
  number: string;
  callId: string;
  at: number;
  failed: DialFailure | null;
}

/** The status to take when after-call work ends (or, without wrap-up, when the call ends). */
export type NextStatus =
  { kind: "ready" } | { kind: "on-demand" } | { kind: "break"; reason: string } | { kind: "logged-out" };

/**
 * After-call work, until the agent presses Done (or the maximum of the settings). mod_callcenter
 * has no wrap-up state or event: `wrap_up_time` only keeps the next offer back, so the toolbar
 * holds offers back itself past it (`after-call-work.ts`), and keeps it all in localStorage on
 * every change (`wrap-up-storage.ts`).
 */
export interface WrapUp {
  /** The call's key: the agent leg's uuid (the platform's callID, the call record's uuid), else the phone's call id. */
  id: string;
  /** The customer's channel uuid, the other record of the same call. */
  customerUuid: string;
  queue: string;
  customerName: string;
  customerNumber: string;
  callEndedAt: number;
  /** When the platform's wrap_up_time ends (it offers again from then unless the agent is held), ms since epoch. */
  platformEndsAt: number;
  /** When it ends by itself (the settings' maximum, with Extend), ms since epoch; 0: only with Done. */
  endsAt: number;
  /** The agent's wrap_up_time, seconds. */
  wrapUpSec: number;
  /** Seconds added with Extend. */
  extendedSec: number;
  /** The agent was put On Break ("After-call work") as wrap_up_time ended, so that no offer comes meanwhile. */
  heldOnBreak: boolean;
  disposition: string;
  notes: string;
  next: NextStatus;
}

/** What was recorded about a call: the platform has no place for it, so it stays here, per call. */
/** Time in one status (a break with its reason) today. */
export interface StatusTime {
  status: string;
  reason: string;
  ms: number;
}

/** The agent's own day: calls from the platform's records, statuses as this browser saw them. */
export interface MyDay {
  records: "loading" | "ready" | "unavailable";
  /** Conversations answered today, and their mean talk time (seconds; null: none). */
  calls: number;
  handleSec: number | null;
  /** The day's midnight (ms) the status times count from; 0 until a status is seen. */
  statusFrom: number;
  /** Statuses that ended today; the current one runs from `current.since`. */
  statusTimes: readonly StatusTime[];
  current: { status: string; reason: string; since: number } | null;
}

/** A caller's earlier calls with this agent, as far as the platform's records show them. */
export interface CallerStory {
  number: string;
  /** `slow`: still reading after a moment; `unavailable`: the platform gave no records. */
  status: "loading" | "slow" | "ready" | "unavailable";
  /** Earlier conversations found (`more`: there may be more than the records read). */
  count: number;
  more: boolean;
  /** The newest of them: when, whether it was answered, its kept outcome and notes. */
  last: { at: number; answered: boolean; disposition: string; notes: string } | null;
}

export interface CallDisposition {
  id: string;
  customerUuid: string;
  queue: string;
  customerName: string;
  customerNumber: string;
  disposition: string;
  notes: string;
  endedAt: number;
  savedAt: number;
}

export interface AgentTracking {
  /** mod_callcenter's last `agent-offering`, kept a few seconds to label the INVITE that follows. */
  offering: Offering | null;
  /** When the last status event arrived: an agent_state answer asked for before it does not overwrite it. */
  statusEventAt: number;
  /** Phone calls the platform reported as a queue's customer handed over to this agent: they end in after-call work. */
  handedOver: readonly CallId[];
  /** When a read of agent_state last showed the click-to-dial's leg (0: not yet). */
  dialSeenAt: number;
  /** Click-to-dials cancelled while their ccDial was under way (their `at`): what the request brings is ended. */
  cancelledDials: readonly number[];
  /** Legs of cancelled click-to-dials: the phone turns them away; each is ended once (turned away or killed). */
  cancelledLegs: readonly string[];
}

export type AgentStore = StoreApi<AgentState>;

export function initialAgentState(): AgentState {
  return {
    phase: "off",
    problem: "",
    number: "",
    queues: [],
    agent: null,
    feed: "polling",
    platformCall: null,
    supervised: null,
    pending: null,
    error: null,
    wrapUpSec: 10,
    wrapUp: null,
    next: null,
    colleagues: [],
    lastDisposition: null,
    callNotes: {},
    callerStories: {},
    day: { records: "loading", calls: 0, handleSec: null, statusFrom: 0, statusTimes: [], current: null },
    nextOfferAt: 0,
    dialling: null,
    phoneWatch: { trouble: null, breakSetAt: 0, woke: null },
    tracking: {
      offering: null,
      statusEventAt: 0,
      handedOver: [],
      dialSeenAt: 0,
      cancelledDials: [],
      cancelledLegs: [],
    },
  };
}

export function createAgentStore(): AgentStore {
  return createStore<AgentState>()(initialAgentState);
}

/** Changes some of what the session tracks. */
export function track(store: AgentStore, patch: Partial<AgentTracking>): void {
  store.setState({ tracking: { ...store.getState().tracking, ...patch } });
}

/**
 * The queue named where the spec's requests name one (status commands, agent_state): the agent's
 * first. A status is the agent's in every queue (mod_callcenter's is per agent), so one command
 * changes it everywhere; agent_state of any of its queues has the agent's row.
 */
export function namedQueue(s: Pick<AgentState, "queues">): string {
  return s.queues[0]?.name ?? "";
}
