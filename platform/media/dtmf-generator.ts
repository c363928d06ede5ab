import { FRAME_SAMPLES, SAMPLE_RATE, amplitudeOfDbfs, type Frame, type FrameSource } from "./frame";
import { dtmfFrequencies, isDtmfDigit } from "./dtmf-keypad";
import { Oscillator, toPcm } from "./oscillator";

export interface DtmfGeneratorOptions {
  /** Length of each tone; Q.24 receivers must accept 40 ms and more. */
  toneMs?: number;
  /** Silence after each tone; must be at least 40 ms for a repeated digit to count twice. */
  gapMs?: number;
  /** Peak level of each of the two frequencies, dBFS. */
  levelDb?: number;
}

const EDGE_SAMPLES = Math.round(SAMPLE_RATE * 0.002);

/** Plays a digit string as in-band DTMF, then falls silent (`finished`). */
export class DtmfGenerator implements FrameSource {
  readonly label: string;
  private readonly schedule: { oscillators: Oscillator[]; start: number; end: number }[] = [];
  private readonly total: number;
  private readonly amplitude: number;
  private position = 0;
  private readonly mix = new Float32Array(FRAME_SAMPLES);
  private readonly gain = new Float32Array(FRAME_SAMPLES);

  constructor(digits: string, options: DtmfGeneratorOptions = {}) {
    const tone = Math.round(((options.toneMs ?? 100) * SAMPLE_RATE) / 1000);
    const gap = Math.round(((options.gapMs ?? 100) * SAMPLE_RATE) / 1000);
    this.amplitude = amplitudeOfDbfs(options.levelDb ?? -12);
    let at = 0;
    for (const digit of digits.toUpperCase()) {
      if (!isDtmfDigit(digit)) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`);
      this.schedule.push({
        oscillators: dtmfFrequencies(digit).map((f) => new Oscillator(f)),
        start: at,
        end: at + tone,
      });
      at += tone + gap;
    }
    this.total = at;
    this.label = `dtmf ${digits}`;
  }

  get finished(): boolean {
    return this.position >= this.total;
  }

  nextFrame(): Frame | null {
    if (this.finished) return null;
    const from = this.position;
    const to = from + FRAME_SAMPLES;
    this.position = to;
    const tones = this.schedule.filter((t) => t.start < to && t.end > from);
    if (tones.length === 0) return null;
    this.mix.fill(0);
    for (const tone of tones) {
      const begin = Math.max(0, tone.start - from);
      const end = Math.min(FRAME_SAMPLES, tone.end - from);
      for (let i = begin; i < end; i++) {
        const p = from + i - tone.start;
        this.gain[i] = Math.min(1, (p + 1) / EDGE_SAMPLES, (tone.end - tone.start - p) / EDGE_SAMPLES);
      }
      for (const oscillator of tone.oscillators) oscillator.addTo(this.mix, this.amplitude, this.gain, begin, end);
    }
    return toPcm(this.mix);
  }
}
