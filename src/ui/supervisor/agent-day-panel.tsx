import { useMemo } from "preact/hooks";
import { agentCalls, type AgentSegment } from "../../cc/supervisor";
import { useModel } from "../model/model";
import { formatDuration, formatMean, formatMoment } from "../shared/format";
import type { SupervisorUi } from "../model/supervisor-ui";

const percent = (x: number | null) => (x === null ? "–" : `${Math.round(x * 100)} %`);

/**
 * One agent's day, opened from its row: calls handled and their mean handle time (the queues'
 * records and events), occupancy and the time in each status, and the status timeline (as an SVG
 * bar with the same segments in a table for screen readers). The statuses come from what the
 * board saw: the spec's platform keeps no history of them, and the panel says since when.
 */
export function AgentDayPanel({ s, number, onClose }: { s: SupervisorUi; number: string; onClose: () => void }) {
  const { t, language } = useModel();
  const m = t.value.supervisor;
  const now = s.now.value;
  const b = s.board.value;
  const row = b.board.agents.get(number);
  const calls = useMemo(() => agentCalls(s.wallboard.queueDays(), number), [s, number, b.dayVersion]);
  const day = s.wallboard.agentDay(number, now);
  if (!row || !day) return null;
  const name = row.name || number;
  const span = Math.max(1, now - day.knownSince);
  const segments = day.segments.map((seg, i) => ({ seg, to: day.segments[i + 1]?.from ?? now }));
  const words = t.value.agent.status as Record<string, string>;
  const label = (seg: AgentSegment) =>
    `${statusWords(seg.reason ? `${seg.status} · ${seg.reason}` : seg.status, words)}${seg.busy ? ` · ${m.inCall}` : ""}`;
  return (
    <section class="agent-day card" aria-label={m.dayOf(name)} data-testid="agent-day">
      <header class="agent-day-head">
        <h3>{m.dayOf(name)}</h3>
        <button type="button" class="small secondary" onClick={onClose}>
          {m.close}
        </button>
      </header>
      <dl class="agent-day-figures">
        <div>
          <dt>{m.handled}</dt>
          <dd data-testid="agent-handled">{calls.handled}</dd>
        </div>
        <div>
          <dt>
            <abbr title={m.ahtLong}>{m.aht}</abbr>
          </dt>
          <dd>{formatMean(calls.averageHandleTime)}</dd>
        </div>
        <div>
          <dt>{m.occupancy}</dt>
          <dd data-testid="agent-occupancy">{percent(day.occupancy)}</dd>
        </div>
      </dl>
      <p class="muted small" data-testid="agent-day-source">
        {m.statusesSince(formatMoment(day.knownSince, language.value, now))}
      </p>
      <svg
        class="timeline"
        viewBox="0 0 1000 24"
        preserveAspectRatio="none"
        role="img"
        aria-label={m.timeline}
        data-testid="agent-timeline"
      >
        {segments.map(({ seg, to }) => (
          <rect
            key={seg.from}
            class={`seg ${seg.busy ? "busy" : seg.kind}`}
            x={((seg.from - day.knownSince) / span) * 1000}
            width={Math.max(1, ((to - seg.from) / span) * 1000)}
            y={0}
            height={24}
          >
            <title>{`${label(seg)}: ${formatDuration((to - seg.from) / 1000)}`}</title>
          </rect>
        ))}
      </svg>
      <table class="small">
        <caption class="sr-only">{m.timeline}</caption>
        <thead>
          <tr>
            <th scope="col">{m.from}</th>
            <th scope="col">{m.columns.status}</th>
            <th scope="col">{m.duration}</th>
          </tr>
        </thead>
        <tbody>
          {segments
            .slice(-12)
            .reverse()
            .map(({ seg, to }) => (
              <tr key={seg.from}>
                <td>{formatMoment(seg.from, language.value, now)}</td>
                <td>{label(seg)}</td>
                <td>{formatDuration((to - seg.from) / 1000)}</td>
              </tr>
            ))}
        </tbody>
      </table>
      <h4>{m.timePerStatus}</h4>
      <ul class="time-per-status small" data-testid="agent-time-per-status">
        {[...day.timePerStatus].map(([key, ms]) => (
          <li key={key}>
            {statusWords(key, words)}: {formatDuration(ms / 1000)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "On Break · Lunch" in the user's words. */
function statusWords(key: string, words: Record<string, string>): string {
  const [status = "", reason] = key.split(" · ");
  const kind: Record<string, string> = {
    Available: "ready",
    "Available (On Demand)": "on-demand",
    "On Break": "break",
    "Logged Out": "logged-out",
  };
  const word = words[kind[status] ?? ""] ?? status;
  return reason ? `${word} · ${reason}` : word;
}
