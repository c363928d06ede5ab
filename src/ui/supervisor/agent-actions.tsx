import { useSignal } from "@preact/signals";
import { useMemo, useRef } from "preact/hooks";
import type { StatusChoice } from "../../cc";
import type { WallboardAgent } from "../../cc/supervisor";
import { useModel } from "../model/model";
import type { SupervisorUi } from "../model/supervisor-ui";
import { useSupervisor } from "./use-supervisor";

/** A row's actions: supervise the agent's call, its day, its status. */
export function RowActions({ row }: { row: WallboardAgent }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const sup = s.supervision.value;
  // The supervisor's own row (signed in to monitor, or also an agent) offers nothing on its own calls.
  const live = !!row.call?.uuid && !!row.call.answeredAt && row.number !== s.self.value;
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
  // Speaking to the customer alone is a switch of a leg already listening: it is in the supervising bar, not in every row.
  return (
    <div class="agent-actions" role="group" aria-label={m.actionsFor(row.name || row.number)}>
      {live && (
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
      )}
      <button
        type="button"
        class={`small${s.detail.value === row.number ? " active" : " secondary"}`}
        aria-pressed={s.detail.value === row.number}
        aria-label={m.dayFor(row.name || row.number)}
        data-testid="agent-day-button"
        onClick={() => (s.detail.value = s.detail.value === row.number ? null : row.number)}
      >
        {m.day}
      </button>
      <StatusChanger row={row} />
    </div>
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
function StatusChanger({ row }: { row: WallboardAgent }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  // The question (which status, confirmed) is this agent's: a row that shows another agent does not
  // ask it (the menu itself stays, not made anew for every agent that passes through the row).
  const question = useSignal<{ agent: string; choice: StatusChoice } | null>(null);
  const asked = {
    get value() {
      return question.value?.agent === row.number ? question.value.choice : null;
    },
    set value(choice: StatusChoice | null) {
      question.value = choice ? { agent: row.number, choice } : null;
    },
  };
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
  if (asked.value) {
    const choice = asked.value;
    return (
      <span class="confirm-status" role="group">
        <span class="small">{m.confirmStatus(row.name || row.number, label(choice))}</span>
        <button
          type="button"
          class="small"
          onClick={() => {
            asked.value = null;
            s.act(s.actions.setAgentStatus(row.number, choice));
          }}
        >
          {m.confirm}
        </button>
        <button type="button" class="small secondary" onClick={() => (asked.value = null)}>
          {m.cancel}
        </button>
      </span>
    );
  }
  return (
    <select
      class="small"
      aria-label={`${m.setStatus}: ${row.name || row.number}`}
      value=""
      onChange={(e) => {
        const picked = choices.find((c) => c.value === e.currentTarget.value);
        e.currentTarget.value = "";
        if (picked) asked.value = picked.choice;
      }}
    >
      {options}
    </select>
  );
}
