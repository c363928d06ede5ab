import { statusKind, WRAP_UP_BREAK_REASON, type MyDay } from "../../cc";
import { useAgent, useModel } from "../model/model";
import { formatDuration } from "../shared/format";
import { statusLabel } from "../words/agent-words";

/** Seconds in each status today, the current one up to `now`, longest first. */
export function statusTimesOf(day: MyDay, now: number): { status: string; reason: string; sec: number }[] {
  const all = day.statusTimes.map((s) => ({ status: s.status, reason: s.reason, ms: s.ms }));
  const c = day.current;
  if (c) {
    const ms = Math.max(0, now - Math.max(day.statusFrom, c.since));
    const same = all.find((s) => s.status === c.status && s.reason === c.reason);
    if (same) same.ms += ms;
    else all.push({ status: c.status, reason: c.reason, ms });
  }
  return all
    .filter((s) => s.ms >= 1000)
    .sort((a, b) => b.ms - a.ms)
    .map((s) => ({ status: s.status, reason: s.reason, sec: s.ms / 1000 }));
}

/**
 * The agent's own day at a glance (full and side layouts): calls handled today, their mean handle
 * time, time on break (after-call work apart), and the time in each status.
 */
export function MyDayCard() {
  const { t, phone } = useModel();
  const a = useAgent();
  const s = a.state.value;
  if (s.phase !== "on") return null;
  const m = t.value.agent.day;
  const now = phone?.now.value ?? Date.now();
  const times = statusTimesOf(s.day, now);
  const breakSec = times
    .filter((x) => statusKind(x.status) === "break" && x.reason !== WRAP_UP_BREAK_REASON)
    .reduce((sum, x) => sum + x.sec, 0);
  const records = s.day.records;
  const calls = records === "ready" ? String(s.day.calls) : records === "loading" ? "…" : m.notAvailable;
  const handle =
    records === "ready"
      ? s.day.handleSec === null
        ? "–"
        : formatDuration(s.day.handleSec)
      : records === "loading"
        ? "…"
        : m.notAvailable;
  return (
    <section class="my-day card" aria-labelledby="my-day-title" data-testid="my-day">
      <h2 id="my-day-title">{m.title}</h2>
      <dl class="my-day-figures">
        <div>
          <dt>{m.calls}</dt>
          <dd data-testid="my-day-calls">{calls}</dd>
        </div>
        <div>
          <dt title={m.handleLong}>{m.handle}</dt>
          <dd data-testid="my-day-handle">{handle}</dd>
        </div>
        <div>
          <dt>{m.onBreak}</dt>
          <dd data-testid="my-day-break">{formatDuration(breakSec)}</dd>
        </div>
      </dl>
      {times.length > 0 && (
        <details class="my-day-statuses">
          <summary>{m.perStatus}</summary>
          <ul>
            {times.map((x) => (
              <li key={`${x.status}|${x.reason}`}>
                <span>{statusLabel(x, t.value)}</span>
                <span class="my-day-time">{formatDuration(x.sec)}</span>
              </li>
            ))}
          </ul>
          <p class="field-note">{m.statusNote}</p>
        </details>
      )}
    </section>
  );
}
