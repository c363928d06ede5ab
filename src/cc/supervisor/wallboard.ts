import type { AgentStateRecord } from "../../api/cc";
import type { PlatformClock } from "../platform-clock";
import type { QueueDay, QueueDayFigures } from "./queue-day";
import { agentViewOf, eventTime, statusKind, type CallCenterEventData, type StatusKind } from "../agent-status";

/**
 * A supervisor's wallboard as plain data: one row per agent of the supervisor's queues, and the
 * figures of each queue. Rows are immutable: a change replaces its row (and only it), so a view
 * bound to one row re-renders when that row changed and never otherwise.
 */

/** The call an agent is on, as far as the platform said. */
export interface WallboardCall {
  /** The agent's leg (the callID of ccMonitor, ccIntercept, ...); "" while only offered. */
  uuid: string;
  /** Who the agent talks to. */
  number: string;
  name: string;
  /** "" for a call of no queue (click-to-dial, a direct call). */
  queue: string;
  /** When it was answered, ms since epoch; 0 while it rings or when nobody said. */
  answeredAt: number;
  /** The platform's word for its kind (`queue`, `dial`, `handover`, `monitor`, ...); "" when unknown. */
  kind: string;
  /** The queue member (`CC-Member-UUID`); "" for no queue's call. */
  member: string;
}

export interface WallboardAgent {
  number: string;
  name: string;
  /** Where its calls ring (where it signed in). */
  extension: string;
  /** mod_callcenter's status as it came (`Available`, `On Break`, ...). */
  status: string;
  kind: StatusKind;
  reason: string;
  /** mod_callcenter's state (`Waiting`, `Receiving`, `In a queue call`, `Idle`); "" when unknown. */
  state: string;
  /** agent_state's callstate (`IDLE`, `RINGING`, `TALKING`, `MONITORING`, ...); "" when unknown. */
  callstate: string;
  call: WallboardCall | null;
  /** When the status began, ms since epoch. */
  statusSince: number;
  /** false: the status was already on when the board first saw it; it began at `statusSince` or earlier. */
  statusSinceExact: boolean;
  /**
   * When the status began in the platform's words (agent_state's `status_since`: its local time,
   * no zone); "" when it did not say. Read with the platform's clock (`statusSinceOf`) once its
   * offset is known.
   */
  platformSince: string;
  /** Offers not answered since it last went Available; null when the platform does not say. */
  noAnswerCount: number | null;
  /** The queues it has a tier in or signed into, as far as the board knows. */
  queues: readonly string[];
  /** Until when after-call work runs (agent_state's `wrap_up_until`, the platform's local time); "" when none or not said. */
  wrapUpUntil: string;
}

/** When an agent's status began on this browser's clock, and whether it is exact or only "at least this long". */
export function statusSinceOf(row: WallboardAgent, clock: PlatformClock): { at: number; exact: boolean } {
  if (row.statusSinceExact) return { at: row.statusSince, exact: true };
  const platform = row.platformSince ? clock.toLocal(row.platformSince) : null;
  // The platform's time, never later than the board's first sight of the status (the clocks may disagree by a few ms).
  return platform === null
    ? { at: row.statusSince, exact: false }
    : { at: Math.min(platform, row.statusSince), exact: true };
}

/** Whether the agent is in after-call work at `now`: the platform's wrap-up time still runs. */
export function inWrapUp(row: WallboardAgent, clock: PlatformClock, now: number): boolean {
  if (!row.wrapUpUntil) return false;
  const until = clock.toLocal(row.wrapUpUntil);
  return until === null || until > now;
}

export interface QueueFigures {
  name: string;
  /** The platform's id of the queue (agent_state's `queue_id`: the call records' `groupValue`); "" until a read told it. */
  id: string;
  /** Whether the platform lists its waiting callers (so `members` holds every one of them, with when each joined). */
  membersListed: boolean;
  /** Callers waiting (members-count); null until the platform said. */
  waiting: number | null;
  /** Waiting callers the board saw join: member uuid -> joined at (ms). */
  members: Readonly<Record<string, number>>;
}

export const DEFAULT_SERVICE_LEVEL_SECONDS = 20;

export interface WallboardData {
  agents: ReadonlyMap<string, WallboardAgent>;
  queues: ReadonlyMap<string, QueueFigures>;
  /** Since when answered / abandoned are counted (the board's opening, or midnight when it ran through it). */
  countingSince: number;
}

