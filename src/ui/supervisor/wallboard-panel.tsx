import { useComputed, useSignal } from "@preact/signals";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { statusKind, type StatusChoice } from "../../cc";
import {
  DEFAULT_QUERY,
  inWrapUp,
  selectAgents,
  statusSinceOf,
  summarizeQueue,
  type AgentQuery,
  type AlertKind,
  type WallboardAgent,
} from "../../cc/supervisor";
import { statusLabel } from "../words/agent-words";
import { supervisionWord } from "../words/call-words";
import { useModel } from "../model/model";
import { formatDuration, formatMoment } from "../shared/format";
import { storeSignal } from "../model/store-signal";
import { AgentDayPanel } from "./agent-day-panel";
import { IntradayChart } from "./intraday-chart";
import { alertText, supervisorErrorText, type SupervisorUi } from "../model/supervisor-ui";

function useSupervisor(): SupervisorUi {
  const { supervisor } = useModel();
  if (!supervisor) throw new Error("no supervisor view in this app");
  return supervisor;
}

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

function QueueTiles() {
  const { t, language } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const b = s.board.value;
  const now = s.now.value;
  const names = [...b.board.queues.keys()].sort();
  if (!names.length) return null;
  return (
    <div class="queue-tiles" aria-label={m.queues} role="group">
      {names.map((name) => {
        const limits = s.thresholds(name);
        const q = summarizeQueue(b.board, name, limits.serviceLevelSeconds, s.wallboard.queueDay(name));
        const breached = breachedKinds(s, name);
        const mark = (kind: AlertKind, base = "") =>
          `${base}${breached.has(kind) ? " breach" : ""}`.trim() || undefined;
        return (
          <article key={name} class="queue-tile" data-queue={name} aria-label={name}>
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
                  class={mark("service-level")}
                  data-breach={breached.has("service-level") || undefined}
                >
                  {q.serviceLevel === null ? m.noCallsYet : `${Math.round(q.serviceLevel * 100)} %`}
                </dd>
              </div>
              <div>
                <dt>
                  <abbr title={m.asaLong}>{m.asa}</abbr>
                </dt>
                <dd data-testid="queue-asa">
                  {q.averageSpeedOfAnswer === null ? "–" : formatDuration(q.averageSpeedOfAnswer / 1000)}
                </dd>
              </div>
              <div>
                <dt>
                  <abbr title={m.ahtLong}>{m.aht}</abbr>
                </dt>
                <dd data-testid="queue-aht">
                  {q.averageHandleTime === null ? "–" : formatDuration(q.averageHandleTime / 1000)}
                </dd>
              </div>
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
              day={s.wallboard.queueDay(name)}
              version={s.wallboard.queueDay(name)?.version ?? 0}
              thresholdSeconds={limits.serviceLevelSeconds}
              target={limits.serviceLevelTarget}
              now={now}
            />
            <p class="muted small" data-testid="queue-day-source">
              {b.day.status === "failed"
                ? m.recordsFailed(b.day.error ?? "")
                : b.day.status === "read"
                  ? m.todayFromRecords(formatMoment(b.day.from, language.value, now))
                  : m.readingRecords(b.day.records, b.day.total)}
            </p>
            {b.membersListed === false && <p class="muted small">{m.waitingNotListed}</p>}
            <ThresholdsEditor queue={name} />
          </article>
        );
      })}
    </div>
  );
}

