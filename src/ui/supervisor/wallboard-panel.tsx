import { useComputed } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { statusKind } from "../../cc";
import { useModel } from "../model/model";
import { formatMoment } from "../shared/format";
import { AgentDayPanel } from "./agent-day-panel";
import { useSupervisor } from "./use-supervisor";
import { QueueTiles } from "./queue-tiles";
import { ExportDay } from "./export-day";
import { AlertList } from "./alert-list";
import { AgentList } from "./agent-list";
import { Supervising } from "./supervising";
import { ActionLog } from "./action-log";

/** The board of a supervisor: queue figures, the agents (searchable, filtered, sorted), what the supervisor is doing, the log. */
export function WallboardPanel({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const s = useSupervisor();
  useEffect(() => s.show(), [s]);
  const m = t.value.supervisor;
  return (
    <section class={`wallboard card${compact ? " compact" : ""}`} aria-label={m.region} data-testid="wallboard">
      <FeedLine />
      <Supervising />
      {!compact && <AlertList />}
      {!compact && <QueueTiles />}
      {s.detail.value && <AgentDayPanel s={s} number={s.detail.value} onClose={() => (s.detail.value = null)} />}
      <AgentList compact={compact} />
      <ActionLog />
    </section>
  );
}

function FeedLine() {
  const { t, language } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const b = s.board.value;
  return (
    <header class="wallboard-head">
      <h2>{m.agents}</h2>
      {b.stale ? (
        <span class="feed feed-stale" role="status" data-testid="wallboard-stale">
          <span class="feed-dot" aria-hidden="true" />
          {m.stale(formatMoment(b.updatedAt, language.value, s.now.value))}
        </span>
      ) : (
        <span class={`feed feed-${b.source}`} data-testid="wallboard-source" data-source={b.source}>
          <span class="feed-dot" aria-hidden="true" />
          {b.source === "events" ? m.live : m.polling}
        </span>
      )}
      {b.loading && <span class="muted">{m.loading}</span>}
      <ExportDay />
      {b.readError && <span class="error-text">{m.readFailed(b.readError)}</span>}
    </header>
  );
}

/** The one-line bar: agents by status across the board. */
export function WallboardSummary() {
  const { t } = useModel();
  const s = useSupervisor();
  useEffect(() => s.show(), [s]);
  const counts = useComputed(() => {
    let ready = 0;
    let talking = 0;
    let onBreak = 0;
    for (const a of s.board.value.board.agents.values()) {
      if (a.call) talking++;
      else if (a.kind === "ready" || a.kind === "on-demand") ready++;
      else if (statusKind(a.status) === "break") onBreak++;
    }
    return { ready, talking, onBreak };
  }).value;
  return (
    <span class="wallboard-summary small" data-testid="wallboard-summary">
      {t.value.supervisor.bar(counts.ready, counts.talking, counts.onBreak)}
    </span>
  );
}
