import type { Signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { summarizeQueue } from "../../cc/supervisor";
import type { SignInErrorInfo } from "../../session";
import { useModel } from "../model/model";
import { formatDuration, formatMean, formatMoment } from "../shared/format";
import { signInErrorText } from "../words/sign-in-words";
import { IntradayChart } from "./intraday-chart";
import { alertText, type BoardView } from "../model/supervisor-ui";

export interface WallKey {
  value: string;
  error: SignInErrorInfo | null;
}

/**
 * The wall screen: every queue's figures at once across the whole width (nothing rotates away),
 * large enough to read from across the room, breaches in colour, the alerts beneath; no control
 * but the key field shown before a key is known or when it was refused.
 */
export function WallView({
  view,
  wallKey,
  onKey,
}: {
  view: BoardView;
  wallKey: Signal<WallKey>;
  onKey: (key: string) => void;
}) {
  const { t, language, session } = useModel();
  const m = t.value.supervisor;
  const signedIn = session.value.status === "signed-in";
  useEffect(() => (signedIn ? view.show() : undefined), [view, signedIn]);
  if (!signedIn) return <KeyForm wallKey={wallKey.value} onKey={onKey} busy={session.value.status === "signing-in"} />;
  const b = view.board.value;
  const now = view.now.value;
  const names = [...b.board.queues.keys()].sort();
  const alerts = view.alerts.value.active;
  return (
    <main class="wall" data-testid="wall" aria-label={m.wallTitle}>
      <header class="wall-head">
        <h1>{m.wallTitle}</h1>
        <span class={`feed feed-${b.stale ? "stale" : b.source}`} data-testid="wall-source">
          {b.stale
            ? m.stale(formatMoment(b.updatedAt, language.value, now))
            : b.source === "events"
              ? m.live
              : m.polling}
        </span>
        <span class="wall-clock">{formatMoment(now, language.value, now)}</span>
      </header>
      <div class="wall-queues" style={{ gridTemplateColumns: `repeat(${Math.max(1, names.length)}, 1fr)` }}>
        {names.map((name) => {
          const limits = view.thresholds(name);
          const q = summarizeQueue(b.board, name, limits.serviceLevelSeconds, view.wallboard.queueDay(name));
          const breached = new Set(alerts.filter((a) => a.queue === name && !a.agent).map((a) => a.kind));
          const figure = (label: string, value: string, testid: string, breach = false) => (
            <div class="wall-figure">
              <dt>{label}</dt>
              <dd data-testid={testid} class={breach ? "breach" : undefined} data-breach={breach || undefined}>
                {value}
              </dd>
            </div>
          );
          return (
            <section key={name} class="wall-queue" data-queue={name} aria-label={name}>
              <h2>{name}</h2>
              <dl>
                {figure(
                  m.waiting,
                  String(q.waiting ?? "–"),
                  "wall-waiting",
                  breached.has("waiting") || breached.has("no-agent-ready"),
                )}
                {figure(
                  m.longestWait,
                  q.longestWaitingSince !== null ? formatDuration((now - q.longestWaitingSince) / 1000) : "–",
                  "wall-longest-wait",
                  breached.has("longest-wait"),
                )}
                {figure(
                  m.serviceLevel(limits.serviceLevelSeconds),
                  q.serviceLevel === null ? "–" : `${Math.round(q.serviceLevel * 100)} %`,
                  "wall-service-level",
                  breached.has("service-level"),
                )}
                {figure(m.offered, String(q.offered), "wall-offered")}
                {figure(m.answered, String(q.answered), "wall-answered")}
                {figure(m.abandoned, String(q.abandoned), "wall-abandoned")}
                {figure(m.asa, formatMean(q.averageSpeedOfAnswer), "wall-asa")}
                {figure(m.aht, formatMean(q.averageHandleTime), "wall-aht")}
              </dl>
              <p class="wall-agents">
                {t.value.agent.status.ready} {q.byStatus.ready + q.byStatus["on-demand"]} · {m.inCall} {q.inCall} ·{" "}
                {t.value.agent.status.break} {q.byStatus.break}
              </p>
              <IntradayChart
                queue={name}
                day={view.wallboard.queueDay(name)}
                version={view.wallboard.queueDay(name)?.version ?? 0}
                thresholdSeconds={limits.serviceLevelSeconds}
                target={limits.serviceLevelTarget}
                now={now}
                wall
              />
            </section>
          );
        })}
      </div>
      <section class="wall-alerts" aria-label={m.alerts} data-testid="wall-alerts">
        {alerts.length === 0 ? (
          <p class="muted">{m.noAlerts}</p>
        ) : (
          <ul>
            {alerts.map((a) => (
              <li key={a.id} class="breach" data-kind={a.kind}>
                {alertText(a, t.value)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}

/** Before a key is known, or when the platform refused it: the one field of the wall screen. */
function KeyForm({ wallKey, onKey, busy }: { wallKey: WallKey; onKey: (key: string) => void; busy: boolean }) {
  const { t, language } = useModel();
  const m = t.value.supervisor;
  const [value, setValue] = useState("");
  return (
    <main class="wall wall-sign-in" aria-label={m.wallTitle}>
      <h1>{m.wallTitle}</h1>
      {wallKey.value && !wallKey.error ? (
        <p role="status">{m.wallSigningIn}</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (value.trim()) onKey(value.trim());
          }}
        >
          <label>
            {m.wallKey}
            <input
              type="password"
              autocomplete="off"
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
              data-testid="wall-key"
            />
          </label>
          <button type="submit" disabled={busy}>
            {m.wallUseKey}
          </button>
          <p class="muted">{m.wallKeyHint}</p>
        </form>
      )}
      {wallKey.error && (
        <p class="error-text" role="alert">
          {signInErrorText(wallKey.error, t.value, language.value)}
        </p>
      )}
    </main>
  );
}
