import { computed, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { CommandErrorInfo } from "../../cc";
import {
  breachesOf,
  createAlerts,
  DEFAULT_THRESHOLDS,
  showsWallboard,
  ThresholdStorage,
  type AlertsState,
  type Breach,
  type QueueThresholds,
  type Supervision,
  type SupervisionState,
  type SupervisorActions,
  type SupervisorCommand,
  type Wallboard,
  type WallboardState,
} from "../../cc/supervisor";
import { browserStorage, type KeyValueStorage, type SessionState, type SettingsState } from "../../session";
import type { Messages } from "../i18n";
import { storeSignal } from "./store-signal";

/** The board as any surface shows it (the supervisor's page, the wall screen). */
export interface BoardView {
  wallboard: Wallboard;
  board: ReadonlySignal<WallboardState>;
  /** The platform's clock offset alone (rows read it, not the whole board). */
  clockOffset: ReadonlySignal<number | null>;
  /** The breaches of the queues' thresholds now (each raised once, cleared when it ends). */
  alerts: ReadonlySignal<AlertsState>;
  /** A queue's thresholds (kept in this browser), and setting them. */
  thresholds(queue: string): QueueThresholds;
  setThresholds(queue: string, t: QueueThresholds): void;
  /** Bumped when thresholds change (views that show them read it). */
  thresholdsVersion: ReadonlySignal<number>;
  /** A short sound when an alert is raised (off by default; kept in this browser). */
  alertSound: Signal<boolean>;
  /** The clock the times on the board count with, ticking each second while a board is shown. */
  now: ReadonlySignal<number>;
  /** Starts the clock and the board; returns the stopper. */
  show(): () => void;
}

/** What the supervisor's components see: the board, what the supervisor is doing, the actions. */
export interface SupervisorUi extends BoardView {
  supervision: ReadonlySignal<SupervisionState>;
  actions: SupervisorActions;
  /** The agent whose day is open under the queues (its row's Day button); null: none. */
  detail: Signal<string | null>;
  /** The signed-in supervisor's own agent number (its extension): its row offers nothing on its own calls. */
  self: ReadonlySignal<string>;
  /** The signed-in user may watch the board. */
  allowed: ReadonlySignal<boolean>;
  breakReasons: ReadonlySignal<readonly string[]>;
  /** Runs an action: its failure is in the store's `error` (and announced). */
  act(p: Promise<unknown>): void;
}

export interface BoardViewDeps {
  wallboard: Wallboard;
  session: ReadonlySignal<SessionState>;
  t: ReadonlySignal<Messages>;
  announce(text: string): void;
  now?: () => number;
  /** Where thresholds and the sound choice are kept (default: localStorage). */
  storage?: KeyValueStorage;
  /** Where the alerts on now are kept through a reload (default: sessionStorage). */
  tabStorage?: KeyValueStorage;
  /** Whether the page is hidden (a desktop notification is shown then); default: document.hidden. */
  hidden?: () => boolean;
  /** Shows a desktop notification (default: the browser's, where permission was granted). */
  notify?: (title: string, body: string) => void;
  /** Plays the alert sound (default: a short beep). */
  beep?: () => void;
}

export interface SupervisorUiDeps extends BoardViewDeps {
  supervision: Supervision;
  settings: ReadonlySignal<SettingsState>;
}

const SOUND_KEY = "agentbar.alert-sound";

function browserNotify(title: string, body: string): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    new Notification(title, { body, tag: "agentbar-alert" });
  } catch {
    // Some browsers only notify through a service worker: the list and the sound still tell.
  }
}

function browserBeep(): void {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.1;
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.25);
    osc.onended = () => void ctx.close();
  } catch {
    // No audio here: the list and the notification still tell.
  }
}

/** An alert in words: what breaches, where, the figure and its limit. */
export function alertText(b: Breach, t: Messages): string {
  const words = t.supervisor.alert[b.kind];
  return words ? words(b.agentName || b.agent || b.queue, b.value, b.limit, b.queue) : `${b.queue}: ${b.kind}`;
}

export function supervisorErrorText(error: CommandErrorInfo<SupervisorCommand>, t: Messages): string {
  const what = t.supervisor.failed[error.command] ?? error.command;
  const message = error.kind === "refused" || error.kind === "failed" ? error.message : t.agent.errorKind[error.kind];
  return t.agent.failure(what, message);
}

