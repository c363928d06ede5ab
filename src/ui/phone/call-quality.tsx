import type { CallQuality } from "../../softphone";
import { useModel } from "../model/model";
import { qualityMarkWords, qualityProblem } from "../words/quality-words";

/** Signal bars: three for good, two for fair, one for poor, none lit while measuring. */
function Bars({ mark }: { mark: CallQuality["mark"] | "measuring" }) {
  const lit = mark === "good" ? 3 : mark === "fair" ? 2 : mark === "poor" ? 1 : 0;
  return (
    <svg class="quality-bars" viewBox="0 0 14 12" width="14" height="12" aria-hidden="true">
      {[0, 1, 2].map((i) => (
        <rect key={i} x={i * 5} y={8 - i * 4} width="3.5" height={4 + i * 4} rx="1" class={i < lit ? "lit" : ""} />
      ))}
    </svg>
  );
}

/**
 * A call's quality mark (good, fair, poor): bars and, outside the bar, the word (in the bar, the
 * problem's name when there is one); the figures and, in the bar, the problem in its tooltip;
 * read out as "Call quality: poor. Round trip …". From the answer until the first figures it holds
 * the mark's place as "measuring", so that nothing on the card moves when they come.
 */
export function QualityMark({ quality, compact }: { quality: CallQuality | undefined; compact: boolean }) {
  const { t } = useModel();
  const { mark, shown, label, title } = qualityMarkWords(quality, t.value, compact, Date.now());
  return (
    <span
      class={`quality-mark ${mark}`}
      role="img"
      aria-label={label}
      title={title}
      data-testid="quality-mark"
      data-mark={mark}
    >
      <Bars mark={mark} />
      {shown && <span aria-hidden="true">{shown}</span>}
    </span>
  );
}

/** The problem of a call in words, under the card (the bar has no room: its mark's tooltip says it). */
export function QualityWarning({ quality, now }: { quality: CallQuality | undefined; now: number }) {
  const { t } = useModel();
  const text = qualityProblem(quality, t.value, now);
  if (!text) return null;
  return (
    <p
      class={`call-note quality-warning${quality?.oneWayAudio?.state === "unresolved" ? " severe" : ""}`}
      data-testid="quality-warning"
    >
      {text}
    </p>
  );
}
