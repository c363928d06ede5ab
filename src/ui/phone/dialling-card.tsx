import { CloseIcon } from "../icons";
import { useAgent, useModel } from "../model/model";

/**
 * A click-to-dial before the agent's phone rings (the platform calls the phone first): the number,
 * that the phone will ring, and Cancel; or, when it failed before the phone rang, why, and Dismiss.
 * The call's own card takes over once the phone rings.
 */
export function DiallingCard({ compact }: { compact: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const d = a.dialling.value;
  if (!d) return null;
  const m = t.value.agent;
  const note = d.failed ? m.dialFailed[d.failed] : m.diallingNote;
  const action = d.failed ? m.dismiss : m.cancelDial;
  return (
    <article
      class={`call-card dialling${d.failed ? " failed" : ""}${compact ? " compact" : ""}`}
      aria-label={d.failed ? note : m.dialling(d.number)}
      data-testid="dialling"
      data-state={d.failed ? "failed" : "calling"}
    >
      <div class="call-head">
        {!d.failed && <span class="spinner" aria-hidden="true" />}
        <div class="call-who">
          <span class="call-name">{d.number}</span>
          <span class="call-number" title={compact ? note : undefined}>
            {note}
          </span>
        </div>
      </div>
      <div class="call-actions">
        <button
          type="button"
          class={`call-action ${d.failed ? "ghost" : "secondary"}`}
          aria-label={action}
          title={compact ? action : undefined}
          onClick={() => a.act(a.actions.cancelDial())}
        >
          <CloseIcon />
          {!compact && <span>{action}</span>}
        </button>
      </div>
    </article>
  );
}
