import { computed, signal, type ReadonlySignal } from "@preact/signals";
import { statusKind, type AgentActions, type AgentSession, type AgentState, type AgentView, type CommandError, type NextStatus } from "../../cc";
import { type SettingsState } from "../../session";
import type { Messages } from "../i18n";
import { storeSignal } from "../store-signal";

/** What the toolbar's components see of the agent session. */
export interface AgentUi {
  session: AgentSession;
  state: ReadonlySignal<AgentState>;
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

/** The status in words: "Ready", "On break · Lunch", or the platform's own word for one we do not know. */
export function statusLabel(view: Pick<AgentView, "status" | "reason"> | null, t: Messages): string {
  if (!view) return "";
  const kind = statusKind(view.status);
  const m = t.agent;
  if (kind === "unknown") return view.status || "–";
  const label = m.status[kind];
  // mod_callcenter's own reason after max_no_answer offers went unanswered.
  const reason = view.reason === "max-no-answer" ? m.maxNoAnswer : view.reason;
  return kind === "break" && reason ? m.statusWithReason(label, reason) : label;
}

export function nextLabel(next: NextStatus, t: Messages): string {
  if (next.kind === "break") return next.reason ? t.agent.statusWithReason(t.agent.status.break, next.reason) : t.agent.status.break;
  return t.agent.status[next.kind];
}

/** "Could not go ready: <why>": the platform's refusals in its own words, the rest by their kind. */
export function errorText(error: CommandError, t: Messages): string {
  const what = t.agent.failed[error.command] ?? error.command;
  const message = error.kind === "refused" || error.kind === "failed" ? error.message : t.agent.errorKind[error.kind];
  return t.agent.failure(what, message);
}

export function createAgentUi(deps: AgentUiDeps): AgentUi {
  const state = storeSignal(deps.session.store);
  const list = (configured: readonly string[], builtIn: readonly string[]) => (configured.length ? configured : builtIn);
  const ui: AgentUi = {
    session: deps.session,
    state,
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
    if (next && JSON.stringify(next) !== JSON.stringify(nextBefore) && (s.wrapUp?.id === before.wrapUp?.id || !s.wrapUp)) deps.announce(a.next(nextLabel(next, t)));
    if (s.error && s.error !== before.error) deps.announce(a.failed(errorText(s.error, t)));
    if (s.dialling && !before.dialling) deps.announce(t.agent.dialling(s.dialling.number));
    if (s.dialling?.failed && !before.dialling?.failed) deps.announce(t.agent.failure(s.dialling.number, t.agent.dialFailed[s.dialling.failed]));
    if (s.wrapUp && s.wrapUp.id !== before.wrapUp?.id) deps.announce(t.agent.wrapUp.announceStart(Math.round((s.wrapUp.endsAt - Date.now()) / 1000)));
    if (!s.wrapUp && before.wrapUp && s.phase === "on") deps.announce(t.agent.wrapUp.announceEnd);
  });
  return ui;
}
