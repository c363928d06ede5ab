import { FRAME_SAMPLES, SAMPLE_RATE, amplitudeOfDbfs, type Frame, type FrameSource } from "./frame";
import { Oscillator, toPcm } from "./oscillator";

export interface ToneGeneratorOptions {
  /** One frequency for a plain tone; several are summed (dual tones such as 440+480 Hz). */
  frequencies: readonly number[];
  /** Peak level of each frequency, dBFS. */
  levelDb?: number;
  /**
   * Alternating on and off durations in ms, e.g. [1000, 4000]; absent means a steady tone.
   * The pattern starts with "on".
   */
  cadenceMs?: readonly number[];
  /** Repeat the cadence for ever (default) or play it once and then fall silent for good. */
  repeat?: boolean;
  label?: string;
}

/** Edges of each burst are ramped over 2 ms, as telephone exchanges do, so bursts do not click. */
const EDGE_SAMPLES = Math.round(SAMPLE_RATE * 0.002);

/** Steady or cadenced tones: test tones, ringback, busy, cue. Says nothing while "off". */
export class ToneGenerator implements FrameSource {
  readonly label: string;
  private readonly oscillators: Oscillator[];
  private readonly amplitude: number;
  private readonly segments: number[];
  private readonly period: number;
  private readonly repeat: boolean;
  private position = 0;
  private readonly mix = new Float32Array(FRAME_SAMPLES);
  private readonly gain = new Float32Array(FRAME_SAMPLES);

  constructor(options: ToneGeneratorOptions) {
    if (options.frequencies.length === 0) throw new RangeError("a tone needs at least one frequency");
    this.oscillators = options.frequencies.map((f) => new Oscillator(f));
    this.amplitude = amplitudeOfDbfs(options.levelDb ?? -12);
    this.segments = (options.cadenceMs ?? []).map((ms) => Math.round((ms * SAMPLE_RATE) / 1000));
    this.period = this.segments.reduce((a, b) => a + b, 0);
    this.repeat = options.repeat ?? true;
    this.label = options.label ?? `tone ${options.frequencies.join("+")} Hz`;
  }

  /** True once a non-repeating cadence has played out. */
  get finished(): boolean {
    return !this.repeat && this.period > 0 && this.position >= this.period;
  }

  nextFrame(): Frame | null {
    if (this.period === 0) return this.render(undefined);
    if (this.finished) return null;
    let anyOn = false;
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const g = this.gainAt(this.position + i);
      this.gain[i] = g;
      if (g > 0) anyOn = true;
    }
    this.position += FRAME_SAMPLES;
    if (this.repeat && this.position >= this.period) this.position -= this.period;
    return anyOn ? this.render(this.gain) : null;
  }

  private render(gain: Float32Array | undefined): Frame {
    this.mix.fill(0);
    for (const oscillator of this.oscillators) oscillator.addTo(this.mix, this.amplitude, gain);
    return toPcm(this.mix);
  }

  /** Envelope at a position of the cadence: 0 while off, 1 while on, ramps at the edges. */
  private gainAt(position: number): number {
    if (!this.repeat && position >= this.period) return 0;
    let p = position % this.period;
    for (let k = 0; k < this.segments.length; k++) {
      const length = this.segments[k]!;
      if (p < length) {
        if (k % 2 === 1) return 0;
        return Math.min(1, (p + 1) / EDGE_SAMPLES, (length - p) / EDGE_SAMPLES);
      }
      p -= length;
    }
    return 0;
  }
}

/** A steady sine: what a simulated party says so that a test can tell who hears whom. */
export function sineTone(frequency: number, levelDb = -12): ToneGenerator {
  return new ToneGenerator({ frequencies: [frequency], levelDb });
}