export const emptyWallboard = (now: number): WallboardData => ({
  agents: new Map(),
  queues: new Map(),
  countingSince: now,
});

/** `1001`, `support.1001`, `1001@domain` -> `1001`. */
export function agentNumberOf(name: string): string {
  const local = name.split("@")[0] ?? "";
  const dot = local.lastIndexOf(".");
  return dot >= 0 ? local.slice(dot + 1) : local;
}

export function queueFigures(name: string): QueueFigures {
  return { name, id: "", membersListed: false, waiting: null, members: {} };
}

/**
 * A draft of the next board: changes are collected on it (copying a row or a queue once per batch)
 * and `finish` hands back the new board, sharing every untouched row with the old one.
 */
export class WallboardDraft {
  private agents: Map<string, WallboardAgent> | undefined;
  private queues: Map<string, QueueFigures> | undefined;
  private countingSince: number;
  /** Agents whose row changed in this batch. */
  readonly changed = new Set<string>();

  constructor(private readonly base: WallboardData) {
    this.countingSince = base.countingSince;
  }

  agent(number: string): WallboardAgent | undefined {
    return (this.agents ?? this.base.agents).get(number);
  }

  queue(name: string): QueueFigures | undefined {
    return (this.queues ?? this.base.queues).get(name);
  }

  setAgent(row: WallboardAgent): void {
    this.agents ??= new Map(this.base.agents);
    this.agents.set(row.number, row);
    this.changed.add(row.number);
  }

  removeAgent(number: string): void {
    if (!this.agent(number)) return;
    this.agents ??= new Map(this.base.agents);
    this.agents.delete(number);
    this.changed.add(number);
  }

  patchAgent(number: string, patch: Partial<WallboardAgent>): void {
    const row = this.agent(number);
    if (!row) return;
    const next = { ...row, ...patch };
    if ((Object.keys(patch) as (keyof WallboardAgent)[]).every((k) => sameValue(row[k], next[k]))) return;
    this.setAgent(next);
  }

  patchQueue(name: string, patch: (q: QueueFigures) => Partial<QueueFigures>): void {
    const q = this.queue(name);
    if (!q) return;
    this.queues ??= new Map(this.base.queues);
    this.queues.set(name, { ...q, ...patch(q) });
  }

  addQueue(name: string): void {
    if (this.queue(name)) return;
    this.queues ??= new Map(this.base.queues);
    this.queues.set(name, queueFigures(name));
  }

  /** A new day: today's counts start again (the queues' days are the store's). */
  resetCounts(at: number): void {
    this.countingSince = at;
  }

  get touched(): boolean {
    return !!this.agents || !!this.queues || this.countingSince !== this.base.countingSince;
  }

  finish(): WallboardData {
    // Its counts by queue and its order can follow from the base's and the agents changed (see
    // `agentsByQueue`, `AgentOrder`); never a chain: the base's own step is let go.
    agentSteps.delete(this.base.agents);
    if (this.agents) agentSteps.set(this.agents, { base: this.base.agents, changed: this.changed });
    return {
      agents: this.agents ?? this.base.agents,
      queues: this.queues ?? this.base.queues,
      countingSince: this.countingSince,
    };
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k])
    );
  }
  return false;
}

const seconds = (v: string | undefined): number => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n * 1000 : 0;
};

