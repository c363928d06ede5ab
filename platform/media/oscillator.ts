import { SAMPLE_RATE } from "./frame";

/**
 * A sine oscillator by rotating a unit vector one step per sample: two multiplications and two
 * additions instead of a Math.sin per sample, which matters when a benchmark runs hundreds of
 * tone sources. The vector is renormalised once per block so rounding cannot make it drift.
 */
export class Oscillator {
  private readonly cosStep: number;
  private readonly sinStep: number;
  private c = 1;
  private s = 0;

  constructor(readonly frequency: number) {
    const w = (2 * Math.PI * frequency) / SAMPLE_RATE;
    this.cosStep = Math.cos(w);
    this.sinStep = Math.sin(w);
  }

  /** Adds `amplitude * gain[i] * sin(phase)` to `target[i]` for i in [from, to). */
  addTo(target: Float32Array, amplitude: number, gain?: Float32Array, from = 0, to = target.length): void {
    let { c, s } = this;
    const cd = this.cosStep;
    const sd = this.sinStep;
    for (let i = from; i < to; i++) {
      target[i]! += amplitude * (gain ? gain[i]! : 1) * s;
      const nc = c * cd - s * sd;
      s = s * cd + c * sd;
      c = nc;
    }
    const norm = 1 / Math.sqrt(c * c + s * s);
    this.c = c * norm;
    this.s = s * norm;
  }

  /** Lets the tone restart at phase zero, as a struck note does. */
  restart(): void {
    this.c = 1;
    this.s = 0;
  }
}

/** Converts a float mix to 16-bit samples with clipping. */
export function toPcm(mix: Float32Array): Int16Array {
  const out = new Int16Array(mix.length);
  for (let i = 0; i < mix.length; i++) {
    const v = Math.round(mix[i]!);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
