import { supervisionWord } from "../words/call-words";
import { useModel } from "../model/model";
import { supervisorErrorText } from "../model/supervisor-ui";
import { useSupervisor } from "./use-supervisor";
import { InterceptButton, customerOfAgent } from "./agent-actions";

/** What the supervisor is doing now: whose call, in which mode, and the way to switch or leave. */
export function Supervising() {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const sup = s.supervision.value;
  const current = sup.current;
  return (
    <div class="supervising" aria-live="polite" data-testid="supervising">
      {sup.pending && (
        <p class="pending">
          <span class="spinner" aria-hidden="true" />
          {m.pending[sup.pending.command]}
        </p>
      )}
      {current && (
        <div class="supervising-now" data-mode={current.mode}>
          <strong>{m.supervising(current.agentName || current.agent, current.customer)}</strong>
          <span data-testid="supervision-mode">{m.mode[current.mode]}</span>
          <span class="muted small" data-testid="agent-told">
            {current.agentTold === null
              ? m.agentToldUnknown
              : current.agentTold
                ? m.agentTold(current.agentName || current.agent)
                : m.agentNotTold(current.agentName || current.agent)}
          </span>
          <span class="supervising-actions">
            {MODES.map(([mode, action]) => (
              <button
                key={mode}
                type="button"
                class={`small${current.mode === mode ? " active" : " secondary"}`}
                aria-pressed={current.mode === mode}
                disabled={!!sup.pending}
                onClick={() => s.act(s.actions[action](current.agent))}
              >
                {supervisionWord(mode, t.value)}
              </button>
            ))}
            <InterceptButton
              agent={current.agent}
              agentName={current.agentName || current.agent}
              customer={customerOfAgent(s, current.agent) || current.customer}
            />
            <button type="button" class="small danger" disabled={!!sup.pending} onClick={() => s.act(s.actions.stop())}>
              {m.stop}
            </button>
          </span>
        </div>
      )}
      {sup.error && (
        <p class="error-text" role="alert">
          {supervisorErrorText(sup.error, t.value)}
          <button type="button" class="small secondary" onClick={() => s.actions.dismissError()}>
            {t.value.phone.dismiss}
          </button>
        </p>
      )}
    </div>
  );
}

/** The modes a supervisor switches between on the same leg, and the action that asks for each. */
const MODES = [
  ["monitor", "monitor"],
  ["whisper", "whisper"],
  ["whisper-customer", "whisperCustomer"],
  ["barge", "barge"],
] as const;
