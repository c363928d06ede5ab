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
  /** Chunks seen per "rate/channels/samples" shape, for diagnostics. */
  readonly shapes = new Map<string, number>();

  push(data: SinkAudioData): Frame[] {
    const channels = data.channelCount ?? 1;
    const shape = `${data.sampleRate}/${channels}/${data.numberOfFrames ?? data.samples.length / channels}`;
    this.shapes.set(shape, (this.shapes.get(shape) ?? 0) + 1);

    const mono = downmixToMono(data.samples, channels);
    let samples: Int16Array;
    if (data.sampleRate === SAMPLE_RATE) {
      samples = mono;
    } else {
      // A new rate means a new decoder: interpolating across the switch would blend unrelated
      // samples, so start the converter afresh.
      if (this.resampler?.inputRate !== data.sampleRate)
        this.resampler = new LinearResampler(data.sampleRate, SAMPLE_RATE);
      samples = this.resampler.process(mono);
    }

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
