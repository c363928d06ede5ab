import { useComputed, useSignal, type ReadonlySignal, type Signal } from "@preact/signals";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { AgentOrder, DEFAULT_QUERY, type AgentQuery } from "../../cc/supervisor";
import { useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { useSupervisor } from "./use-supervisor";
import { RowActions } from "./agent-actions";
import { rowWords, type RowWords } from "./row-words";

const ROW_HEIGHT = { full: 64, twoLine: 88, compact: 140 };
/** Below this width (px) of the list, a row of the full page puts its actions on a line of their own. */
const TWO_LINE_BELOW = 1100;

/** What of the list is in view, and how wide it is. */
const viewOf = (el: HTMLElement) => ({
  top: el.scrollTop,
  height: el.clientHeight || 600,
  width: el.clientWidth || Infinity,
});
/**
 * Rows rendered beyond each edge of the view, so that a scroll shows drawn rows: each costs as
 * much as one in view at every batch of changes. A scroll renders the rows of its new view before
 * the frame that shows it; one row more covers a frame the compositor scrolls on its own while
 * the page's thread is busy (docs/decisions.md, "Figures": three rows cost 0.2 to 0.4 ms a batch).
 */
const OVERSCAN = 1;

/** The agents: a search, two filters and an order; only the rows in view are in the page. */
export function AgentList({ compact }: { compact: boolean }) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const query = useSignal<AgentQuery>(DEFAULT_QUERY);
  const agents = useComputed(() => s.board.value.board.agents);
  // While the pointer is over the rows or the focus in them, rows keep their places (a row
  // changes in place; newcomers join at the end): a click or a key meant for one agent never
  // lands on another that moved under it. Otherwise the order follows the board.
  const held = useSignal({ pointer: false, focus: false });
  const shown = useRef({ query: query.peek(), ids: [] as string[] });
  // The board's order, kept up to date batch by batch (only the agents that changed are placed again).
  const order = useMemo(() => new AgentOrder(), []);
  // The agents in the list's order, as a signal: each row reads its own place in it, so that a
  // batch of the board's changes rewrites the rows' words where they are (text and attributes
  // bound to signals), without rendering the list or its rows again.
  const ids = useComputed(() => {
    const q = query.value;
    const fresh = order.select(agents.value, q);
    // A new query orders afresh, whatever holds the rows.
    const hold = (held.value.pointer || held.value.focus) && shown.current.query === q;
    shown.current = { query: q, ids: hold ? keepPlaces(shown.current.ids, fresh, agents.value) : fresh };
    return shown.current.ids;
  });
  const count = useComputed(() => ids.value.length).value;
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
  const last = Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN);
  const places = [];
  for (let place = first; place < last; place++) places.push(place);
  return (
    <div class="agent-board">
      <BoardFilters query={query} count={count} agents={agents} />
      <div
        class="board-scroller"
        ref={scroller}
        onScroll={(e) => setView(viewOf(e.currentTarget))}
        onPointerEnter={() => (held.value = { ...held.value, pointer: true })}
        onPointerLeave={() => (held.value = { ...held.value, pointer: false })}
        onFocusIn={() => {
          if (!held.value.focus) held.value = { ...held.value, focus: true };
        }}
        onFocusOut={(e) => {
          const to = e.relatedTarget;
          if (!(to instanceof Node && e.currentTarget.contains(to))) held.value = { ...held.value, focus: false };
        }}
      >
        {count === 0 ? (
          <p class="muted">{m.empty}</p>
        ) : (
          <ul
            class={`agent-rows${compact ? " compact" : twoLine ? " two-line" : ""}`}
            aria-label={m.agents}
            style={{ height: `${count * rowHeight}px` }}
          >
            {/* Keyed by place: a row whose agent changed takes the next agent's words, not new elements. */}
            {places.map((place) => (
              <AgentRow
                key={place}
                ids={ids}
                place={place}
                total={count}
                top={place * rowHeight}
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

/** The search, the filters, the order and how many agents they keep: rendered when one of them changes, not at every batch. */
function BoardFilters({
  query,
  count,
  agents,
}: {
  query: Signal<AgentQuery>;
  count: number;
  agents: ReadonlySignal<ReadonlyMap<string, unknown>>;
}) {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const q = query.value;
  // The queues' names, the same array while they are the same (a batch of changes keeps them).
  const queuesRef = useRef<string[]>([]);
  const queues = useComputed(() => {
    const names = [...s.board.value.board.queues.keys()].sort();
    const before = queuesRef.current;
    if (names.length !== before.length || names.some((n, i) => n !== before[i])) queuesRef.current = names;
    return queuesRef.current;
  }).value;
  const total = useComputed(() => agents.value.size).value;
  const change = (patch: Partial<AgentQuery>) => (query.value = { ...query.value, ...patch });
  return (
    <div class="board-filters" role="search">
      <input
        type="search"
        aria-label={m.search}
        placeholder={m.search}
        value={q.search}
        onInput={(e) => change({ search: e.currentTarget.value })}
        data-testid="wallboard-search"
      />
      <select aria-label={m.filterQueue} value={q.queue} onChange={(e) => change({ queue: e.currentTarget.value })}>
        <option value="">{m.allQueues}</option>
        {queues.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <select
        aria-label={m.filterStatus}
        value={q.status}
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
        value={q.sort}
        onChange={(e) => change({ sort: e.currentTarget.value as AgentQuery["sort"] })}
      >
        {(["status", "name", "extension", "time"] as const).map((k) => (
          <option key={k} value={k}>
            {m.sort[k]}
          </option>
        ))}
      </select>
      <span class="muted small" data-testid="wallboard-count" aria-live="polite">
        {m.count(count, total)}
      </span>
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

/** One place of the list: rendered when it is placed or its shape changes; its words follow its agent by themselves. */
function AgentRow({
  ids,
  place,
  total,
  top,
  height,
  compact,
}: {
  ids: ReadonlySignal<readonly string[]>;
  place: number;
  total: number;
  top: number;
  height: number;
  compact: boolean;
}) {
  const { t } = useModel();
  const s = useSupervisor();
  const r = useMemo(() => rowWords(s, t, ids, place), [s, t, ids, place]);
  if (!r.shown.value) return null;
  const m = t.value.supervisor;
  return (
    <li
      class={r.rowClass}
      style={{ transform: `translateY(${top}px)`, height: `${height}px` }}
      aria-posinset={place + 1}
      aria-setsize={total}
      data-agent={r.number}
      data-testid="agent-row"
    >
      <div class="agent-who">
        <strong>{r.name}</strong>
        <span class="muted small">{r.extension}</span>
      </div>
      <div class="agent-state">
        <span class="status-line">
          <span class={r.pillClass} data-testid="agent-status">
            {r.status}
          </span>
        </span>
        <span class="muted small" data-testid="agent-time" data-exact={r.exact} data-since={r.sinceAt}>
          {r.time}
        </span>
      </div>
      <div class="agent-call" data-testid="agent-call">
        {r.hasCall.value ? <CallWords r={r} /> : <span class="muted small">{r.callState}</span>}
      </div>
      {!compact && (
        <div class="agent-noanswer small" title={m.columns.noAnswer}>
          <span>{r.noAnswer}</span>
        </div>
      )}
      <RowActions r={r} />
    </li>
  );
}

/** The call an agent is on: rendered again when its row changes (a row with a call). */
function CallWords({ r }: { r: RowWords }) {
  const s = useSupervisor();
  const call = r.row.value?.call;
  if (!call) return null;
  const now = s.now.value;
  const callState = r.callState.value;
  return (
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
  );
}
