import { FRAME_SAMPLES, SAMPLE_RATE, type Frame } from "./frame";
import { LinearResampler, downmixToMono } from "./linear-resampler";

/** What wrtc's RTCAudioSink hands to `ondata`. */
export interface SinkAudioData {
  samples: Int16Array;
  sampleRate: number;
  bitsPerSample?: number;
  channelCount?: number;
  numberOfFrames?: number;
}

/**
 * Turns whatever an RTCAudioSink delivers into the plane's frames. Measured with wrtc 0.10.0:
 * the sink delivers 10 ms mono chunks at the negotiated decoder's rate — 48 kHz/480 samples for
 * Opus, 16 kHz/160 for G.722, 8 kHz/80 for PCMU — and a few 16 kHz/160 chunks of silence before
 * the first packet arrives. Chunks are downmixed, resampled to 48 kHz and re-cut at 480 samples,
 * so an odd rate or chunk size still yields whole frames.
 */
export class FrameNormalizer {
  private resampler: LinearResampler | undefined;
  private pending = new Int16Array(0);
  private rate: number | undefined;
  /** Chunks seen per "rate/channels/samples" shape, for diagnostics. */
  readonly shapes = new Map<string, number>();

  push(data: SinkAudioData): Frame[] {
    const channels = data.channelCount ?? 1;
    const shape = `${data.sampleRate}/${channels}/${data.numberOfFrames ?? data.samples.length / channels}`;
    this.shapes.set(shape, (this.shapes.get(shape) ?? 0) + 1);

    const mono = downmixToMono(data.samples, channels);
    if (data.sampleRate !== this.rate) {
      // A new rate means a new decoder: interpolating across the switch would blend unrelated
      // samples, so the converter starts afresh; and what the old decoder left short of a frame
      // is dropped, or it would stand in front of the new one's audio for the rest of the call
      // (wrtc's 16 kHz chunks before the first packet left 478 samples: the first words reached
      // the mix a frame late, and every frame after them 10 ms late).
      this.rate = data.sampleRate;
      this.resampler = data.sampleRate === SAMPLE_RATE ? undefined : new LinearResampler(data.sampleRate, SAMPLE_RATE);
      this.pending = new Int16Array(0);
    }
    const samples = this.resampler ? this.resampler.process(mono) : mono;

    if (this.pending.length === 0 && samples.length === FRAME_SAMPLES) return [samples.slice()];
    const joined = new Int16Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    const frames: Frame[] = [];
    let offset = 0;
    while (joined.length - offset >= FRAME_SAMPLES) {
      frames.push(joined.slice(offset, offset + FRAME_SAMPLES));
      offset += FRAME_SAMPLES;
    }
    this.pending = joined.slice(offset);
    return frames;
  }
}
