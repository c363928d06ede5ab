import { useComputed } from "@preact/signals";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { AgentOrder, DEFAULT_QUERY, inWrapUp, statusSinceOf, type AgentQuery } from "../../cc/supervisor";
import { statusLabel } from "../words/agent-words";
import { useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { storeSignal } from "../model/store-signal";
import { useSupervisor } from "./use-supervisor";
import { RowActions } from "./agent-actions";

const ROW_HEIGHT = { full: 64, twoLine: 88, compact: 140 };
/** Below this width (px) of the list, a row of the full page puts its actions on a line of their own. */
const TWO_LINE_BELOW = 1100;

/** What of the list is in view, and how wide it is. */
const viewOf = (el: HTMLElement) => ({
  top: el.scrollTop,
  height: el.clientHeight || 600,
  width: el.clientWidth || Infinity,
});
/** Rows rendered beyond each edge of the view, so that a scroll shows drawn rows: each costs as much as one in view. */
const OVERSCAN = 3;

/** The agents: a search, two filters and an order; only the rows in view are in the page. */
export function AgentList({ compact }: { compact: boolean }) {
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
  // The board's order, kept up to date batch by batch (only the agents that changed are placed again).
  const order = useMemo(() => new AgentOrder(), []);
  const ids = useMemo(() => {
    const fresh = order.select(agents.value, query);
    // A new query orders afresh, whatever holds the rows.
    const hold = (held.pointer || held.focus) && shown.current.query === query;
    shown.current = { query, ids: hold ? keepPlaces(shown.current.ids, fresh, agents.value) : fresh };
    return shown.current.ids;
  }, [agents.value, query, held, order]);
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
        <span class="status-line">
          <span class={`badge status-pill ${row.kind}`} data-testid="agent-status">
            {statusLabel(row, t.value)}
          </span>
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
          <span>{row.noAnswerCount ? m.noAnswerCount(row.noAnswerCount) : ""}</span>
        </div>
      )}
      <RowActions row={row} />
    </li>
  );
}
