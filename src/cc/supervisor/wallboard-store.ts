import { createStore, type StoreApi } from "zustand/vanilla";
import { getAgentState, getUserQueueNames, type AgentStateRecord, type PlatformClient } from "../../api";
import type { SessionStore, SessionUser } from "../../session";
import type { CallCenterEventData } from "../agent-status";
import type { EventFeed } from "../event-feed";
import { isSupervisor } from "./supervisor-role";
import {
  applyEvent,
  applyRecords,
  DEFAULT_SERVICE_LEVEL_SECONDS,
  emptyWallboard,
  WallboardDraft,
  type WallboardData,
} from "./wallboard";

/**
 * - `events`: the event channel is open and talking; reads of agent_state only reconcile now and then;
 * - `polling`: the channel is closed or has gone quiet: agent_state is read every few seconds;
 * - `off`: nobody watches the board, or nobody who may is signed in.
 */
export type WallboardSource = "events" | "polling" | "off";

export interface WallboardState {
  board: WallboardData;
  source: WallboardSource;
  /** When the board last heard from the platform (an event or a read), ms since epoch; 0: never. */
  updatedAt: number;
  /** Nothing heard for longer than the board trusts: its figures may be out of date. */
  stale: boolean;
  /** The last read failed: why, in the platform's words. */
  readError: string | null;
  /** The first read is under way. */
  loading: boolean;
  /** The queues whose agents the board shows; empty: every queue (an administrator, or a supervisor of no queue in particular). */
  scope: readonly string[];
  serviceLevelSeconds: number;
}

export type WallboardStore = StoreApi<WallboardState>;

export interface WallboardDeps {
  session: SessionStore;
  feed: EventFeed;
  now?: () => number;
  /** Reads while events do not flow (default 5 s). */
  pollMs?: number;
  /** Reads while events flow, to correct what events may have missed (default 60 s). */
  reconcileMs?: number;
  /** An open channel silent this long is taken for a dead one (default 15 s). */
  silentAfterMs?: number;
  /** Figures older than this are marked stale (default 15 s). */
  staleAfterMs?: number;
  /** Events are applied in batches at most this often (default 100 ms): one store change per batch. */
  batchMs?: number;
  serviceLevelSeconds?: number;
  readAgents?: (client: PlatformClient, query: { queue?: string }) => Promise<AgentStateRecord[]>;
  userQueues?: (client: PlatformClient, userId: string) => Promise<string[]>;
}

export interface Wallboard {
  store: WallboardStore;
  /** The board runs while someone watches it; returns the unwatcher. */
  watch(): () => void;
  /** Reads agent_state now. */
  refresh(): Promise<void>;
  /** Applies the events received so far now (tests; the board does it by itself every `batchMs`). */
  flush(): void;
  setServiceLevelSeconds(seconds: number): void;
  dispose(): void;
}

const dayOf = (ms: number) => new Date(ms).toDateString();

