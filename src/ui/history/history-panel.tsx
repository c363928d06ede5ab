import { useEffect, useId, useRef, useState } from "preact/hooks";
import { actionLogOf } from "../../cc/supervisor/action-log";
import { supervisionLegOf } from "../../cc/supervisor/supervision-legs";
import type { SessionStore } from "../../session";
import {
  createCallHistory,
  NO_FILTER,
  type CallHistoryFilter,
  type CallHistoryStore,
  type Conversation,
} from "../../session/call-history";
import {
  ChevronIcon,
  IncomingIcon,
  OutgoingIcon,
  PauseIcon,
  PhoneIcon,
  PlayIcon,
  RefreshIcon,
  SearchIcon,
} from "../icons";
import { useModel, usePhone } from "../model/model";
import { storeSignal } from "../model/store-signal";
import { formatDuration, formatMoment } from "../shared/format";
import { supervisionWord } from "../words/call-words";

type Period = "all" | "1" | "7" | "30" | "dates";

/**
 * The history store lives with this module, so that a page without the history (the bar)
 * loads neither its code nor the call-record client. One per session store.
 */
const stores = new WeakMap<SessionStore, CallHistoryStore>();

function useHistory() {
  const { sessionStore } = useModel();
  let store = stores.get(sessionStore);
  if (!store) stores.set(sessionStore, (store = createCallHistory({ session: sessionStore })));
  // A supervisor's legs are told apart with the action log where the records cannot tell.
  return { history: store, state: storeSignal(store), log: storeSignal(actionLogOf(sessionStore).store) };
}