/** One call-center event applied to the draft (mod_callcenter's `callcenter::info`). */
export function applyEvent(d: WallboardDraft, e: CallCenterEventData, now: number): void {
  const at = Math.min(eventTime(e, now), now);
  const number = agentNumberOf(e["CC-Agent"] ?? "");
  const queue = e["CC-Queue"] ?? "";
  const row = number ? d.agent(number) : undefined;
  const member = e["CC-Member-UUID"] ?? "";
  switch (e["CC-Action"]) {
    case "agent-status-change": {
      if (!row) return;
      const status = e["CC-Agent-Status"] ?? "";
      const kind = statusKind(status);
      // A reason counts for a break alone: the same status again is no change (its time goes on).
      const reason = kind === "break" ? (e["CC-Agent-Break-Reason"] ?? "") : "";
      if (status === row.status && reason === row.reason) return;
      d.patchAgent(number, {
        status,
        kind,
        reason,
        statusSince: at,
        statusSinceExact: true,
        platformSince: "",
        ...(kind === "ready" && row.noAnswerCount !== null ? { noAnswerCount: 0 } : {}),
      });
      return;
    }
    case "agent-state-change":
      if (row) d.patchAgent(number, { state: e["CC-Agent-State"] ?? "" });
      return;
    case "agent-offering":
      if (row) d.patchAgent(number, { callstate: "RINGING", call: callOf(e, "", 0) });
      return;
    case "bridge-agent-start": {
      const answeredAt = seconds(e["CC-Agent-Answered-Time"]) || at;
      if (row) d.patchAgent(number, { callstate: "TALKING", call: callOf(e, e["CC-Agent-UUID"] ?? "", answeredAt) });
      // The caller no longer waits (today's figures count its answer: QueueDay).
      d.patchQueue(queue, (f) => ({ members: without(f.members, member) }));
      return;
    }
    case "bridge-agent-end":
    case "bridge-agent-fail":
      if (row && (!row.call?.uuid || !e["CC-Agent-UUID"] || row.call.uuid === e["CC-Agent-UUID"]))
        d.patchAgent(number, { callstate: "IDLE", call: null });
      return;
    case "agent-max-no-answer": {
      const count = Number(e["CC-Agent-No-Answer-Count"]);
      if (row && Number.isFinite(count)) d.patchAgent(number, { noAnswerCount: count });
      return;
    }
    case "member-queue-start":
      d.addQueue(queue);
      if (member)
        d.patchQueue(queue, (f) => ({
          members: { ...f.members, [member]: seconds(e["CC-Member-Joined-Time"]) || at },
        }));
      return;
    case "member-queue-end":
      d.patchQueue(queue, (f) => ({ members: without(f.members, member) }));
      return;
    case "members-count": {
      const count = Number(e["CC-Count"]);
      d.addQueue(queue);
      if (Number.isFinite(count)) d.patchQueue(queue, () => ({ waiting: count }));
      return;
    }
  }
}

function without(members: Readonly<Record<string, number>>, uuid: string): Readonly<Record<string, number>> {
  if (!uuid || !(uuid in members)) return members;
  const { [uuid]: _, ...rest } = members;
  return rest;
}

function callOf(e: CallCenterEventData, uuid: string, answeredAt: number): WallboardCall {
  return {
    uuid,
    number: e["CC-Member-CID-Number"] ?? "",
    name: e["CC-Member-CID-Name"] ?? "",
    queue: e["CC-Queue"] ?? "",
    answeredAt,
    kind: "queue",
    member: e["CC-Member-UUID"] ?? "",
  };
}

/**
 * Records of `GET /api/cc/agent_state` applied to the draft: the platform's word on every agent
 * it listed (`queuesOf` says which queues each was listed for). Agents it no longer lists leave
 * the board (`previous`: those a whole read should list). A status seen again keeps the time it
 * was first seen. A partial read (one queue) adds to each agent's queues instead of replacing them.
 */
