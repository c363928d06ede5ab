import { QueueIcon } from "../icons";
import { useAgent, useModel } from "../model/model";

/** The agent's queues with the callers waiting in each, and whether the figures are live. */
export function QueueList() {
  const { t } = useModel();
  const a = useAgent();
  const m = t.value.agent;
  const s = a.queues.value;
  if (s.phase !== "on" || !s.queues.length) return null;
  return (
    <section class="queue-card card" aria-label={m.queues} data-testid="queues">
      <header class="queue-head">
        <h2>{m.queues}</h2>
        <span class={`feed feed-${s.feed}`} title={s.feed === "events" ? m.live : m.polling}>
          <span class="feed-dot" aria-hidden="true" />
          {s.feed === "events" ? m.live : m.polling}
        </span>
      </header>
      <ul class="queue-list">
        {s.queues.map((q) => (
          <li key={q.name} data-queue={q.name}>
            <QueueIcon />
            <span class="queue-name">{q.name}</span>
            {q.waiting !== null && <span class={`badge${q.waiting > 0 ? " warn" : ""}`}>{m.waiting(q.waiting)}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
