import { useComputed, useSignal } from "@preact/signals";
import { useMemo, useRef } from "preact/hooks";
import type { StatusChoice } from "../../cc";
import type { WallboardAgent } from "../../cc/supervisor";
import { useModel } from "../model/model";
import type { SupervisorUi } from "../model/supervisor-ui";
import { useSupervisor } from "./use-supervisor";
import type { RowWords } from "./row-words";

/** A row's actions: supervise the agent's call, its day, its status. */
export function RowActions({ r }: { r: RowWords }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  // Speaking to the customer alone is a switch of a leg already listening: it is in the supervising bar, not in every row.
  return (
    <div class="agent-actions" role="group" aria-label={r.actionsLabel}>
      {r.live.value && <SuperviseActions r={r} />}
      <button
        type="button"
        class={r.dayClass}
        aria-pressed={r.dayOpen}
        aria-label={r.dayLabel}
        data-testid="agent-day-button"
        onClick={() => {
          const number = r.number.peek();
          s.detail.value = s.detail.value === number ? null : number;
        }}
      >
        {m.day}
      </button>
      <StatusChanger r={r} />
    </div>
  );
}

/** Monitor, whisper, barge in and intercept, on a row whose agent is on a live call: rendered again when its row changes. */
function SuperviseActions({ r }: { r: RowWords }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const row = r.row.value;
  if (!row) return null;
  const sup = s.supervision.value;
  const mine = sup.current?.agent === row.number ? sup.current : null;
  const busy = !!sup.pending;
  const button = (label: string, action: () => Promise<void>, active = false) => (
    <button
      type="button"
      class={`small${active ? " active" : " secondary"}`}
      aria-pressed={active}
      disabled={busy}
      onClick={() => s.act(action())}
    >
      {label}
    </button>
  );
  return (
    <>
      {button(m.monitor, () => s.actions.monitor(row.number), mine?.mode === "monitor")}
      {button(m.whisper, () => s.actions.whisper(row.number), mine?.mode === "whisper")}
      {button(m.barge, () => s.actions.barge(row.number), mine?.mode === "barge")}
      <InterceptButton
        key={row.number}
        agent={row.number}
        agentName={row.name || row.number}
        customer={customerOf(row)}
      />
    </>
  );
}

const customerOf = (row: WallboardAgent) =>
  row.call
    ? row.call.name && row.call.name !== row.call.number
      ? `${row.call.name} (${row.call.number})`
      : row.call.number
    : "";

export const customerOfAgent = (s: SupervisorUi, agent: string) => {
  const row = s.wallboard.store.getState().board.agents.get(agent);
  return row ? customerOf(row) : "";
};

/**
 * Intercept takes a live customer away from the agent: it asks once, in the row itself (the
 * confirmation takes the focus, Escape or Cancel goes back), before anything reaches the platform.
 */
export function InterceptButton({
  agent,
  agentName,
  customer,
}: {
  agent: string;
  agentName: string;
  customer: string;
}) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const asking = useSignal(false);
  const opener = useRef<HTMLButtonElement>(null);
  const busy = !!s.supervision.value.pending;
  const close = () => {
    asking.value = false;
    // Back where the supervisor was (the button comes back once the question is gone).
    queueMicrotask(() => opener.current?.focus());
  };
  if (asking.value)
    return (
      <span
        class="confirm-status confirm-intercept"
        role="group"
        aria-label={m.intercept}
        data-testid="confirm-intercept"
        onKeyDown={(e) => {
          if (e.key === "Escape") close();
        }}
      >
        <span class="small">{m.confirmIntercept(agentName, customer || "–")}</span>
        <button
          type="button"
          class="small danger"
          ref={(el) => el?.focus()}
          disabled={busy}
          onClick={() => {
            asking.value = false;
            s.act(s.actions.intercept(agent));
          }}
        >
          {m.interceptNow}
        </button>
        <button type="button" class="small secondary" onClick={close}>
          {m.cancel}
        </button>
      </span>
    );
  return (
    <button type="button" class="small secondary" ref={opener} disabled={busy} onClick={() => (asking.value = true)}>
      {m.intercept}
    </button>
  );
}

/** Ready, Break with a reason, Sign out of queues: chosen, then confirmed. */
function StatusChanger({ r }: { r: RowWords }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  // The question (which status, confirmed) is this agent's: a row that shows another agent does not
  // ask it (the menu itself stays, not made anew for every agent that passes through the row).
  const question = useSignal<{ agent: string; choice: StatusChoice } | null>(null);
  const asked = useComputed(() =>
    question.value && question.value.agent === r.number.value ? question.value : null,
  ).value;
  const reasons = s.breakReasons.value;
  const words = t.value;
  // The same menu for every agent the row shows: made once, its options handed back as they were
  // (Preact skips them) when the row takes another agent's words at a batch of the board's changes.
  const { choices, options } = useMemo(() => {
    const choices: { value: string; label: string; choice: StatusChoice }[] = [
      { value: "ready", label: words.agent.status.ready, choice: { kind: "ready" } },
      ...reasons.map((reason) => ({
        value: `break:${reason}`,
        label: words.agent.goBreak(reason),
        choice: { kind: "break", reason } as StatusChoice,
      })),
      { value: "logged-out", label: words.agent.signOutQueues, choice: { kind: "logged-out" } },
    ];
    const options = [
      <option key="" value="">
        {words.supervisor.setStatus}
      </option>,
      ...choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      )),
    ];
    return { choices, options };
  }, [reasons, words]);
  const label = (c: StatusChoice) => choices.find((x) => JSON.stringify(x.choice) === JSON.stringify(c))?.label ?? "";
  if (asked) {
    return (
      <span class="confirm-status" role="group">
        <span class="small">{m.confirmStatus(r.name.value, label(asked.choice))}</span>
        <button
          type="button"
          class="small"
          onClick={() => {
            question.value = null;
            s.act(s.actions.setAgentStatus(asked.agent, asked.choice));
          }}
        >
          {m.confirm}
        </button>
        <button type="button" class="small secondary" onClick={() => (question.value = null)}>
          {m.cancel}
        </button>
      </span>
    );
  }
  return (
    <select
      class="small"
      aria-label={r.statusMenuLabel}
      value=""
      onChange={(e) => {
        const picked = choices.find((c) => c.value === e.currentTarget.value);
        e.currentTarget.value = "";
        if (picked) question.value = { agent: r.number.peek(), choice: picked.choice };
      }}
    >
      {options}
    </select>
  );
}