export function applyRecords(
  d: WallboardDraft,
  records: readonly AgentStateRecord[],
  queuesOf: ReadonlyMap<string, readonly string[]>,
  now: number,
  previous: ReadonlySet<string>,
  partial = false,
): void {
  const listed = new Set<string>();
  for (const r of records) {
    if (!r.agent_id || listed.has(r.agent_id)) continue;
    const old = d.agent(r.agent_id);
    const queues = [
      ...new Set([
        ...(partial ? (old?.queues ?? []) : []),
        ...(queuesOf.get(r.agent_id) ?? []),
        ...(r.group_id ? [r.group_id] : []),
      ]),
    ].sort();
    // An agent of no queue (no tier, signed into none: a supervisor once signed in to listen to a
    // call) is no queue's agent: not on the board, and gone from it once a read says so.
    if (!queues.length) continue;
    listed.add(r.agent_id);
    const view = agentViewOf(r);
    const kind = statusKind(view.status);
    const sameStatus = old && old.status === view.status && old.reason === (kind === "break" ? view.reason : "");
    const platformCall = r.call;
    const call: WallboardCall | null = platformCall
      ? {
          uuid: platformCall.uuid,
          number: platformCall.cid_number,
          name: platformCall.cid_name,
          queue: platformCall.queue,
          // The platform gives no answer time: keep the one events told, else count from the first sight.
          answeredAt: platformCall.answered ? (old?.call?.uuid === platformCall.uuid && old.call.answeredAt) || now : 0,
          kind: platformCall.kind,
          member: platformCall.member_uuid,
        }
      : r.agent_uuid
        ? {
            ...(old?.call ?? { number: "", name: "", queue: "", kind: "", member: "" }),
            uuid: r.agent_uuid,
            answeredAt: old?.call?.answeredAt || now,
          }
        : null;
    for (const q of queues) d.addQueue(q);
    const row: WallboardAgent = {
      number: r.agent_id,
      name: r.name || old?.name || "",
      extension: r.extn,
      status: view.status,
      kind,
      reason: kind === "break" ? view.reason : "",
      state: view.state,
      callstate: view.callstate,
      call,
      statusSince: sameStatus ? old.statusSince : now,
      statusSinceExact: sameStatus ? old.statusSinceExact : false,
      platformSince: sameStatus && old.statusSinceExact ? "" : r.status_since,
      noAnswerCount: "no_answer_count" in r ? r.no_answer_count : null,
      queues,
      wrapUpUntil: r.wrap_up_until,
    };
    if (!old) d.setAgent(row);
    else d.patchAgent(r.agent_id, row);
  }
  if (!partial) for (const number of previous) if (!listed.has(number)) d.removeAgent(number);
}

/** A waiting caller as the platform lists it (`GET /api/cc/queue_members`). */
export interface WaitingCaller {
  uuid: string;
  /** When it joined the queue, ms since epoch (this browser's clock). */
  joinedAt: number;
}

/** The platform's list of a queue's waiting callers: the board's list and count of them from now on. */
export function applyMembers(d: WallboardDraft, queue: string, callers: readonly WaitingCaller[]): void {
  d.addQueue(queue);
  d.patchQueue(queue, () => ({
    membersListed: true,
    waiting: callers.length,
    members: Object.fromEntries(callers.map((c) => [c.uuid, c.joinedAt])),
  }));
}

/** What a queue's tile shows. */
export interface QueueSummary extends QueueDayFigures {
  name: string;
  /** null: the platform has not said yet. */
  waiting: number | null;
  /** Since when the longest-waiting caller waits, ms since epoch; null: none known. */
  longestWaitingSince: number | null;
  /** Waiting callers who joined before the board opened and the platform does not list: their wait is not known. */
  waitingUnseen: number;
  byStatus: Record<StatusKind, number>;
  /** Agents of the queue in a call now. */
  inCall: number;
}

const NO_DAY: QueueDayFigures = {
  offered: 0,
  answered: 0,
  abandoned: 0,
  answeredWithin: 0,
  serviceLevel: null,
  averageSpeedOfAnswer: null,
  averageHandleTime: null,
};

/** A queue's tile: live state from the board, today's figures from its day (records and events). */
export function summarizeQueue(
  board: WallboardData,
  name: string,
  serviceLevelSeconds: number,
  day?: QueueDay,
): QueueSummary {
  const q = board.queues.get(name) ?? queueFigures(name);
  const agents = agentsByQueue(board.agents).get(name);
  const joined = Object.values(q.members);
  return {
    name,
    waiting: q.waiting,
    longestWaitingSince: joined.length ? Math.min(...joined) : null,
    waitingUnseen: Math.max(0, (q.waiting ?? 0) - joined.length),
    byStatus: { ...(agents?.byStatus ?? noAgents().byStatus) },
    inCall: agents?.inCall ?? 0,
    ...(day ? day.figures(serviceLevelSeconds) : NO_DAY),
  };
}

interface QueueAgents {
  byStatus: Record<StatusKind, number>;
  inCall: number;
}

const noAgents = (): QueueAgents => ({
  byStatus: { ready: 0, "on-demand": 0, break: 0, "logged-out": 0, unknown: 0 },
  inCall: 0,
});

/**
 * Each queue's agents by status and in a call, kept as long as the board's agents are the same:
 * every tile and every alert of a batch reads the same count. Counted in one pass over the
 * agents, or, for agents a draft made from counted ones, from those counts and the agents it
 * changed alone (a batch changes a few hundred of 2,000).
 */
