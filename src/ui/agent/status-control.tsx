import { useEffect, useId, useRef } from "preact/hooks";
import { activityOf, hasLiveCcCall, statusKind, type NextStatus } from "../../cc";
import { CloseIcon } from "../icons";
import { useAgent, useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { errorText, nextLabel, statusLabel } from "../words/agent-words";

/**
 * The agent's status as the platform reports it (a coloured dot, the status, the state and for
 * how long) and the menu that changes it: Ready, Ready on demand, Break with a reason, signing out
 * of or into the queues. During a call or after-call work the menu sets the status to take when
 * they end. A change shows as pending until the platform confirms it; a refusal is said in words.
 */
export function StatusControl({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const p = useModel().phone;
  const m = t.value.agent;
  const s = a.state.value;
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const open = a.menuOpen.value;

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLElement>("[role^=menuitem]")?.focus();
    const outside = (e: Event) => {
      if (!root.current?.contains(e.target as Node)) a.menuOpen.value = false;
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  if (s.phase === "off" || s.phase === "no-queues") return null;
  if (s.phase !== "on") {
    return (
      <div
        class={`agent-status phase-${s.phase}${compact ? " compact" : ""}`}
        data-testid="agent-status"
        data-phase={s.phase}
      >
        {s.phase === "failed" ? (
          <p class="agent-problem" role="alert">
            {m.joinFailed(s.problem)}{" "}
            <button type="button" class="link-button" onClick={() => a.act(a.actions.retry())}>
              {m.retry}
            </button>
          </p>
        ) : (
          <p class="agent-note">
            <span class="spinner" aria-hidden="true" />
            {s.phase === "starting" ? m.starting : m.waitingForPhone}
          </p>
        )}
      </div>
    );
  }

  const kind = statusKind(s.agent?.status ?? "");
  const label = statusLabel(s.agent, t.value);
  // What the agent is doing comes first: the platform keeps an agent "Available" through a call.
  const activity = activityOf(s, p?.live.value ?? []);
  const shown = s.pending ? (m.pending[s.pending.command] ?? label) : activity ? m.activity[activity] : label;
  const busy = !!s.wrapUp || (!!p && hasLiveCcCall(p.live.value));
  // The status to take after the call or wrap-up, when it is not the one the agent is in.
  const chosen = s.wrapUp?.next ?? s.next;
  const next =
    chosen && (s.wrapUp?.heldOnBreak || nextLabel(chosen, t.value) !== statusLabel(s.agent, t.value)) ? chosen : null;
  const now = p?.now.value ?? Date.now();
  // "Waiting" means waiting for a call only to a ready agent doing nothing else; on a break it
  // says nothing. During an activity the detail is the status, when it is not plain Ready.
  const ready = kind === "ready" || kind === "on-demand";
  // After Done, the platform may still hold the next offer for a few seconds: said, counting down.
  const offerIn = !activity && ready && s.nextOfferAt > now ? Math.ceil((s.nextOfferAt - now) / 1000) : 0;
  const stateWord = activity
    ? kind === "ready" || (activity === "after-call-work" && s.wrapUp?.heldOnBreak)
      ? ""
      : label
    : offerIn
      ? m.wrapUp.nextOfferIn(formatDuration(offerIn))
      : s.agent?.state && (ready || !["Waiting", "Idle"].includes(s.agent.state))
        ? (m.state[s.agent.state] ?? s.agent.state)
        : "";
  // The card and the wrap-up panel time an activity; the status's own time is for the status.
  const since =
    s.agent?.since && (activity ? stateWord : !offerIn) ? formatDuration(Math.max(0, now - s.agent.since) / 1000) : "";

  const choose = (n: NextStatus | { kind: "sign-in" }) => {
    a.menuOpen.value = false;
    button.current?.focus();
    a.act(a.actions.choose(n));
  };
  /** A status to choose; `checked` marks the one the agent is in. */
  const item = (text: string, onClick: () => void, checked?: boolean, label?: string) => (
    <button
      type="button"
      role={checked === undefined ? "menuitem" : "menuitemradio"}
      aria-checked={checked}
      aria-label={label}
      class="menu-item"
      onClick={onClick}
    >
      {text}
      {checked && (
        <span class="menu-check" aria-hidden="true">
          ✓
        </span>
      )}
    </button>
  );
  // Arrow keys move between the menu's items, Escape closes it, as a menu does.
  const onMenuKey = (e: KeyboardEvent) => {
    const items = [...(root.current?.querySelectorAll<HTMLElement>("[role^=menuitem]") ?? [])];
    const i = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      items[(i + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
    } else if (e.key === "Escape") {
      e.stopPropagation();
      a.menuOpen.value = false;
      button.current?.focus();
    }
  };

  return (
    <div
      class={`agent-status kind-${kind}${activity ? ` busy activity-${activity}` : ""}${compact ? " compact" : ""}`}
      ref={root}
      data-testid="agent-status"
      data-phase="on"
      data-status={s.agent?.status ?? ""}
      data-activity={activity ?? undefined}
    >
      <button
        type="button"
        ref={button}
        class="status-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-busy={s.pending ? true : undefined}
        // In a crowded bar the button keeps only its dot: the tooltip says the status.
        title={compact ? shown : undefined}
        onClick={() => (a.menuOpen.value = !open)}
      >
        <span class="status-dot" aria-hidden="true" />
        {/* The name read out is the visible text between "Status:" and "Change status". */}
        <span class="sr-only">{m.statusPrefix} </span>
        <span class="status-text">
          <span class="status-label" data-testid="agent-status-label">
            {shown}
          </span>
          {!compact && (stateWord || since) && (
            <span class="status-detail">{[stateWord, since && m.since(since)].filter(Boolean).join(" · ")}</span>
          )}
        </span>
        <span class="sr-only">. {m.changeStatus}</span>
        {s.pending && <span class="spinner" aria-hidden="true" />}
      </button>
      {next && (
        <span class="next-status" data-testid="next-status">
          {compact ? `→ ${nextLabel(next, t.value)}` : m.nextStatus(nextLabel(next, t.value))}
          {!s.wrapUp && (
            <button
              type="button"
              class="icon-button tiny"
              aria-label={m.clearNext}
              title={m.clearNext}
              onClick={() => a.act(a.actions.clearNext())}
            >
              <CloseIcon />
            </button>
          )}
        </span>
      )}
      {open && (
        <div
          id={menuId}
          class="status-menu popover-panel align-start"
          role="menu"
          aria-label={busy ? m.afterCall : m.changeStatus}
          onKeyDown={onMenuKey}
        >
          {busy && <p class="menu-heading">{m.afterCall}</p>}
          {kind === "logged-out" ? (
            item(m.signInQueues, () => choose({ kind: "sign-in" }))
          ) : (
            <>
              {item(m.goReady, () => choose({ kind: "ready" }), kind === "ready")}
              {item(m.goOnDemand, () => choose({ kind: "on-demand" }), kind === "on-demand")}
              <p class="menu-heading" aria-hidden="true">
                {m.breakHeading}
              </p>
              {a.breakReasons.value.map((reason) =>
                item(
                  reason,
                  () => choose({ kind: "break", reason }),
                  kind === "break" && s.agent?.reason === reason,
                  m.goBreak(reason),
                ),
              )}
              <hr />
              {item(m.signOutQueues, () => choose({ kind: "logged-out" }))}
            </>
          )}
        </div>
      )}
      {s.error && (
        <p class="agent-error" role="alert" data-testid="agent-error">
          {errorText(s.error, t.value)}
          <button
            type="button"
            class="icon-button tiny"
            aria-label={m.dismiss}
            title={m.dismiss}
            onClick={() => a.act(a.actions.dismissError())}
          >
            <CloseIcon />
          </button>
        </p>
      )}
    </div>
  );
}
