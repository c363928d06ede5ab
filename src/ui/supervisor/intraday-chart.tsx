import { useMemo } from "preact/hooks";
import { INTERVAL_MS, type QueueDay, type QueueInterval } from "../../cc/supervisor";
import type { Language, Messages } from "../i18n";
import { useModel } from "../model/model";
import { dateFormat } from "../shared/format";
import { scaleTop, serviceLevelSteps, shownIntervals } from "./chart-scale";

/** One object for every call: `dateFormat` keeps its formats by the options object. */
const HOUR_MINUTE: Intl.DateTimeFormatOptions = { hour: "numeric", minute: "2-digit" };
const clock = (ms: number, language: Language) => dateFormat(language, HOUR_MINUTE).format(ms);

/**
 * A queue's day by quarter hour: offered calls as bars (answered, abandoned and still waiting
 * stacked), the service level as a line against its target. Plain SVG (no chart library: see
 * docs/decisions.md), its bars stretched to the width and its labels in HTML, so that they keep
 * their size. The picture is hidden from screen readers, which read the same figures in a table.
 */
export function IntradayChart({
  queue,
  day,
  version,
  thresholdSeconds,
  target,
  now,
  wall = false,
}: {
  queue: string;
  day: QueueDay | undefined;
  /**
   * The day's `version` as the parent read it: the day changes in place, and a component that
   * reads signals re-renders only when a prop or a signal changed.
   */
  version: number;
  thresholdSeconds: number;
  /** The service level target, %; null: none. */
  target: number | null;
  now: number;
  /** The wall screen's larger chart. */
  wall?: boolean;
}) {
  const { t, language } = useModel();
  const slot = day ? Math.floor((now - day.from) / INTERVAL_MS) : 0;
  // Drawn again when a caller changed or a quarter hour began, not at every tick of the clock nor
  // at every batch of the board's changes: the same picture is handed back, which Preact skips.
  return useMemo(
    () => {
      const shown = day ? shownIntervals(day.intervals(thresholdSeconds, now)) : [];
      return shown.length ? chart(shown, queue, thresholdSeconds, target, wall, t.value, language.value) : null;
    },
    // `now` counts only through `slot`; `version` says when the day changed in place.
    [day, version, thresholdSeconds, slot, target, wall, queue, t.value, language.value],
  );
}

function chart(
  shown: readonly QueueInterval[],
  queue: string,
  thresholdSeconds: number,
  target: number | null,
  wall: boolean,
  words: Messages,
  language: Language,
) {
  const m = words.supervisor;
  const top = scaleTop(Math.max(...shown.map((i) => i.offered)));
  const n = shown.length;
  const busy = shown.filter((i) => i.offered > 0);
  const y = (v: number) => 100 - (v / top) * 100;
  const steps = serviceLevelSteps(shown);
  // Whole hours, at most 6 (12 on the wall) labels, none so near the right end that it would stick out.
  const hours = shown.flatMap((i, x) => (new Date(i.from).getMinutes() === 0 ? [{ x, from: i.from }] : []));
  const everyHours = Math.ceil(hours.length / (wall ? 12 : 6));
  const labelled = hours.filter((h, k) => k % everyHours === 0 && h.x / n < 0.85);
  const pct = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)} %`);
  return (
    <figure class={`intraday${wall ? " intraday-wall" : ""}`} data-testid="intraday" data-queue={queue}>
      <figcaption>
        {m.chartTitle} <span class="muted">{m.chartScale(top)}</span>
      </figcaption>
      <div class="intraday-plot">
        <svg viewBox={`0 0 ${n} 100`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
          {shown.map((i, x) => {
            const waiting = Math.max(0, i.offered - i.answered - i.abandoned);
            return (
              <g key={i.from}>
                <rect class="bar-answered" x={x + 0.1} width={0.8} y={y(i.answered)} height={100 - y(i.answered)} />
                <rect
                  class="bar-abandoned"
                  x={x + 0.1}
                  width={0.8}
                  y={y(i.answered + i.abandoned)}
                  height={(i.abandoned / top) * 100}
                />
                <rect class="bar-waiting" x={x + 0.1} width={0.8} y={y(i.offered)} height={(waiting / top) * 100} />
              </g>
            );
          })}
          {target !== null && (
            <line
              class="sl-target"
              x1={0}
              x2={n}
              y1={100 - target}
              y2={100 - target}
              vector-effect="non-scaling-stroke"
            />
          )}
          {steps.map((points) => (
            <polyline key={points} class="sl-line" points={points} vector-effect="non-scaling-stroke" />
          ))}
        </svg>
        <div class="intraday-hours" aria-hidden="true">
          {labelled.map((h) => (
            <span key={h.from} style={{ left: `${(h.x / n) * 100}%` }}>
              {clock(h.from, language)}
            </span>
          ))}
        </div>
      </div>
      <p class="intraday-legend" aria-hidden="true">
        {[
          ["answered", m.answered],
          ["abandoned", m.abandoned],
          ["waiting", m.waiting],
          ["sl", m.serviceLevel(thresholdSeconds)],
          ...(target !== null ? [["target", m.chartTarget(target)]] : []),
        ].map(([key, words]) => (
          <span key={key}>
            <span class={`chart-key key-${key}`} />
            {words}
          </span>
        ))}
      </p>
      <table class="sr-only">
        <caption>{m.chartTable(queue, thresholdSeconds)}</caption>
        <thead>
          <tr>
            <th scope="col">{m.chartInterval}</th>
            <th scope="col">{m.offered}</th>
            <th scope="col">{m.answered}</th>
            <th scope="col">{m.abandoned}</th>
            <th scope="col">{m.serviceLevel(thresholdSeconds)}</th>
          </tr>
        </thead>
        <tbody>
          {busy.length === 0 ? (
            <tr>
              <td colSpan={5}>{m.chartNoCalls}</td>
            </tr>
          ) : (
            busy.map((i) => (
              <tr key={i.from}>
                <th scope="row">
                  {clock(i.from, language)}–{clock(i.from + INTERVAL_MS, language)}
                </th>
                <td>{i.offered}</td>
                <td>{i.answered}</td>
                <td>{i.abandoned}</td>
                <td>{pct(i.serviceLevel)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </figure>
  );
}
