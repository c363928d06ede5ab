import { isLive, type Call, type PageEventTarget, type RegistrationState } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { AgentState, PhoneWatch } from "./agent-state";
import { statusKind } from "./agent-status";
import type { AgentSync } from "./agent-sync";
import type { StatusChoice } from "./status-commands";

/** The break reason the watch sets: what a supervisor's board shows for the agent. */
export const PHONE_UNREACHABLE_REASON = "Phone unreachable";

/** How long the registration may be gone (a reconnection usually takes a second or two) before offers are held back. */
export const PHONE_LOST_GRACE_MS = 10_000;

/**
 * The page's watch over its own phone: whether queue calls can still ring here. When the
 * registration is gone for longer than a short grace, or the browser freezes the page, a Ready
 * agent with no call is set On Break ("Phone unreachable"), once for each such trouble, rather than
 * let the platform offer calls that ring into nowhere and count as unanswered. What happened is
 * kept in the agent's state (`phoneWatch`) for every surface to tell; the agent chooses when to go
 * Ready again. A break the platform refuses is not sent again for the same trouble.
 *
 * A frozen page runs nothing more after its `freeze` event: the break is sent from the event with
 * fetch's keep-alive, which Chromium delivers though the page stops (docs/decisions.md).
 */
export interface PhoneWatcher {
  /** Watches for the agent of the current run (the agent session is working). */
  start(): void;
  stop(): void;
  /** The agent has read what happened after the page slept. */
  dismiss(): void;
}

export interface PhoneWatchDeps {
  ctx: AgentContext;
  sync: Pick<AgentSync, "refresh">;
  /** The phone's registration, as its store tells it. */
  registration: {
    getState(): { registration: RegistrationState };
    subscribe(listener: (s: { registration: RegistrationState }) => void): () => void;
  };
  /** Sets a status the way the agent's own choice does (during after-call work it becomes the next status too). */
  choose(next: StatusChoice): Promise<void>;
  /** The page's `document`, for `freeze` and `resume`; absent where there is no page (tests, a worker). */
  document: PageEventTarget | undefined;
  graceMs?: number;
}

export function createPhoneWatch(deps: PhoneWatchDeps): PhoneWatcher {
  const { ctx } = deps;
  const { store, now } = ctx;
  const graceMs = deps.graceMs ?? PHONE_LOST_GRACE_MS;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let listening: (() => void)[] = [];

  const watch = () => store.getState().phoneWatch;
  const set = (patch: Partial<PhoneWatch>) => store.setState({ phoneWatch: { ...watch(), ...patch } });

  /** Whether the break was sent for the current trouble (sent or refused, it is not sent again). */
  let attempted = false;

  /** A trouble begins (the first of an episode starts afresh) or changes. */
  const troubled = (trouble: NonNullable<PhoneWatch["trouble"]>) => {
    if (!watch().trouble) {
      attempted = false;
      set({ trouble, breakSetAt: 0 });
    } else set({ trouble });
    holdOffersBack();
  };

  /** Once for each trouble, a Ready agent with no call goes On Break, so that no offer rings here unheard. */
  const holdOffersBack = () => {
    const s = store.getState();
    if (!s.phoneWatch.trouble || attempted || !canHoldBack(s, ctx.calls.getState().calls)) return;
    attempted = true;
    set({ breakSetAt: now() });
    deps.choose({ kind: "break", reason: PHONE_UNREACHABLE_REASON }).catch((e: unknown) => {
      // The refusal is the store's `error`, which the toolbar says; the agent decides.
      console.info("agentbar: the break for the unreachable phone was not set", e);
      set({ breakSetAt: 0 });
    });
  };

  /**
   * After a change of the agent or its calls has settled: a call that ends starts after-call work
   * in several steps, and the break then becomes its next status as the agent's own choice would.
   */
  let checkQueued = false;
  const checkSoon = () => {
    if (checkQueued || !watch().trouble || attempted) return;
    checkQueued = true;
    queueMicrotask(() => {
      checkQueued = false;
      holdOffersBack();
    });
  };

  const onRegistration = ({ registration }: { registration: RegistrationState }) => {
    if (registration.status === "registered") {
      clearTimeout(graceTimer);
      graceTimer = undefined;
      if (watch().trouble === "lost") set({ trouble: null });
    } else if (!graceTimer && !watch().trouble) {
      graceTimer = setTimeout(() => {
        graceTimer = undefined;
        if (deps.registration.getState().registration.status !== "registered") troubled("lost");
      }, graceMs);
    }
  };

  // The browser stops the page after this event: whatever the break needs must leave now. The
  // phone unregisters too (src/softphone); that is the sleep, not a lost registration.
  const onFreeze = () => {
    clearTimeout(graceTimer);
    graceTimer = undefined;
    ctx.client?.keepAlive(true);
    troubled("asleep");
  };

  const onResume = () => {
    ctx.client?.keepAlive(false);
    const w = watch();
    const { status } = deps.registration.getState().registration;
    // Failing to reach its server: lost while the page slept, no grace needed. Registering again
    // (the phone does on waking) or registered: as any other registration, with its grace.
    set({
      trouble: status === "reconnecting" || status === "failed" ? "lost" : null,
      woke: attempted ? { at: now() } : w.woke,
    });
    onRegistration(deps.registration.getState());
    // What the platform did meanwhile (the break confirmed, a supervisor's change).
    void deps.sync.refresh();
  };

  // A Ready agent whose phone is still unreachable (a call or a status change ended meanwhile) is
  // held back too; going Ready again after the page slept, the agent has read what happened.
  const onAgent = (s: AgentState, before: AgentState) => {
    if (s.phoneWatch.woke && isReady(s) && !isReady(before)) set({ woke: null });
    else checkSoon();
  };

  return {
    start() {
      // The break of a page that went away (reloaded, closed, frozen for good): this page's phone can take calls.
      const s = store.getState();
      if (statusKind(s.agent?.status ?? "") === "break" && s.agent?.reason === PHONE_UNREACHABLE_REASON)
        set({ woke: { at: now(), earlier: true } });
      listening = [
        deps.registration.subscribe(onRegistration),
        store.subscribe(onAgent),
        ctx.calls.subscribe(checkSoon),
      ];
      const doc = deps.document;
      if (doc) {
        doc.addEventListener("freeze", onFreeze);
        doc.addEventListener("resume", onResume);
        listening.push(() => {
          doc.removeEventListener("freeze", onFreeze);
          doc.removeEventListener("resume", onResume);
        });
      }
      onRegistration(deps.registration.getState());
    },
    stop() {
      clearTimeout(graceTimer);
      graceTimer = undefined;
      listening.forEach((stop) => stop());
      listening = [];
      ctx.client?.keepAlive(false);
    },
    dismiss() {
      set({ woke: null });
    },
  };
}

const isReady = (s: AgentState) => {
  const kind = statusKind(s.agent?.status ?? "");
  return kind === "ready" || kind === "on-demand";
};

/** Offers would reach this agent: working in the queues, Ready, with no call (ringing or not) and no status change under way. */
function canHoldBack(s: AgentState, calls: readonly Call[]): boolean {
  return s.phase === "on" && isReady(s) && !s.pending && !calls.some(isLive);
}