const countedAgents = new WeakMap<ReadonlyMap<string, WallboardAgent>, ReadonlyMap<string, QueueAgents>>();
/** Agents made by a draft, with the agents they were made from and the ones it changed (the newest step only). */
const agentSteps = new WeakMap<
  ReadonlyMap<string, WallboardAgent>,
  { base: ReadonlyMap<string, WallboardAgent>; changed: ReadonlySet<string> }
>();
function agentsByQueue(agents: ReadonlyMap<string, WallboardAgent>): ReadonlyMap<string, QueueAgents> {
  let counted = countedAgents.get(agents);
  if (counted) return counted;
  const from = agentSteps.get(agents);
  const before = from && countedAgents.get(from.base);
  const counts = new Map<string, QueueAgents>();
  const count = (a: WallboardAgent, by: 1 | -1) => {
    for (const queue of a.queues) {
      let c = counts.get(queue);
      if (!c) counts.set(queue, (c = noAgents()));
      c.byStatus[a.kind] += by;
      if (a.call) c.inCall += by;
    }
  };
  if (from && before) {
    for (const [queue, c] of before) counts.set(queue, { byStatus: { ...c.byStatus }, inCall: c.inCall });
    for (const number of from.changed) {
      const old = from.base.get(number);
      const now = agents.get(number);
      if (old) count(old, -1);
      if (now) count(now, 1);
    }
  } else for (const a of agents.values()) count(a, 1);
  countedAgents.set(agents, (counted = counts));
  return counted;
}

/** What the supervisor narrowed the board to, and its order. */
export interface AgentQuery {
  /** Part of a name or an extension (agent number). */
  search: string;
  /** "" every queue. */
  queue: string;
  /** "" every status; `in-call` the agents in a call. */
  status: "" | StatusKind | "in-call";
  sort: "name" | "extension" | "status" | "time";
}

export const DEFAULT_QUERY: AgentQuery = { search: "", queue: "", status: "", sort: "status" };

const STATUS_ORDER: Record<StatusKind, number> = { ready: 0, "on-demand": 1, break: 2, unknown: 3, "logged-out": 4 };

/** `localeCompare`'s orders, made once (it makes one at each call: a board sorts 2,000 agents at every change). */
const TEXT_ORDER = new Intl.Collator();
const NUMBER_ORDER = new Intl.Collator(undefined, { numeric: true });

/** Whether the query keeps an agent (`needle`: its search, trimmed and in lower case). */
function keeps(a: WallboardAgent, q: AgentQuery, needle: string): boolean {
  if (q.queue && !a.queues.includes(q.queue)) return false;
  if (q.status === "in-call" ? !a.call : q.status && a.kind !== q.status) return false;
  return !needle || a.name.toLowerCase().includes(needle) || a.number.includes(needle) || a.extension.includes(needle);
}

type Order = (a: WallboardAgent, b: WallboardAgent) => number;

const byName: Order = (a, b) => TEXT_ORDER.compare(a.name, b.name) || TEXT_ORDER.compare(a.number, b.number);

/** Each order ends with the agent's name, then its number: two agents never compare equal, so an order has one answer. */
function ordersBy(named: Order): Record<AgentQuery["sort"], Order> {
  return {
    name: named,
    extension: (a, b) => NUMBER_ORDER.compare(a.number, b.number) || TEXT_ORDER.compare(a.number, b.number),
    // In a call first, then by status, the longest in it first.
    status: (a, b) =>
      Number(!!b.call) - Number(!!a.call) ||
      STATUS_ORDER[a.kind] - STATUS_ORDER[b.kind] ||
      a.statusSince - b.statusSince ||
      named(a, b),
    time: (a, b) => a.statusSince - b.statusSince || named(a, b),
  };
}
const ORDERS = ordersBy(byName);

/** The rows the query keeps, in its order. */
function keptRows(
  agents: ReadonlyMap<string, WallboardAgent>,
  q: AgentQuery,
  orders: Record<AgentQuery["sort"], Order> = ORDERS,
): WallboardAgent[] {
  const needle = q.search.trim().toLowerCase();
  const kept: WallboardAgent[] = [];
  for (const a of agents.values()) if (keeps(a, q, needle)) kept.push(a);
  return kept.sort(orders[q.sort]);
}

/** The agent numbers the query keeps, in its order. */
export function selectAgents(agents: ReadonlyMap<string, WallboardAgent>, q: AgentQuery): string[] {
  return keptRows(agents, q).map((a) => a.number);
}