export function createWallboard(deps: WallboardDeps): Wallboard {
  const now = deps.now ?? Date.now;
  const pollMs = deps.pollMs ?? 5_000;
  const reconcileMs = deps.reconcileMs ?? 60_000;
  const silentAfterMs = deps.silentAfterMs ?? 15_000;
  const staleAfterMs = deps.staleAfterMs ?? 15_000;
  const batchMs = deps.batchMs ?? 100;
  const readAgents = deps.readAgents ?? ((c, q) => getAgentState(c, q));
  const userQueues = deps.userQueues ?? getUserQueueNames;

  const store = createStore<WallboardState>()(() => ({
    board: emptyWallboard(now()),
    source: "off",
    updatedAt: 0,
    stale: false,
    readError: null,
    loading: false,
    scope: [],
    serviceLevelSeconds: deps.serviceLevelSeconds ?? DEFAULT_SERVICE_LEVEL_SECONDS,
  }));

  let watchers = 0;
  let run = 0;
  let client: PlatformClient | null = null;
  let unsubscribeFeed: (() => void) | undefined;
  let tick: ReturnType<typeof setInterval> | undefined;
  let batch: ReturnType<typeof setTimeout> | undefined;
  let pending: CallCenterEventData[] = [];
  let lastReadAt = 0;
  let reading = false;

  const draft = () => new WallboardDraft(store.getState().board);

  const commit = (d: WallboardDraft, patch: Partial<WallboardState> = {}) => {
    const t = now();
    if (dayOf(d.finish().countingSince) !== dayOf(t)) d.resetCounts(new Date(new Date(t).toDateString()).getTime());
    store.setState({ ...(d.touched ? { board: d.finish() } : {}), updatedAt: t, stale: false, ...patch });
  };

  const flush = () => {
    if (batch) clearTimeout(batch);
    batch = undefined;
    if (!pending.length) return;
    const events = pending;
    pending = [];
    const d = draft();
    const t = now();
    for (const e of events) applyEvent(d, e, t);
    commit(d);
  };

  const onEvent = (e: CallCenterEventData) => {
    pending.push(e);
    batch ??= setTimeout(flush, batchMs);
  };

  const read = async (): Promise<void> => {
    const c = client;
    if (!c || reading) return;
    const myRun = run;
    reading = true;
    lastReadAt = now();
    try {
      const { scope, board } = store.getState();
      const queues = scope.length ? scope : [...board.queues.keys()];
      const perQueue = await Promise.all(queues.map(async (queue) => [queue, await readAgents(c, { queue })] as const));
      const everyone = scope.length ? [] : await readAgents(c, {});
      if (myRun !== run) return;
      const queuesOf = new Map<string, string[]>();
      for (const [queue, rows] of perQueue)
        for (const r of rows) queuesOf.set(r.agent_id, [...(queuesOf.get(r.agent_id) ?? []), queue]);
      // Events that came during the read are newer than it: the read first, then them.
      const d = draft();
      applyRecords(
        d,
        [...perQueue.flatMap(([, rows]) => rows), ...everyone],
        queuesOf,
        now(),
        new Set(board.agents.keys()),
      );
      const events = pending;
      pending = [];
      for (const e of events) applyEvent(d, e, now());
      commit(d, { readError: null, loading: false });
    } catch (e) {
      if (myRun === run) store.setState({ readError: e instanceof Error ? e.message : String(e), loading: false });
    } finally {
      if (myRun === run) reading = false;
    }
  };

  /** Every second: which source the board runs on, whether to read, whether the figures went stale. */
  const check = () => {
    const t = now();
    const feed = deps.feed.store.getState();
    const { updatedAt, stale, source } = store.getState();
    const flowing = feed.status === "open" && t - Math.max(feed.lastEventAt, lastOpenedAt) < silentAfterMs;
    const nextSource: WallboardSource = flowing ? "events" : "polling";
    if (nextSource !== source) store.setState({ source: nextSource });
    if (t - lastReadAt >= (flowing ? reconcileMs : pollMs)) void read();
    const isStale = updatedAt > 0 && t - updatedAt > staleAfterMs;
    if (isStale !== stale) store.setState({ stale: isStale });
  };
  // A board opened after the channel: count its silence from now, not from before the board was there.
  let lastOpenedAt = deps.feed.store.getState().status === "open" ? now() : 0;
  const unsubscribeFeedStatus = deps.feed.store.subscribe((s, before) => {
    if (s.status === "open" && before.status !== "open") lastOpenedAt = now();
  });

  const userOf = (): { client: PlatformClient; user: SessionUser } | null => {
    const s = deps.session.getState();
    return s.status === "signed-in" && s.client && s.user && isSupervisor(s.user)
      ? { client: s.client, user: s.user }
      : null;
  };

  const stop = () => {
    run++;
    client = null;
    unsubscribeFeed?.();
    unsubscribeFeed = undefined;
    if (tick) clearInterval(tick);
    tick = undefined;
    if (batch) clearTimeout(batch);
    batch = undefined;
    pending = [];
    reading = false;
    store.setState({ source: "off" });
  };

  const start = async (who: { client: PlatformClient; user: SessionUser }) => {
    stop();
    const myRun = run;
    client = who.client;
    lastReadAt = 0;
    store.setState({
      board: emptyWallboard(now()),
      loading: true,
      readError: null,
      updatedAt: 0,
      stale: false,
      source: "polling",
    });
    unsubscribeFeed = deps.feed.subscribe({}, onEvent);
    // An administrator watches every queue; a supervisor its own, or every one when it has none.
    const scope = who.user.isAdmin ? [] : await userQueues(who.client, who.user.id).catch(() => [] as string[]);
    if (myRun !== run) return;
    store.setState({ scope });
    await read();
    if (myRun !== run) return;
    tick = setInterval(check, 1_000);
  };

  let following: PlatformClient | null = null;
  const follow = () => {
    const who = watchers > 0 ? userOf() : null;
    if ((who?.client ?? null) === following) return;
    following = who?.client ?? null;
    if (who) void start(who);
    else stop();
  };
  const unsubscribeSession = deps.session.subscribe(follow);

  return {
    store,
    watch() {
      watchers++;
      follow();
      return () => {
        watchers--;
        follow();
      };
    },
    refresh: read,
    flush,
    setServiceLevelSeconds(seconds) {
      if (Number.isFinite(seconds) && seconds > 0) store.setState({ serviceLevelSeconds: seconds });
    },
    dispose() {
      unsubscribeSession();
      unsubscribeFeedStatus();
      watchers = 0;
      following = null;
      stop();
    },
  };
}
