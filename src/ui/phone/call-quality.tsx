import type { CallQuality } from "../../softphone";
import { useModel } from "../model/model";
import { problemName, qualityFigures, qualityProblem } from "../words/quality-words";

/** Signal bars: three for good, two for fair, one for poor. */
function Bars({ mark }: { mark: CallQuality["mark"] }) {
  const lit = mark === "good" ? 3 : mark === "fair" ? 2 : 1;
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
 * read out as "Call quality: poor. Round trip …".
 */
export function QualityMark({ quality, compact }: { quality: CallQuality; compact: boolean }) {
  const { t } = useModel();
  const word = t.value.quality.mark[quality.mark];
  const label = t.value.quality.label(word, qualityFigures(quality, t.value));
  const shown = compact ? problemName(quality, t.value) : word;
  return (
    <span
      class={`quality-mark ${quality.mark}`}
      role="img"
      aria-label={label}
      title={compact ? [label, qualityProblem(quality, t.value, Date.now())].filter(Boolean).join("\n") : label}
      data-testid="quality-mark"
      data-mark={quality.mark}
    >
      <Bars mark={quality.mark} />
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
