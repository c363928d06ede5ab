import { computed, signal, type ReadonlySignal } from "@preact/signals";
import { PHONE_UNREACHABLE_REASON, statusKind, type AgentActions, type AgentSession, type AgentState } from "../../cc";
import type { SettingsState } from "../../session";
import type { Messages } from "../i18n";
import { errorText, nextLabel, phoneWatchText, phoneWatchWords, statusLabel } from "../words/agent-words";
import { supervisedText } from "../words/call-words";
import { shallowEqual, storeSignal } from "./store-signal";

/** What the toolbar's components see of the agent session. */
export interface AgentUi {
  session: AgentSession;
  /** The whole state; a component that needs only part of it reads a slice below, and re-renders for that part only. */
  state: ReadonlySignal<AgentState>;
  phase: ReadonlySignal<AgentState["phase"]>;
  wrapUp: ReadonlySignal<AgentState["wrapUp"]>;
  dialling: ReadonlySignal<AgentState["dialling"]>;
  /** The agent's queues, whether their figures are live, and the other agents in them. */
  queues: ReadonlySignal<Pick<AgentState, "phase" | "queues" | "feed" | "colleagues">>;
  lastDisposition: ReadonlySignal<AgentState["lastDisposition"]>;
  /** Notes typed during calls, by conversation. */
  callNotes: ReadonlySignal<AgentState["callNotes"]>;
  /** The callers' earlier calls, by call. */
  callerStories: ReadonlySignal<AgentState["callerStories"]>;
  /** A caller's earlier calls asked for from a card: the history shows that number's (a new object each time). */
  historyOf: ReturnType<typeof signal<{ number: string } | null>>;
  /** The watch over the page's phone, with what its words need. */
  phoneWatch: ReadonlySignal<Pick<AgentState, "phoneWatch" | "agent" | "pending">>;
  /** What the toolbar asks of the agent session. */
  actions: AgentActions;
  /** Break reasons and dispositions offered: the configured lists, else the built-in ones. */
  breakReasons: ReadonlySignal<readonly string[]>;
  dispositions: ReadonlySignal<readonly string[]>;
  /** The status menu is open (a shortcut may open it). */
  menuOpen: ReturnType<typeof signal<boolean>>;
  /** Runs an action; its failure is in the store's `error` (and announced), so nothing else is done with it. */
  act(p: Promise<unknown>): void;
}

export interface AgentUiDeps {
  session: AgentSession;
  settings: ReadonlySignal<SettingsState>;
  t: ReadonlySignal<Messages>;
  announce(text: string): void;
}

export function createAgentUi(deps: AgentUiDeps): AgentUi {
  const store = deps.session.store;
  const state = storeSignal(store);
  const list = (configured: readonly string[], builtIn: readonly string[]) =>
    configured.length ? configured : builtIn;
  const ui: AgentUi = {
    session: deps.session,
    state,
    phase: storeSignal(store, (s) => s.phase),
    wrapUp: storeSignal(store, (s) => s.wrapUp),
    dialling: storeSignal(store, (s) => s.dialling),
    queues: storeSignal(
      store,
      (s) => ({ phase: s.phase, queues: s.queues, feed: s.feed, colleagues: s.colleagues }),
      shallowEqual,
    ),
    lastDisposition: storeSignal(store, (s) => s.lastDisposition),
    callNotes: storeSignal(store, (s) => s.callNotes),
    callerStories: storeSignal(store, (s) => s.callerStories),
    historyOf: signal(null),
    phoneWatch: storeSignal(
      store,
      (s) => ({ phoneWatch: s.phoneWatch, agent: s.agent, pending: s.pending }),
      shallowEqual,
    ),
    actions: deps.session.actions,
    breakReasons: computed(() => list(deps.settings.value.breakReasons, deps.t.value.agent.defaultReasons)),
    dispositions: computed(() => list(deps.settings.value.dispositions, deps.t.value.agent.defaultDispositions)),
    menuOpen: signal(false),
    act: (p) => void p.catch(() => {}),
  };

  // Confirmed changes, queued next statuses, refusals and wrap-up are said wherever the focus is.
  deps.session.store.subscribe((s, before) => {
    const t = deps.t.value;
    const a = t.agent.announce;
    const label = statusLabel(s.agent, t);
    if (s.agent && label !== statusLabel(before.agent, t) && before.agent) deps.announce(a.status(label));
    const next = s.wrapUp?.next ?? s.next;
    const nextBefore = before.wrapUp?.next ?? before.next;
    if (
      next &&
      JSON.stringify(next) !== JSON.stringify(nextBefore) &&
      (s.wrapUp?.id === before.wrapUp?.id || !s.wrapUp)
    )
      deps.announce(a.next(nextLabel(next, t)));
    if (s.error && s.error !== before.error) deps.announce(a.failed(errorText(s.error, t)));
    if (s.dialling && !before.dialling) deps.announce(t.agent.dialling(s.dialling.number));
    if (s.dialling?.failed && !before.dialling?.failed)
      deps.announce(t.agent.failure(s.dialling.number, t.agent.dialFailed[s.dialling.failed]));
    if (s.wrapUp && s.wrapUp.id !== before.wrapUp?.id) deps.announce(t.agent.wrapUp.announceStart);
    if (!s.wrapUp && before.wrapUp && s.phase === "on") deps.announce(t.agent.wrapUp.announceEnd);
    // Being listened to (where the platform tells it) is said as well as shown on the card.
    if (s.supervised && (s.supervised.mode !== before.supervised?.mode || s.supervised.by !== before.supervised.by))
      deps.announce(supervisedText(s.supervised, t));
    if (!s.supervised && before.supervised) deps.announce(t.agent.supervisorLeft);
    announcePhoneWatch(s, before, t, deps.announce);
  });
  return ui;
}

/** The phone's watch is said once as each change happens (the line itself is no live region). */
function announcePhoneWatch(s: AgentState, before: AgentState, t: Messages, announce: (text: string) => void): void {
  const w = s.phoneWatch;
  const was = before.phoneWatch;
  const m = phoneWatchWords(w, t);
  // By time, not identity: a tab that shows another tab's phone gets a new copy with each change.
  if (w.woke && w.woke.at !== was.woke?.at)
    announce(
      w.woke.earlier
        ? phoneWatchText(s, t)
        : m.woke(statusLabel({ status: "On Break", reason: PHONE_UNREACHABLE_REASON }, t)),
    );
  else if (w.trouble && !was.trouble) announce(phoneWatchText(s, t));
  else if (!w.trouble && was.trouble === "lost")
    announce(w.breakSetAt && statusKind(s.agent?.status ?? "") === "break" ? `${m.back} ${m.stayOnBreak}` : m.back);
}
