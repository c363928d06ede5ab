import { useModel, usePhone } from "../model/model";
import { CallCard } from "./call-card";
import { DiallingCard } from "./dialling-card";

/** How long an ended call stays on screen (with Call back and Dismiss) unless dismissed. */
export const ENDED_SHOWN_MS = 30_000;

/** A click-to-dial before the phone rings, the live calls, oldest first, then the calls that just ended. */
export function CallList({ compact = false }: { compact?: boolean }) {
  const p = usePhone();
  const agent = useModel().agent;
  const now = p.now.value;
  const all = p.calls.value.calls;
  const live = all.filter((c) => c.state !== "ended");
  // In the bar a finished call gives way at once to the next, and to its after-call work;
  // elsewhere the last ones linger.
  const wrappingUp = compact && !!agent?.wrapUp.value;
  const ended = wrappingUp
    ? []
    : all.filter((c) => c.state === "ended" && now - (c.endedAt ?? 0) < ENDED_SHOWN_MS).slice(compact ? -1 : -2);
  const shown = compact && live.length ? live : [...live, ...ended];
  const dialling = !!agent?.dialling.value;
  if (!shown.length && !dialling) return null;
  // The bar shows one call in full (the one talking, else the oldest) and the others in brief.
  const talking = (c: (typeof live)[number]) => c.state !== "ringing" && c.state !== "held";
  const primary = compact ? (shown.find(talking) ?? shown[0]) : undefined;
  return (
    <div class={`call-list${compact ? " compact" : ""}`} data-testid="calls">
      {dialling && <DiallingCard compact={compact} />}
      {shown.map((c) => (
        <CallCard key={c.id} call={c} compact={compact} minimal={compact && c !== primary} />
      ))}
    </div>
  );
}
