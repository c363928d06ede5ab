import { supervisionWord } from "../words/call-words";
import { useModel } from "../model/model";
import { formatMoment } from "../shared/format";
import { useSupervisor } from "./use-supervisor";

/** What the supervisor did, kept in this browser. */
export function ActionLog() {
  const { t, language } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const log = s.supervision.value.log;
  return (
    <details class="action-log" data-testid="action-log">
      <summary>
        {m.log} ({log.length})
      </summary>
      {log.length === 0 ? (
        <p class="muted small">{m.logEmpty}</p>
      ) : (
        <ol>
          {log.map((l) => (
            <li key={`${l.at}-${l.command}-${l.agent}`} class={l.outcome}>
              {m.logLine(
                formatMoment(l.at, language.value),
                l.by,
                supervisionWord(l.command, t.value),
                `${l.agentName || l.agent}${l.detail ? ` (${l.detail})` : ""}`,
              )}
              {l.outcome === "failed" && ` · ${m.logFailed(l.error ?? "")}`}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