/**
 * `selectAgents` kept up to date from one board to the next: with the same query, only the agents
 * whose row changed (rows are immutable: a changed row is a new object) in what an order or a
 * filter looks at are placed again, merged into the order of the others, which did not move
 * relative to each other. For a board a draft made from the last one, the agents looked at are the
 * draft's changed ones, not the 2,000 (any other board: a pass over it). Ties (a centre's
 * statuses share their second; a batch its millisecond) are broken by each agent's place in the
 * order of names, ranked in one sort when an agent joins or is renamed, not by comparing names.
 * The answer is always the one `selectAgents` gives.
 */
export class AgentOrder {
  private agents: ReadonlyMap<string, WallboardAgent> | undefined;
  private query: AgentQuery | undefined;
  /** The rows kept, in order. */
  private rows: WallboardAgent[] = [];
  private ids: string[] = [];
  /** Each agent's place in the order of names (`byName`), and the name it was ranked by. */
  private ranks = new Map<string, { name: string; rank: number }>();
  private readonly orders = ordersBy((a, b) => this.ranks.get(a.number)!.rank - this.ranks.get(b.number)!.rank);

  select(agents: ReadonlyMap<string, WallboardAgent>, q: AgentQuery): string[] {
    const before = this.agents;
    if (agents === before && q === this.query) return this.ids;
    if (!before || !this.query || !sameQuery(q, this.query)) {
      this.rank(agents, agents.values());
      this.rows = keptRows(agents, q, this.orders);
    } else {
      const needle = q.search.trim().toLowerCase();
      const step = agentSteps.get(agents);
      // The agents that may have changed: the draft's, or every one.
      const changed = step?.base === before ? step.changed : undefined;
      // The agents placed again: new ones and those whose row changed in what the query looks at (and that it keeps).
      const moved: WallboardAgent[] = [];
      const consider = (a: WallboardAgent | undefined) => {
        if (!a) return;
        const old = before.get(a.number);
        if (old !== a && !(old && placedAlike(old, a)) && keeps(a, q, needle)) moved.push(a);
      };
      if (changed) for (const number of changed) consider(agents.get(number));
      else for (const a of agents.values()) consider(a);
      // The others, in the order they had (a row changed elsewhere, its state say, takes its place);
      // an agent placed again or that left the board is taken out.
      const stayed: WallboardAgent[] = [];
      for (const a of this.rows) {
        if (changed && !changed.has(a.number)) stayed.push(a);
        else {
          const now = agents.get(a.number);
          if (now && (now === a || placedAlike(a, now))) stayed.push(now);
        }
      }
      if (moved.length) {
        const order = this.orders[q.sort];
        this.rank(agents, moved);
        this.rows = merge(stayed, moved.sort(order), order);
      } else this.rows = stayed;
    }
    this.agents = agents;
    this.query = q;
    this.ids = this.rows.map((a) => a.number);
    return this.ids;
  }

  /** Ranks every agent by name again if one of `these` is new to the ranks or renamed (the others keep theirs: none was renamed). */
  private rank(agents: ReadonlyMap<string, WallboardAgent>, these: Iterable<WallboardAgent>): void {
    for (const a of these) {
      if (this.ranks.get(a.number)?.name === a.name) continue;
      this.ranks = new Map([...agents.values()].sort(byName).map((b, rank) => [b.number, { name: b.name, rank }]));
      return;
    }
  }
}

/** Two rows of an agent that every query keeps and orders alike: what changed is elsewhere (its state, its call's words). */
const placedAlike = (a: WallboardAgent, b: WallboardAgent) =>
  a.kind === b.kind &&
  a.statusSince === b.statusSince &&
  !a.call === !b.call &&
  a.name === b.name &&
  a.extension === b.extension &&
  (a.queues === b.queues || (a.queues.length === b.queues.length && a.queues.every((q, i) => q === b.queues[i])));

const sameQuery = (a: AgentQuery, b: AgentQuery) =>
  a.search === b.search && a.queue === b.queue && a.status === b.status && a.sort === b.sort;

/** Two lists sorted by `order`, as one. */
function merge<T>(a: readonly T[], b: readonly T[], order: (x: T, y: T) => number): T[] {
  const out: T[] = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = order(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
