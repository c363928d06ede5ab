import { computed, type ReadonlySignal } from "@preact/signals";
import { inWrapUp, statusSinceOf } from "../../cc/supervisor";
import type { Messages } from "../i18n";
import type { SupervisorUi } from "../model/supervisor-ui";
import { formatDuration } from "../shared/format";
import { statusLabel } from "../words/agent-words";

/**
 * What a place of the list shows, as signals: the agent in that place and its words. A batch of
 * the board's changes gives most places another agent (with the status order, the rows in view are
 * the agents longest in their status, the next to change); the words and attributes bound to
 * these signals are rewritten in place, without Preact comparing the rows again. What changes a
 * row's shape (no agent, a call, a live call) renders it again.
 */
export type RowWords = ReturnType<typeof rowWords>;

export function rowWords(
  s: SupervisorUi,
  t: ReadonlySignal<Messages>,
  ids: ReadonlySignal<readonly string[]>,
  place: number,
) {
  const number = computed(() => ids.value[place] ?? "");
  const row = computed(() => s.board.value.board.agents.get(number.value));
  const name = computed(() => row.value?.name || number.value);
  const since = computed(() => {
    // The platform's clock offset, measured from its events: read so that the row shows the exact time once it is known.
    void s.clockOffset.value;
    const r = row.value;
    return r ? statusSinceOf(r, s.wallboard.clock) : { at: 0, exact: false };
  });
  const m = () => t.value.supervisor;
  const dayOpen = computed(() => s.detail.value === number.value);
  return {
    number,
    row,
    name,
    shown: computed(() => !!row.value),
    hasCall: computed(() => !!row.value?.call),
    live: computed(() => {
      // The supervisor's own row (signed in to monitor, or also an agent) offers nothing on its own calls.
      const r = row.value;
      return !!r?.call?.uuid && !!r.call.answeredAt && r.number !== s.self.value;
    }),
    rowClass: computed(() => {
      const r = row.value;
      return `agent-row status-${r?.kind ?? "unknown"}${r?.call ? " in-call" : ""}`;
    }),
    extension: computed(() => m().extension(row.value?.extension || number.value)),
    pillClass: computed(() => `badge status-pill ${row.value?.kind ?? "unknown"}`),
    status: computed(() => statusLabel(row.value ?? null, t.value)),
    sinceAt: computed(() => since.value.at),
    exact: computed(() => since.value.exact),
    time: computed(() => {
      const r = row.value;
      if (!r) return "";
      const now = s.now.value;
      const { at, exact } = since.value;
      const inStatus = formatDuration((now - at) / 1000);
      const state = inWrapUp(r, s.wallboard.clock, now)
        ? ` · ${m().wrapUp}`
        : r.state
          ? ` · ${t.value.agent.state[r.state] ?? r.state}`
          : "";
      return `${exact ? inStatus : m().atLeast(inStatus)}${state}`;
    }),
    callState: computed(() => {
      const r = row.value;
      return !r || r.callstate === "IDLE" ? "" : (m().callState[r.callstate] ?? r.callstate);
    }),
    noAnswer: computed(() => {
      const count = row.value?.noAnswerCount;
      return count ? m().noAnswerCount(count) : "";
    }),
    actionsLabel: computed(() => m().actionsFor(name.value)),
    dayLabel: computed(() => m().dayFor(name.value)),
    dayOpen,
    dayClass: computed(() => `small${dayOpen.value ? " active" : " secondary"}`),
    statusMenuLabel: computed(() => `${m().setStatus}: ${name.value}`),
  };
}