function Filters() {
  const { t } = useModel();
  const { history, state } = useHistory();
  const h = t.value.history;
  const id = useId();
  const current = state.value.filter;
  const [f, setF] = useState<CallHistoryFilter>(current);
  const [period, setPeriod] = useState<Period>(
    current.lastDays ? (String(current.lastDays) as Period) : current.startDate || current.endDate ? "dates" : "all",
  );
  const set = (patch: Partial<CallHistoryFilter>) => setF({ ...f, ...patch });

  const submit = (e: Event) => {
    e.preventDefault();
    const lastDays = period === "all" || period === "dates" ? 0 : Number(period);
    void history
      .getState()
      .setFilter({ ...f, lastDays, ...(period === "dates" ? {} : { startDate: "", endDate: "" }) });
  };
  const clear = () => {
    const empty = { callerNumber: "", destinationNumber: "", startDate: "", endDate: "", lastDays: 0 };
    setF(empty);
    setPeriod("all");
    void history.getState().setFilter(empty);
  };

  return (
    <form class="history-filters" onSubmit={submit} aria-label={h.search}>
      <div class="field">
        <label for={`${id}-from`}>{h.callerNumber}</label>
        <input
          id={`${id}-from`}
          type="search"
          inputMode="tel"
          value={f.callerNumber}
          onInput={(e) => set({ callerNumber: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${id}-to`}>{h.destinationNumber}</label>
        <input
          id={`${id}-to`}
          type="search"
          inputMode="tel"
          value={f.destinationNumber}
          onInput={(e) => set({ destinationNumber: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${id}-period`}>{h.period}</label>
        <select id={`${id}-period`} value={period} onChange={(e) => setPeriod(e.currentTarget.value as Period)}>
          {(["all", "1", "7", "30", "dates"] as const).map((k) => (
            <option key={k} value={k}>
              {h.periodOption[k]}
            </option>
          ))}
        </select>
      </div>
      {period === "dates" && (
        <>
          <div class="field">
            <label for={`${id}-start`}>{h.startDate}</label>
            <input
              id={`${id}-start`}
              type="date"
              value={f.startDate}
              max={f.endDate || undefined}
              onInput={(e) => set({ startDate: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for={`${id}-end`}>{h.endDate}</label>
            <input
              id={`${id}-end`}
              type="date"
              value={f.endDate}
              min={f.startDate || undefined}
              onInput={(e) => set({ endDate: e.currentTarget.value })}
            />
          </div>
        </>
      )}
      <div class="filter-actions">
        <button type="submit" class="primary">
          {h.search}
        </button>
        <button type="button" class="secondary" onClick={clear}>
          {h.clear}
        </button>
      </div>
    </form>
  );
}

function Row({ call }: { call: Conversation }) {
  const { t, language, agent } = useModel();
  const p = usePhone();
  const { history, state, log } = useHistory();
  const h = t.value.history;
  const record = call.record;
  const supervision = supervisionLegOf(record, log.value.entries);
  const playback = state.value.playback;
  const playing = playback?.uuid === record.uuid ? playback : null;
  const answered = call.talkSec > 0 || call.answeredAt !== null;
  // A call that ended normally without being answered was not answered, whoever hung up.
  const normal = !call.hangupCause || call.hangupCause === "NORMAL_CLEARING";
  const outcome = answered
    ? normal
      ? h.cause.NORMAL_CLEARING
      : (h.cause[call.hangupCause] ?? call.hangupCause)
    : normal
      ? h.notAnswered
      : (h.cause[call.hangupCause] ?? call.hangupCause);
  const who = supervision
    ? supervision.agentName || supervision.agent
    : call.name && call.name !== call.number
      ? call.name
      : call.number || t.value.phone.unknownCaller;
  // The outcome and notes of the after-call work, kept in this browser (the platform has no place for them).
  // (Reading lastDisposition re-renders the row when a wrap-up saves one.)
  const wrapped =
    agent && agent.lastDisposition.value !== undefined
      ? call.uuids.map((uuid) => agent.session.disposition(uuid)).find(Boolean)
      : undefined;
  return (
    <li class="history-row" data-testid="history-row" data-uuid={record.uuid}>
      <span class={`history-dir ${call.direction}`} title={call.direction === "incoming" ? h.incoming : h.outgoing}>
        {call.direction === "incoming" ? <IncomingIcon /> : <OutgoingIcon />}
        <span class="sr-only">{call.direction === "incoming" ? h.incoming : h.outgoing}</span>
      </span>
      <span class="history-who">
        {supervision && (
          <span class="history-supervision" data-testid="history-supervision">
            {supervision.modes.map((mode) => supervisionWord(mode, t.value)).join(" → ")}
          </span>
        )}
        <span class="history-name">{who}</span>
        {who !== call.number && call.number && <span class="history-number">{call.number}</span>}
      </span>
      <span class="history-when">{call.startedAt ? formatMoment(call.startedAt, language.value) : ""}</span>
      <span class="history-duration" data-testid="history-duration">
        {answered ? formatDuration(call.talkSec) : ""}
      </span>
      <span class={`history-outcome${answered ? "" : " missed"}`}>{outcome}</span>
      <span class="history-actions">
        {call.recordingId && (
          <button
            type="button"
            class="icon-button"
            aria-label={playing ? h.stop : h.play}
            title={playing ? h.stop : h.play}
            aria-pressed={!!playing}
            onClick={() =>
              playing
                ? history.getState().stopPlayback()
                : void history.getState().play({ ...record, recordingId: call.recordingId })
            }
          >
            {playing ? <PauseIcon /> : <PlayIcon />}
          </button>
        )}
        {call.number && (
          <button
            type="button"
            class="icon-button"
            aria-label={h.callBack(call.number)}
            title={h.callBack(call.number)}
            onClick={() => (p.dialText.value = call.number)}
          >
            <PhoneIcon />
          </button>
        )}
      </span>
      {wrapped && (wrapped.disposition || wrapped.notes) && (
        <p class="history-wrap-up" data-testid="history-disposition">
          {wrapped.disposition && <strong>{`${h.disposition}: ${wrapped.disposition}`}</strong>}
          {wrapped.notes && <span>{`${h.notes}: ${wrapped.notes}`}</span>}
        </p>
      )}
      {playing && (
        <div class="history-playback">
          {playing.status === "loading" && <span class="spinner" aria-hidden="true" />}
          {playing.status === "failed" && <p class="field-note is-problem">{h.recordingFailed}</p>}
          {playing.url && (
            <audio
              controls
              autoplay
              src={playing.url}
              aria-label={h.play}
              onEnded={() => history.getState().stopPlayback()}
            />
          )}
        </div>
      )}
    </li>
  );
}

/** The user's calls from the platform's call records: filters, pages, recordings, call back. */
export function HistoryPanel() {
  const { t, session, layout, agent } = useModel();
  // The side panel is narrow: its filters open on demand.
  const [filtersOpen, setFiltersOpen] = useState(layout !== "side");
  const p = usePhone();
  const { history, state } = useHistory();
  const h = t.value.history;
  const s = state.value;
  const userId = session.value.user?.id;
  useEffect(() => {
    if (userId) void history.getState().load(1);
  }, [userId]);
  // A card asked for a caller's earlier calls: the history shows that number's, in view.
  const asked = agent?.historyOf.value;
  const titleRef = useRef<HTMLHeadingElement>(null);
  const [formKey, setFormKey] = useState(0);
  useEffect(() => {
    if (!asked) return;
    void history.getState().setFilter({ ...NO_FILTER, callerNumber: asked.number });
    setFormKey((k) => k + 1);
    setFiltersOpen(true);
    titleRef.current?.scrollIntoView({ block: "nearest" });
  }, [asked]);
  // The platform writes the call record as the call ends: the list picks it up a moment later.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = p.phone.on("call-ended", () => {
      clearTimeout(timer);
      timer = setTimeout(() => void history.getState().load(), 1000);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  return (
    <section class="history-panel" aria-labelledby="history-title">
      <div class="history-head">
        <h2 id="history-title" ref={titleRef}>
          {h.title}
        </h2>
        <div class="history-tools">
          {layout === "side" && (
            <button
              type="button"
              class="icon-button"
              aria-label={h.search}
              title={h.search}
              aria-expanded={filtersOpen}
              onClick={() => setFiltersOpen(!filtersOpen)}
            >
              <SearchIcon />
            </button>
          )}
          <button
            type="button"
            class="icon-button"
            aria-label={h.refresh}
            title={h.refresh}
            onClick={() => void history.getState().load()}
          >
            <RefreshIcon />
          </button>
        </div>
      </div>
      {/* A card's request starts the form afresh, with the filter it set. */}
      {filtersOpen && <Filters key={formKey} />}
      <div class="history-body" aria-busy={s.status === "loading"}>
        {s.status === "failed" && s.error && <p class="form-message is-error">{h.failed(s.error.message)}</p>}
        {s.status === "loading" && !s.conversations.length && <p class="history-note">{h.loading}</p>}
        {s.status === "ready" && !s.conversations.length && <p class="history-note">{h.empty}</p>}
        {s.conversations.length > 0 && (
          <ol class="history-list">
            {s.conversations.map((c) => (
              <Row key={c.record.uuid} call={c} />
            ))}
          </ol>
        )}
      </div>
      {s.pageCount > 1 || s.page > 1 ? (
        <nav class="pager" aria-label={h.title}>
          <button
            type="button"
            class="icon-button flip"
            aria-label={h.previous}
            title={h.previous}
            disabled={s.page <= 1}
            onClick={() => void history.getState().load(s.page - 1)}
          >
            <ChevronIcon />
          </button>
          <span>
            {h.page(s.page, s.pageCount)} · {h.total(s.rowCount)}
          </span>
          <button
            type="button"
            class="icon-button"
            aria-label={h.next}
            title={h.next}
            disabled={s.page >= s.pageCount}
            onClick={() => void history.getState().load(s.page + 1)}
          >
            <ChevronIcon />
          </button>
        </nav>
      ) : null}
    </section>
  );
}
