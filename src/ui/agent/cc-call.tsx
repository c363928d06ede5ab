import type { CcCall } from "../../cc";
import type { Call } from "../../softphone";
import type { Messages } from "../i18n";
import { useModel } from "../model";
import { formatDuration, stateText } from "../phone/words";

/**
 * The state of a call-center call in words: the platform's hold (the phone only sees a re-INVITE
 * from the far side), a click-to-dial still calling out, and why it ended (the platform's
 * hang-up cause in the BYE's Reason).
 */
export function ccStateText(call: Call, cc: CcCall, t: Messages, waiting: boolean): string {
  if (call.state === "ended") {
    const cause = call.end?.reasons?.find((r) => r.protocol.toUpperCase() === "Q.850")?.text;
    const said = cause && cause !== "NORMAL_CLEARING" ? t.history.cause[cause] : undefined;
    return said ?? stateText(call, t, waiting);
  }
  // The platform's hold reaches the phone as the far side's (a re-INVITE with sendonly).
  if ((cc.held || call.state === "remote-held") && call.state !== "ringing") return t.phone.state.held;
  if (cc.action === "dial" && cc.callstate === "DIALING") return t.agent.calling;
  return stateText(call, t, waiting);
}

/**
 * "Queue support · waited 0:42" under a ringing or answered queue call. `compact` (the bar's
 * ringing card) puts the two one over the other in the place of the call's state and timer.
 */
export function QueueLine({ call, cc, compact = false }: { call: Call; cc: CcCall; compact?: boolean }) {
  const { t, phone } = useModel();
  if (!cc.queue) return null;
  const m = t.value.agent;
  const until = call.answeredAt ?? (call.state === "ended" ? call.endedAt : undefined) ?? phone?.now.value ?? Date.now();
  const queue = m.queueLine(cc.queue);
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