/**
 * The board as a surface shows it, with or without supervising (the wall screen has no phone): the
 * board's store as signals, the clock, the thresholds kept in this browser and the alerts they
 * raise (told once: in the page's live region, a desktop notification while hidden, the sound).
 */
export function createBoardView(deps: BoardViewDeps): BoardView {
  const clock = deps.now ?? Date.now;
  const now = signal(clock());
  let shown = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const storage = deps.storage ?? browserStorage("localStorage");
  const scopeOf = (st: SessionState) => (st.user ? `${st.user.login}@${st.platformUrl ?? ""}` : "");
  let kept: { scope: string; storage: ThresholdStorage } | null = null;
  const thresholdStorage = () => {
    const scope = scopeOf(deps.session.value);
    if (kept?.scope !== scope) kept = { scope, storage: new ThresholdStorage(storage, scope) };
    return kept.storage;
  };
  const thresholdsVersion = signal(0);
  const alertSound = signal(storage.getItem(SOUND_KEY) === "on");
  alertSound.subscribe((on) => storage.setItem(SOUND_KEY, on ? "on" : "off"));
  const alerts = createAlerts(deps.tabStorage ?? browserStorage("sessionStorage"));
  const thresholdsOf = (queue: string) =>
    scopeOf(deps.session.value) ? thresholdStorage().of(queue) : DEFAULT_THRESHOLDS;
  /** Each second while a board is shown: what breaches now; a new breach is told once. */
  const checkAlerts = (t: number) => {
    const st = deps.wallboard.store.getState();
    alerts.update(
      breachesOf(st.board, thresholdsOf, (q) => deps.wallboard.queueDay(q), deps.wallboard.clock, t),
      t,
      scopeOf(deps.session.value),
    );
  };
  alerts.store.subscribe((a, before) => {
    if (a.raised === before.raised) return;
    const words = a.lastRaised.map((b) => alertText(b, deps.t.value)).join(" ");
    deps.announce(words);
    if ((deps.hidden ?? (() => typeof document !== "undefined" && document.hidden))())
      (deps.notify ?? browserNotify)(deps.t.value.supervisor.alertsTitle, words);
    if (alertSound.value) (deps.beep ?? browserBeep)();
  });
  return {
    wallboard: deps.wallboard,
    board: storeSignal(deps.wallboard.store),
    clockOffset: storeSignal(deps.wallboard.store, (s) => s.clockOffset),
    alerts: storeSignal(alerts.store),
    thresholds: (queue) => {
      void thresholdsVersion.value;
      return thresholdsOf(queue);
    },
    setThresholds(queue, t) {
      thresholdStorage().set(queue, t);
      thresholdsVersion.value++;
      checkAlerts(clock());
    },
    thresholdsVersion,
    alertSound,
    now,
    show() {
      const unwatch = deps.wallboard.watch();
      if (shown++ === 0)
        timer = setInterval(() => {
          now.value = clock();
          checkAlerts(now.value);
        }, 1000);
      return () => {
        unwatch();
        if (--shown === 0 && timer) clearInterval(timer);
      };
    },
  };
}

export function createSupervisorUi(deps: SupervisorUiDeps): SupervisorUi {
  const view = createBoardView(deps);
  const supervision = storeSignal(deps.supervision.store);
  deps.supervision.store.subscribe((s, before) => {
    const m = deps.t.value.supervisor;
    if (s.error && s.error !== before.error) deps.announce(supervisorErrorText(s.error, deps.t.value));
    if (s.current && s.current.mode !== before.current?.mode) deps.announce(m.mode[s.current.mode] ?? "");
  });
  return {
    ...view,
    supervision,
    actions: deps.supervision.actions,
    allowed: computed(() => showsWallboard(deps.session.value.user)),
    detail: signal(null),
    self: computed(() => deps.session.value.user?.extension ?? ""),
    breakReasons: computed(() =>
      deps.settings.value.breakReasons.length ? deps.settings.value.breakReasons : deps.t.value.agent.defaultReasons,
    ),
    act(p) {
      p.catch(() => undefined);
    },
  };
}
