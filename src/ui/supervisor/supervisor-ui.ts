import { computed, signal, type ReadonlySignal } from "@preact/signals";
import type { CommandError } from "../../cc";
import {
  isSupervisor,
  type Supervision,
  type SupervisionState,
  type SupervisorActions,
  type SupervisorCommand,
  type Wallboard,
  type WallboardState,
} from "../../cc/supervisor";
import type { SessionState, SettingsState } from "../../session";
import type { Messages } from "../i18n";
import { storeSignal } from "../model/store-signal";

/** What the supervisor's components see: the board, what the supervisor is doing, the actions. */
export interface SupervisorUi {
  wallboard: Wallboard;
  board: ReadonlySignal<WallboardState>;
  supervision: ReadonlySignal<SupervisionState>;
  actions: SupervisorActions;
  /** The signed-in user may watch the board. */
  allowed: ReadonlySignal<boolean>;
  breakReasons: ReadonlySignal<readonly string[]>;
  /** The clock the times on the board count with, ticking each second while a board is shown. */
  now: ReadonlySignal<number>;
  /** Starts the clock and the board; returns the stopper. */
  show(): () => void;
  /** Runs an action: its failure is in the store's `error` (and announced). */
  act(p: Promise<unknown>): void;
}

export interface SupervisorUiDeps {
  wallboard: Wallboard;
  supervision: Supervision;
  session: ReadonlySignal<SessionState>;
  settings: ReadonlySignal<SettingsState>;
  t: ReadonlySignal<Messages>;
  announce(text: string): void;
  now?: () => number;
}

export function supervisorErrorText(error: CommandError<SupervisorCommand>, t: Messages): string {
  const what = t.supervisor.failed[error.command] ?? error.command;
  const message = error.kind === "refused" || error.kind === "failed" ? error.message : t.agent.errorKind[error.kind];
  return t.agent.failure(what, message);
}

export function createSupervisorUi(deps: SupervisorUiDeps): SupervisorUi {
  const clock = deps.now ?? Date.now;
  const now = signal(clock());
  const supervision = storeSignal(deps.supervision.store);
  let shown = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  deps.supervision.store.subscribe((s, before) => {
    const m = deps.t.value.supervisor;
    if (s.error && s.error !== before.error) deps.announce(supervisorErrorText(s.error, deps.t.value));
    if (s.current && s.current.mode !== before.current?.mode) deps.announce(m.mode[s.current.mode] ?? "");
  });
  return {
    wallboard: deps.wallboard,
    board: storeSignal(deps.wallboard.store),
    supervision,
    actions: deps.supervision.actions,
    allowed: computed(() => isSupervisor(deps.session.value.user)),
    breakReasons: computed(() =>
      deps.settings.value.breakReasons.length ? deps.settings.value.breakReasons : deps.t.value.agent.defaultReasons,
    ),
    now,
    show() {
      const unwatch = deps.wallboard.watch();
      if (shown++ === 0) timer = setInterval(() => (now.value = clock()), 1000);
      return () => {
        unwatch();
        if (--shown === 0 && timer) clearInterval(timer);
      };
    },
    act(p) {
      p.catch(() => undefined);
    },
  };
}
