import { useEffect, useId, useRef } from "preact/hooks";
import { DEFAULT_EXTEND_SEC, type NextStatus, type WrapUp } from "../../cc";
import { NotesIcon } from "../icons";
import { useAgent, useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { KeptText } from "../shared/kept-text";
import { Popover } from "../shared/popover";

const nextKey = (n: NextStatus) => (n.kind === "break" ? `break:${n.reason}` : n.kind);
const nextOf = (key: string): NextStatus =>
  key.startsWith("break:")
    ? { kind: "break", reason: key.slice(6) }
    : { kind: key as "ready" | "on-demand" | "logged-out" };

/** The last half-minute before after-call work ends by itself is a warning. */
const ENDS_SOON_SEC = 30;

/**
 * After-call work, until the agent presses Done: how long it has lasted, whether calls are held
 * back (a countdown while the platform's wrap_up_time holds them, then the toolbar's break), when
 * it ends by itself if a maximum is set, the outcome of the call, notes (those typed during the
 * call come along), and the status to take when it ends. Every keystroke is kept in the browser
 * at once, so a reload or a crash loses nothing. It takes the focus as it starts when the call's
 * controls had it (or nothing had), so the keyboard goes on with the notes.
 */
export function WrapUpPanel({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const p = useModel().phone;
  const w = a.wrapUp.value;
  const root = useRef<HTMLElement & HTMLDivElement>(null);
  useEffect(() => {
    const focused = document.activeElement;
    if (focused && focused !== document.body && !focused.closest(".call-card")) return;
    root.current?.querySelector<HTMLElement>(compact ? "button" : "textarea")?.focus();
  }, [w?.id]);
  if (!w) return null;
  const m = t.value.agent.wrapUp;
  const now = p?.now.value ?? Date.now();
  const elapsed = formatDuration(Math.max(0, now - w.callEndedAt) / 1000);
  const platformLeft = Math.ceil((w.platformEndsAt - now) / 1000);
  const held = !w.heldOnBreak && platformLeft > 0 ? m.platformHolds(formatDuration(platformLeft)) : m.held;
  const endLeft = w.endsAt > 0 ? Math.max(0, Math.ceil((w.endsAt - now) / 1000)) : null;
  const ends = endLeft === null ? null : (endLeft <= ENDS_SOON_SEC ? m.endsSoon : m.endsIn)(formatDuration(endLeft));
  const soon = endLeft !== null && endLeft <= ENDS_SOON_SEC;
  const timer = (
    <span class="wrap-up-timer" role="timer" data-testid="wrap-up-timer">
      {elapsed}
    </span>
  );
  const notes = (
    <p class={`wrap-up-hold${soon ? " is-warning" : ""}`} data-testid="wrap-up-hold">
      {held}
      {ends && <span data-testid="wrap-up-ends">{` ${ends}`}</span>}
    </p>
  );

  if (compact) {
    return (
      <div class="wrap-up compact" data-testid="wrap-up" role="group" aria-label={m.title} ref={root}>
        <span class="wrap-up-title" title={held}>
          {m.title}
        </span>
        {timer}
        <Popover label={m.notes} icon={<NotesIcon />}>
          {notes}
          <WrapUpForm w={w} />
        </Popover>
        <WrapUpButtons extend={w.endsAt > 0} />
      </div>
    );
  }
  return (
    <section class="wrap-up card" data-testid="wrap-up" aria-label={m.title} ref={root}>
      <header class="wrap-up-head">
        <h2>{m.title}</h2>
        {timer}
      </header>
      <p class="wrap-up-who">{m.with(w.customerName || w.customerNumber, w.queue)}</p>
      {notes}
      <WrapUpForm w={w} />
      <WrapUpButtons extend={w.endsAt > 0} />
    </section>
  );
}

function WrapUpForm({ w }: { w: WrapUp }) {
  const { t } = useModel();
  const a = useAgent();
  const m = t.value.agent;
  const id = useId();
  const store = a.actions;
  const dispositions =
    a.dispositions.value.includes(w.disposition) || !w.disposition
      ? a.dispositions.value
      : [...a.dispositions.value, w.disposition];
  const reasons =
    w.next.kind === "break" && !a.breakReasons.value.includes(w.next.reason)
      ? [...a.breakReasons.value, w.next.reason]
      : a.breakReasons.value;
  return (
    <div class="wrap-up-form">
      <label for={`${id}-d`}>{m.wrapUp.disposition}</label>
      <select id={`${id}-d`} value={w.disposition} onChange={(e) => a.act(store.setDisposition(e.currentTarget.value))}>
        <option value="">{m.wrapUp.noDisposition}</option>
        {dispositions.map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
      <label for={`${id}-n`}>{m.wrapUp.notes}</label>
      <KeptText
        id={`${id}-n`}
        rows={3}
        value={w.notes}
        aria-describedby={`${id}-h`}
        onText={(text) => a.act(store.setNotes(text))}
      />
      <p id={`${id}-h`} class="field-note">
        {m.wrapUp.notesHint}
      </p>
      <label for={`${id}-x`}>{m.wrapUp.next}</label>
      <select
        id={`${id}-x`}
        value={nextKey(w.next)}
        onChange={(e) => a.act(store.choose(nextOf(e.currentTarget.value)))}
      >
        <option value="ready">{m.status.ready}</option>
        <option value="on-demand">{m.status["on-demand"]}</option>
        {reasons.map((r) => (
          <option key={r} value={`break:${r}`}>
            {m.goBreak(r)}
          </option>
        ))}
        <option value="logged-out">{m.signOutQueues}</option>
      </select>
    </div>
  );
}

function WrapUpButtons({ extend }: { extend: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const m = t.value.agent.wrapUp;
  const store = a.actions;
  return (
    <div class="wrap-up-actions">
      {extend && (
        <button type="button" class="secondary" onClick={() => a.act(store.extendWrapUp(DEFAULT_EXTEND_SEC))}>
          {m.extend(DEFAULT_EXTEND_SEC)}
        </button>
      )}
      <button type="button" class="primary" onClick={() => a.act(store.finishWrapUp())}>
        {m.done}
      </button>
    </div>
  );
}
