import { createStore, type StoreApi } from "zustand/vanilla";
import { CALL_CENTER_CHANNEL, EventChannel, type SocketFactory } from "../api/event-channel";
import { getCurrentUser } from "../api/users";
import { effectiveEventChannelUrl, type SessionState, type SessionStore, type SettingsStore } from "../session";
import { isCallCenterEvent, namesAgent, type CallCenterEventData } from "./agent-status";

/**
 * Which events a consumer wants: each condition given must hold (an event names one of `agents`,
 * is about one of `queues`, is one of `actions`); none given: every event. Plain data, so that a
 * filter can travel (another tab, a host page) and be read in a log.
 */
export interface EventFilter {
  /** Agent numbers; an event names one as `1001`, `<group>.1001` or `1001@domain` (`CC-Agent`). */
  agents?: readonly string[];
  /** Queue names (`CC-Queue`). */
  queues?: readonly string[];
  /** `CC-Action` values: `agent-status-change`, `members-count`, ... */
  actions?: readonly string[];
}

export function matchesFilter(e: CallCenterEventData, f: EventFilter): boolean {
  if (f.actions && !f.actions.includes(e["CC-Action"] ?? "")) return false;
  if (f.queues && !f.queues.includes(e["CC-Queue"] ?? "")) return false;
  if (f.agents && !f.agents.some((a) => namesAgent(e, a))) return false;
  return true;
}

/**
 * - `off`: nobody listens, or nobody is signed in;
 * - `connecting`: the channel is being opened (or opened again after a drop);
 * - `open`: events flow. Anything else means consumers read `agent_state` instead.
 */
export type EventFeedStatus = "off" | "connecting" | "open";

export interface EventFeedState {
  status: EventFeedStatus;
  /** When the last event arrived, ms since epoch (0: none yet): a consumer can tell a quiet feed from a dead one. */
  lastEventAt: number;
  /** Events that arrived so far: whether any came since a moment, by comparing counts. */
  received: number;
}

export interface EventFeed {
  store: StoreApi<EventFeedState>;
  /**
   * Calls `listener` with each event that matches `filter`, from now on. The channel is open while
   * anyone listens and someone is signed in; its last listener leaving closes it. Returns the
   * unsubscriber.
   */
  subscribe(filter: EventFilter, listener: (e: CallCenterEventData) => void): () => void;
  dispose(): void;
}

/** One open connection to the platform's events, as `EventConnector` makes it. */
export interface EventConnection {
  close(): void;
}

/** Opens the connection the feed listens on (the JSON-RPC channel in the app; a script in tests). */
export type EventConnector = (o: {
  url: string;
  /** `<extension>@<domain>`. */
  login: string;
  /** The user token, read at each (re)connection. */
  token: () => string;
  onEvent: (data: CallCenterEventData) => void;
  onOpenChange: (open: boolean) => void;
  /** The platform refused the token (its credentials changed, say, and it closed the connection). */
  onTokenRefused: () => void;
}) => EventConnection;

export interface EventFeedDeps {
  session: SessionStore;
  settings: SettingsStore;
  pageHref: () => string;
  /** Without it the feed never opens: consumers poll. */
  connect?: EventConnector;
  now?: () => number;
}

/**
 * The platform's call-center events (mod_callcenter's `callcenter::info`), one connection shared
 * by every consumer in the page: the agent's toolbar listens for its own agent and queues, a
 * supervisor's wallboard for every agent of its queues. While it is not `open`, each consumer
 * reads `agent_state` at the pace it needs: the feed says when.
 */
export function createEventFeed(deps: EventFeedDeps): EventFeed {
  const now = deps.now ?? Date.now;
  const store = createStore<EventFeedState>()(() => ({ status: "off", lastEventAt: 0, received: 0 }));
  const listeners = new Set<{ filter: EventFilter; listener: (e: CallCenterEventData) => void }>();
  let connection: { to: SessionState["client"]; close(): void } | undefined;

  const deliver = (e: CallCenterEventData) => {
    store.setState({ lastEventAt: now(), received: store.getState().received + 1 });
    for (const l of [...listeners]) if (listeners.has(l) && matchesFilter(e, l.filter)) l.listener(e);
  };

  const close = () => {
    connection?.close();
    connection = undefined;
    store.setState({ status: "off" });
  };

  /** Open while someone listens and someone with an extension is signed in; reopened for a new session. */
  const follow = () => {
    const s = deps.session.getState();
    const user =
      (s.status === "signed-in" || s.status === "signing-out") && s.client && s.user?.extension ? s.user : null;
    const wanted = !!deps.connect && listeners.size > 0 && !!user;
    if (connection && (!wanted || connection.to !== s.client)) close();
    if (!wanted || connection || !user || !deps.connect) return;
    const client = s.client;
    store.setState({ status: "connecting" });
    let open = false;
    const opened = deps.connect({
      url: effectiveEventChannelUrl(deps.settings.getState(), s.platformUrl, deps.pageHref()),
      login: `${user.extension}@${user.domain}`,
      token: () => deps.session.getState().client?.session?.token ?? "",
      onEvent: (e) => {
        if (connection?.to === client) deliver(e);
      },
      // The platform ends the channel of a session it ended (a new password, the user disabled) and
      // refuses its token: a request through the client then renews a JWT that merely expired, or
      // reports the end of the session, and the sign-in screen says so instead of a stale toolbar.
      onTokenRefused: () => {
        if (client && connection?.to === client) void getCurrentUser(client).catch(() => undefined);
      },
      onOpenChange: (isOpen) => {
        if (connection?.to !== client || isOpen === open) return;
        open = isOpen;
        store.setState({ status: isOpen ? "open" : "connecting" });
      },
    });
    connection = { to: client, close: () => opened.close() };
  };

  const unsubscribeSession = deps.session.subscribe(follow);

  return {
    store,
    subscribe(filter, listener) {
      const entry = { filter, listener };
      listeners.add(entry);
      follow();
      return () => {
        listeners.delete(entry);
        follow();
      };
    },
    dispose() {
      unsubscribeSession();
      listeners.clear();
      close();
    },
  };
}

/**
 * The app's connector: the platform's JSON-RPC channel, mod_callcenter's events as mod_verto
 * publishes them, logged in with the user token (renewed tokens are read at each reconnection).
 */
export function eventChannelConnector(socket?: SocketFactory): EventConnector {
  return (o) => {
    let open = false;
    const channel = new EventChannel({
      url: o.url,
      credentials: () => ({ login: o.login, token: o.token() }),
      channels: [CALL_CENTER_CHANNEL],
      onEvent: (_channel, data) => {
        if (isCallCenterEvent(data)) o.onEvent(data);
      },
      onAuthFailure: () => o.onTokenRefused(),
      onStatus: (status, detail) => {
        if (detail.error) console.info(`agentbar: event channel ${status}: ${detail.error}`);
        if ((status === "open") === open) return;
        open = status === "open";
        o.onOpenChange(open);
      },
      ...(socket ? { socket } : {}),
    });
    return { close: () => channel.close() };
  };
}
