import { clampSample } from "./frame";

/**
 * Streaming sample-rate converter by linear interpolation between neighbouring input samples.
 * Deliberately simple: it only meets the narrow-band decoders a browser may negotiate (PCMU/PCMA
 * at 8 kHz, G.722 at 16 kHz) and the 16 kHz frames wrtc delivers before its first packet, and
 * tones and speech survive it recognisably. Upsampling leaves faint images above the source's
 * Nyquist rate (about -34 dB for a 1 kHz tone from 8 kHz), far below what the detectors count
 * as a tone. Opus arrives at 48 kHz and never passes through here.
 */
export class LinearResampler {
  /**
   * Position of the next output sample in input samples from the start of the next chunk,
   * counted in units of 1/outputRate so that the arithmetic is exact and chunked input gives the
   * same samples as one long input.
   */
  private position = 0;
  private previous = 0;

  constructor(
    readonly inputRate: number,
    readonly outputRate: number,
  ) {
    if (!Number.isInteger(inputRate) || !Number.isInteger(outputRate) || inputRate <= 0 || outputRate <= 0) {
      throw new RangeError(`bad sample rates ${inputRate} -> ${outputRate}`);
    }
  }

  process(input: Int16Array): Int16Array {
    if (this.inputRate === this.outputRate) return input.slice();
    const n = input.length;
    if (n === 0) return new Int16Array(0);
    const unit = this.outputRate;
    const out: number[] = [];
    let t = this.position;
    while (t <= (n - 1) * unit) {
      const i = Math.floor(t / unit);
      const frac = (t - i * unit) / unit;
      const a = i < 0 ? this.previous : input[i]!;
      const b = input[i + 1] ?? a;
      out.push(clampSample(a + (b - a) * frac));
      t += this.inputRate;
    }
    this.position = t - n * unit;
    this.previous = input[n - 1]!;
    return Int16Array.from(out);
  }
}

/** Averages interleaved channels into one. */
export function downmixToMono(samples: Int16Array, channelCount: number): Int16Array {
  if (channelCount <= 1) return samples;
  const frames = Math.floor(samples.length / channelCount);
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channelCount; c++) sum += samples[f * channelCount + c]!;
    out[f] = Math.round(sum / channelCount);
  }
  return out;
}