const dateInput = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** Today's (or a chosen day's) queue and agent figures as a CSV file. */
function ExportDay() {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const today = dateInput(new Date(s.now.value));
  const [day, setDay] = useState(today);
  const [state, setState] = useState<{ busy: boolean; error: string }>({ busy: false, error: "" });
  const run = async () => {
    const [y, mo, d] = (day || today).split("-").map(Number) as [number, number, number];
    setState({ busy: true, error: "" });
    try {
      const csv = await s.wallboard.exportDay(new Date(y, mo - 1, d), (q) => s.thresholds(q).serviceLevelSeconds);
      const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `agentbar-${day || today}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState({ busy: false, error: "" });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <span class="export-day">
      <label class="small">
        {m.exportDay} <input type="date" value={day} max={today} onInput={(e) => setDay(e.currentTarget.value)} />
      </label>
      <button
        type="button"
        class="small secondary"
        disabled={state.busy}
        onClick={() => void run()}
        data-testid="export-csv"
      >
        {m.exportCsv}
      </button>
      {state.error && <span class="error-text small">{m.exportFailed(state.error)}</span>}
    </span>
  );
}

const breachedKinds = (s: SupervisorUi, queue: string) =>
  new Set(s.alerts.value.active.filter((a) => a.queue === queue && !a.agent).map((a) => a.kind));

/** The thresholds breached now, each with since when; the sound's switch. */
function AlertList() {
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

const ROW_HEIGHT = { full: 64, twoLine: 88, compact: 140 };
/** Below this width (px) of the list, a row of the full page puts its actions on a line of their own. */
const TWO_LINE_BELOW = 1100;

/** What of the list is in view, and how wide it is. */
const viewOf = (el: HTMLElement) => ({
  top: el.scrollTop,
  height: el.clientHeight || 600,
  width: el.clientWidth || Infinity,
});
const OVERSCAN = 6;

/** The agents: a search, two filters and an order; only the rows in view are in the page. */
function AgentList({ compact }: { compact: boolean }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const [query, setQuery] = useState<AgentQuery>(DEFAULT_QUERY);
  const agents = useComputed(() => s.board.value.board.agents);
  const queues = useComputed(() => [...s.board.value.board.queues.keys()].sort());
  // While the pointer is over the rows or the focus in them, rows keep their places (a row
  // changes in place; newcomers join at the end): a click or a key meant for one agent never
  // lands on another that moved under it. Otherwise the order follows the board.
  const [held, setHeld] = useState({ pointer: false, focus: false });
  const shown = useRef({ query, ids: [] as string[] });
  const ids = useMemo(() => {
    const fresh = selectAgents(agents.value, query);
    // A new query orders afresh, whatever holds the rows.
    const hold = (held.pointer || held.focus) && shown.current.query === query;
    shown.current = { query, ids: hold ? keepPlaces(shown.current.ids, fresh, agents.value) : fresh };
    return shown.current.ids;
  }, [agents.value, query, held]);
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600, width: Infinity });
  const twoLine = !compact && view.width < TWO_LINE_BELOW;
  const rowHeight = compact ? ROW_HEIGHT.compact : twoLine ? ROW_HEIGHT.twoLine : ROW_HEIGHT.full;
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView(viewOf(el));
    measure();
    const observer = typeof ResizeObserver !== "undefined" ? new ResizeObserver(measure) : null;
    observer?.observe(el);
    return () => observer?.disconnect();
  }, []);
  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(ids.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN);
  const change = (patch: Partial<AgentQuery>) => setQuery((q) => ({ ...q, ...patch }));
  return (
    <div class="agent-board">
      <div class="board-filters" role="search">
        <input
          type="search"
          aria-label={m.search}
          placeholder={m.search}
          value={query.search}
          onInput={(e) => change({ search: e.currentTarget.value })}
          data-testid="wallboard-search"
        />
        <select
          aria-label={m.filterQueue}
          value={query.queue}
          onChange={(e) => change({ queue: e.currentTarget.value })}
        >
          <option value="">{m.allQueues}</option>
          {queues.value.map((q) => (
            <option key={q} value={q}>
              {q}
            </option>
          ))}
        </select>
        <select
          aria-label={m.filterStatus}
          value={query.status}
          onChange={(e) => change({ status: e.currentTarget.value as AgentQuery["status"] })}
          data-testid="wallboard-status-filter"
        >
          <option value="">{m.allStatuses}</option>
          <option value="in-call">{m.inACall}</option>
          {(["ready", "on-demand", "break", "logged-out"] as const).map((k) => (
            <option key={k} value={k}>
              {t.value.agent.status[k]}
            </option>
          ))}
        </select>
        <select
          aria-label={m.sortBy}
          value={query.sort}
          onChange={(e) => change({ sort: e.currentTarget.value as AgentQuery["sort"] })}
        >
          {(["status", "name", "extension", "time"] as const).map((k) => (
            <option key={k} value={k}>
              {m.sort[k]}
            </option>
          ))}
        </select>
        <span class="muted small" data-testid="wallboard-count" aria-live="polite">
          {m.count(ids.length, agents.value.size)}
        </span>
      </div>
      <div
        class="board-scroller"
        ref={scroller}
        onScroll={(e) => setView(viewOf(e.currentTarget))}
        onPointerEnter={() => setHeld((h) => ({ ...h, pointer: true }))}
        onPointerLeave={() => setHeld((h) => ({ ...h, pointer: false }))}
        onFocusIn={() => setHeld((h) => (h.focus ? h : { ...h, focus: true }))}
        onFocusOut={(e) => {
          const to = e.relatedTarget;
          if (!(to instanceof Node && e.currentTarget.contains(to))) setHeld((h) => ({ ...h, focus: false }));
        }}
      >
        {ids.length === 0 ? (
          <p class="muted">{m.empty}</p>
        ) : (
          <ul
            class={`agent-rows${compact ? " compact" : twoLine ? " two-line" : ""}`}
            aria-label={m.agents}
            style={{ height: `${ids.length * rowHeight}px` }}
          >
            {/* Keyed by place: a row whose agent changed takes the next agent's words, not new elements. */}
            {ids.slice(first, last).map((id, i) => (
              <AgentRow
                key={first + i}
                number={id}
                index={first + i}
                total={ids.length}
                top={(first + i) * rowHeight}
                height={rowHeight}
                compact={compact}
              />
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

/**
 * The rows shown before in their places (an agent no longer on the board left out; one the query
 * would no longer keep stays until the rows are let go), then the agents new to the list in
 * `fresh`'s order.
 */
function keepPlaces(
  before: readonly string[],
  fresh: readonly string[],
  board: ReadonlyMap<string, unknown>,
): string[] {
  const kept = before.filter((id) => board.has(id));
  const had = new Set(kept);
  return [...kept, ...fresh.filter((id) => !had.has(id))];
}

/** One agent: it re-renders when its own row changes (or the clock ticks), never for another's. */
function AgentRow({
  number,
  index,
  total,
  top,
  height,
  compact,
}: {
  number: string;
  index: number;
  total: number;
  top: number;
  height: number;
  compact: boolean;
}) {
  const { t } = useModel();
  const s = useSupervisor();
  const row = useMemo(() => storeSignal(s.wallboard.store, (st) => st.board.agents.get(number)), [s, number]).value;
  if (!row) return null;
  const m = t.value.supervisor;
  const now = s.now.value;
  // The platform's clock offset, measured from its events: read so that the row shows the exact time once it is known.
  void s.clockOffset.value;
  const since = statusSinceOf(row, s.wallboard.clock);
  const inStatus = formatDuration((now - since.at) / 1000);
  const wrapUp = inWrapUp(row, s.wallboard.clock, now);
  const call = row.call;
  const callState = row.callstate === "IDLE" ? "" : (m.callState[row.callstate] ?? row.callstate);
  return (
    <li
      class={`agent-row status-${row.kind}${call ? " in-call" : ""}`}
      style={{ transform: `translateY(${top}px)`, height: `${height}px` }}
      aria-posinset={index + 1}
      aria-setsize={total}
      data-agent={number}
      data-testid="agent-row"
    >
      <div class="agent-who">
        <strong>{row.name || number}</strong>
        <span class="muted small">{m.extension(row.extension || number)}</span>
      </div>
      <div class="agent-state">
        <span class={`badge status-pill ${row.kind}`} data-testid="agent-status">
          {statusLabel(row, t.value)}
        </span>
        <span class="muted small" data-testid="agent-time" data-exact={since.exact} data-since={since.at}>
          {since.exact ? inStatus : m.atLeast(inStatus)}
          {wrapUp ? ` · ${m.wrapUp}` : row.state ? ` · ${t.value.agent.state[row.state] ?? row.state}` : ""}
        </span>
      </div>
      <div class="agent-call" data-testid="agent-call">
        {call ? (
          <>
            <span>
              {callState && `${callState} · `}
              {call.name && call.name !== call.number ? `${call.name} ` : ""}
              {call.number}
            </span>
            <span class="muted small">
              {call.queue}
              {call.answeredAt ? ` · ${formatDuration((now - call.answeredAt) / 1000)}` : ""}
            </span>
          </>
        ) : (
          <span class="muted small">{callState}</span>
        )}
      </div>
      {!compact && (
        <div class="agent-noanswer small" title={m.columns.noAnswer}>
          {row.noAnswerCount ? m.noAnswerCount(row.noAnswerCount) : ""}
        </div>
      )}
      <RowActions row={row} />
    </li>
  );
}

function RowActions({ row }: { row: WallboardAgent }) {
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
      {/* Its question (which status, confirmed) is this agent's: a row that shows another agent starts afresh. */}
      <StatusChanger key={row.number} row={row} />
    </div>
  );
}

const customerOf = (row: WallboardAgent) =>
  row.call
    ? row.call.name && row.call.name !== row.call.number
      ? `${row.call.name} (${row.call.number})`
      : row.call.number
    : "";

const customerOfAgent = (s: SupervisorUi, agent: string) => {
  const row = s.wallboard.store.getState().board.agents.get(agent);
  return row ? customerOf(row) : "";
};

/**
 * Intercept takes a live customer away from the agent: it asks once, in the row itself (the
 * confirmation takes the focus, Escape or Cancel goes back), before anything reaches the platform.
 */
function InterceptButton({ agent, agentName, customer }: { agent: string; agentName: string; customer: string }) {
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
  const asked = useSignal<StatusChoice | null>(null);
  const choices: { value: string; label: string; choice: StatusChoice }[] = [
    { value: "ready", label: t.value.agent.status.ready, choice: { kind: "ready" } },
    ...s.breakReasons.value.map((reason) => ({
      value: `break:${reason}`,
      label: t.value.agent.goBreak(reason),
      choice: { kind: "break", reason } as StatusChoice,
    })),
    { value: "logged-out", label: t.value.agent.signOutQueues, choice: { kind: "logged-out" } },
  ];
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
      <option value="">{m.setStatus}</option>
      {choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </select>
  );
}

/** What the supervisor is doing now: whose call, in which mode, and the way to switch or leave. */
function Supervising() {
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

function ActionLog() {
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
