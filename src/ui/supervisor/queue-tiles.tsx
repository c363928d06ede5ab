import { useMemo } from "preact/hooks";
import { summarizeQueue, type AlertKind } from "../../cc/supervisor";
import { useModel } from "../model/model";
import { formatDuration, formatMean, formatMoment } from "../shared/format";
import { IntradayChart } from "./intraday-chart";
import type { SupervisorUi } from "../model/supervisor-ui";
import { useSupervisor } from "./use-supervisor";

/** Each queue's figures, live and of the day, its chart and its thresholds. */
export function QueueTiles() {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const names = [...s.board.value.board.queues.keys()].sort();
  if (!names.length) return null;
  return (
    <div class="queue-tiles" aria-label={m.queues} role="group">
      {names.map((name) => (
        <QueueTile key={name} name={name} />
      ))}
    </div>
  );
}

/**
 * One queue's tile. It renders at every batch of the board's changes (its agents by status, its
 * waiting callers), but what only the queue's day, its thresholds or the words change (the day's
 * figures, the chart, "Today since", the thresholds' form) is made once per change of those and
 * handed back as it was, which Preact skips.
 */
function QueueTile({ name }: { name: string }) {
  const { t, language } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const b = s.board.value;
  const now = s.now.value;
  const limits = s.thresholds(name);
  const day = s.wallboard.queueDay(name);
  const q = summarizeQueue(b.board, name, limits.serviceLevelSeconds, day);
  const breached = breachedKinds(s, name);
  const mark = (kind: AlertKind, base = "") => `${base}${breached.has(kind) ? " breach" : ""}`.trim() || undefined;
  const slBreached = breached.has("service-level");
  const dayFigures = useMemo(
    () => (
      <>
        <div>
          <dt>{m.offered}</dt>
          <dd data-testid="queue-offered">{q.offered}</dd>
        </div>
        <div>
          <dt>{m.answered}</dt>
          <dd data-testid="queue-answered">{q.answered}</dd>
        </div>
        <div>
          <dt>{m.abandoned}</dt>
          <dd data-testid="queue-abandoned">{q.abandoned}</dd>
        </div>
        <div>
          <dt>{m.serviceLevel(limits.serviceLevelSeconds)}</dt>
          <dd
            data-testid="queue-service-level"
            class={slBreached ? "breach" : undefined}
            data-breach={slBreached || undefined}
          >
            {q.serviceLevel === null ? m.noCallsYet : `${Math.round(q.serviceLevel * 100)} %`}
          </dd>
        </div>
        <div>
          <dt>
            <abbr title={m.asaLong}>{m.asa}</abbr>
          </dt>
          <dd data-testid="queue-asa">{formatMean(q.averageSpeedOfAnswer)}</dd>
        </div>
        <div>
          <dt>
            <abbr title={m.ahtLong}>{m.aht}</abbr>
          </dt>
          <dd data-testid="queue-aht">{formatMean(q.averageHandleTime)}</dd>
        </div>
      </>
    ),
    // The day's figures are the same object while the queue's day and the threshold are the same.
    [
      q.offered,
      q.answered,
      q.abandoned,
      q.serviceLevel,
      q.averageSpeedOfAnswer,
      q.averageHandleTime,
      limits.serviceLevelSeconds,
      slBreached,
      m,
    ],
  );
  const source = useMemo(
    () =>
      b.day.status === "failed"
        ? m.recordsFailed(b.day.error ?? "")
        : b.day.status === "read"
          ? m.todayFromRecords(formatMoment(b.day.from, language.value, now))
          : m.readingRecords(b.day.records, b.day.total),
    [b.day, language.value, now, m],
  );
  const thresholds = useMemo(() => <ThresholdsEditor queue={name} />, [name, limits]);
  return (
    <article class="queue-tile" data-queue={name} aria-label={name}>
      <h3>{name}</h3>
      <dl>
        <div>
          <dt>{m.waiting}</dt>
          <dd
            data-testid="queue-waiting"
            class={mark("waiting", q.waiting ? "warn" : "")}
            data-breach={breached.has("waiting") || breached.has("no-agent-ready") || undefined}
          >
            {q.waiting ?? "–"}
          </dd>
        </div>
        <div>
          <dt>{m.longestWait}</dt>
          <dd
            data-testid="queue-longest-wait"
            class={mark("longest-wait")}
            data-breach={breached.has("longest-wait") || undefined}
          >
            {q.longestWaitingSince !== null
              ? formatDuration((now - q.longestWaitingSince) / 1000)
              : q.waitingUnseen
                ? m.longestWaitUnknown
                : "–"}
          </dd>
        </div>
        {dayFigures}
        <div>
          <dt>{m.byStatus}</dt>
          <dd class={mark("no-agent-ready", "by-status")}>
            {t.value.agent.status.ready} {q.byStatus.ready + q.byStatus["on-demand"]} · {m.inCall} {q.inCall} ·{" "}
            {t.value.agent.status.break} {q.byStatus.break}
          </dd>
        </div>
      </dl>
      <IntradayChart
        queue={name}
        day={day}
        version={day?.version ?? 0}
        thresholdSeconds={limits.serviceLevelSeconds}
        target={limits.serviceLevelTarget}
        now={now}
      />
      <p class="muted small" data-testid="queue-day-source">
        {source}
      </p>
      {b.membersListed === false && <p class="muted small">{m.waitingNotListed}</p>}
      {thresholds}
    </article>
  );
}

const breachedKinds = (s: SupervisorUi, queue: string) =>
  new Set(s.alerts.value.active.filter((a) => a.queue === queue && !a.agent).map((a) => a.kind));

const LIMIT_FIELDS = [
  "serviceLevelSeconds",
  "serviceLevelTarget",
  "longestWaitSeconds",
  "waitingMax",
  "breakMinutes",
  "wrapUpSeconds",
  "callMinutes",
] as const;

/** A queue's thresholds, kept in this browser: a number each (empty: no alert), and whether "no agent ready" alerts. */
function ThresholdsEditor({ queue }: { queue: string }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const current = s.thresholds(queue);
  return (
    <details class="thresholds">
      <summary>{m.thresholds}</summary>
      <form
        aria-label={m.thresholdsFor(queue)}
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const next = { ...current, noAgentReady: data.get("noAgentReady") === "on" };
          for (const k of LIMIT_FIELDS) {
            const raw = String(data.get(k) ?? "").trim();
            const n = raw === "" ? null : Number(raw);
            if (k === "serviceLevelSeconds") next[k] = n && n > 0 ? n : current[k];
            else next[k] = n === null || (Number.isFinite(n) && n >= 0) ? n : current[k];
          }
          s.setThresholds(queue, next);
        }}
      >
        {LIMIT_FIELDS.map((k) => (
          <label key={k} class="small">
            {m.thresholdField[k]}
            <input
              type="number"
              name={k}
              min={k === "serviceLevelSeconds" ? 1 : 0}
              max={k === "serviceLevelTarget" ? 100 : undefined}
              required={k === "serviceLevelSeconds"}
              value={current[k] ?? ""}
            />
          </label>
        ))}
        <label class="small check">
          <input type="checkbox" name="noAgentReady" checked={current.noAgentReady} />
          {m.noAgentReadyField}
        </label>
        <p class="muted small">{m.emptyMeansNone}</p>
        <button type="submit" class="small">
          {m.save}
        </button>
      </form>
    </details>
  );
}
