import { useId } from "preact/hooks";
import type { NextStatus, WrapUp } from "../../cc";
import { NotesIcon } from "../icons";
import { useAgent, useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { Popover } from "../shared/popover";

const nextKey = (n: NextStatus) => (n.kind === "break" ? `break:${n.reason}` : n.kind);
const nextOf = (key: string): NextStatus =>
  key.startsWith("break:")
    ? { kind: "break", reason: key.slice(6) }
    : { kind: key as "ready" | "on-demand" | "logged-out" };

/**
 * After-call work: a countdown from the agent's wrap_up_time, the outcome of the call, notes, and
 * the status to take when it ends. Every keystroke is kept in the browser at once, so a reload or
 * a crash loses nothing.
 */
export function WrapUpPanel({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const p = useModel().phone;
  const w = a.wrapUp.value;
  if (!w) return null;
  const m = t.value.agent.wrapUp;
  const now = p?.now.value ?? Date.now();
  const left = Math.max(0, Math.ceil((w.endsAt - now) / 1000));
  const timer = left > 0 ? m.left(formatDuration(left)) : m.over;

  if (compact) {
    return (
      <div class="wrap-up compact" data-testid="wrap-up" role="group" aria-label={m.title}>
        <span class="wrap-up-title">{m.title}</span>
        <span class="wrap-up-timer" role="timer" data-testid="wrap-up-timer">
          {timer}
        </span>
        <Popover label={m.notes} icon={<NotesIcon />}>
          <WrapUpForm w={w} />
        </Popover>
        <WrapUpButtons />
      </div>
    );
  }
  return (
    <section class="wrap-up card" data-testid="wrap-up" aria-label={m.title}>
      <header class="wrap-up-head">
        <h2>{m.title}</h2>
        <span class="wrap-up-timer" role="timer" data-testid="wrap-up-timer">
          {timer}
        </span>
      </header>
      <p class="wrap-up-who">{m.with(w.customerName || w.customerNumber, w.queue)}</p>
      <WrapUpForm w={w} />
      <WrapUpButtons />
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
      <textarea
        id={`${id}-n`}
        rows={3}
        value={w.notes}
        aria-describedby={`${id}-h`}
        onInput={(e) => a.act(store.setNotes(e.currentTarget.value))}
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

function WrapUpButtons() {
  const { t } = useModel();
  const a = useAgent();
  const m = t.value.agent.wrapUp;
  const store = a.actions;
  return (
    <div class="wrap-up-actions">
      <button type="button" class="secondary" onClick={() => a.act(store.extendWrapUp(30))}>
        {m.extend(30)}
      </button>
      <button type="button" class="primary" onClick={() => a.act(store.finishWrapUp())}>
        {m.done}
      </button>
    </div>
  );
}
