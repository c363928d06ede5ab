import type { CcCall } from "../../cc";
import type { Call } from "../../softphone";
import { useModel } from "../model/model";
import { formatDuration } from "../shared/format";

/**
 * "Queue support · waited 0:42" under a ringing or answered queue call. `compact` (the bar's
 * ringing card) puts the two one over the other in the place of the call's state and timer. A
 * queue call whose platform does not name the queue (one that shows only the spec) says so.
 */
export function QueueLine({ call, cc, compact = false }: { call: Call; cc: CcCall; compact?: boolean }) {
  const { t, phone } = useModel();
  if (!cc.queue && cc.action !== "queue") return null;
  const m = t.value.agent;
  const until =
    call.answeredAt ?? (call.state === "ended" ? call.endedAt : undefined) ?? phone?.now.value ?? Date.now();
  const queue = cc.queue ? m.queueLine(cc.queue) : m.queueUnknown;
  const waited = cc.joinedAt ? m.waited(formatDuration(Math.max(0, until - cc.joinedAt) / 1000)) : "";
  if (compact) {
    return (
      <div class="call-status queue-status" data-testid="call-queue">
        <span class="call-state">{queue}</span>
        {waited && <span class="call-timer">{waited}</span>}
      </div>
    );
  }
  return (
    <p class="call-note queue-line" data-testid="call-queue">
      {[queue, waited].filter(Boolean).join(" · ")}
    </p>
  );
}
