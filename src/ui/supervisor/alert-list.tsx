import { useModel } from "../model/model";
import { formatMoment } from "../shared/format";
import { alertText } from "../model/supervisor-ui";
import { useSupervisor } from "./use-supervisor";

/** The thresholds breached now, each with since when; the sound's switch. */
export function AlertList() {
  const { t, language } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const active = s.alerts.value.active;
  return (
    <section class="alert-list" aria-label={m.alerts} data-testid="alerts">
      <h3>
        {m.alerts} ({active.length})
      </h3>
      {active.length === 0 ? (
        <p class="muted small">{m.noAlerts}</p>
      ) : (
        <ul>
          {active.map((a) => (
            <li key={a.id} class="breach" data-kind={a.kind} data-queue={a.queue}>
              {alertText(a, t.value)}{" "}
              <span class="muted small">{m.alertSince(formatMoment(a.since, language.value, s.now.value))}</span>
            </li>
          ))}
        </ul>
      )}
      <label class="small">
        <input
          type="checkbox"
          data-testid="alert-sound"
          checked={s.alertSound.value}
          onChange={(e) => (s.alertSound.value = e.currentTarget.checked)}
        />
        {m.alertSound}
      </label>
    </section>
  );
}
