import wrtc from "@roamhq/wrtc";
import { DtmfDetector } from "./dtmf-detector";
import { FRAME_SAMPLES, SAMPLE_RATE, type FrameSource } from "./frame";
import { FrameNormalizer, type SinkAudioData } from "./frame-normalizer";
import { ToneDetector } from "./tone-detector";

const { nonstandard } = wrtc;

/**
 * The far end of a WebRTC leg in tests and benchmarks, playing the browser: it sends what its
 * voice says through its own RTCAudioSource and listens with its own RTCAudioSink and detectors.
 * It uses raw wrtc objects rather than a WebRtcLeg, so that a test of the leg does not check
 * the leg against itself.
 */
export class BrowserStandIn {
  readonly hears = new ToneDetector();
  readonly dtmf = new DtmfDetector();
  private readonly source = new nonstandard.RTCAudioSource();
  private readonly track = this.source.createTrack();
  private readonly normalizer = new FrameNormalizer();
  private sink: InstanceType<typeof nonstandard.RTCAudioSink> | undefined;
  framesHeard = 0;

  constructor(public voice: FrameSource | null) {}

  /** Adds the microphone track and listens for the remote one; call before negotiating. */
  prepare(pc: RTCPeerConnection): void {
    pc.addTrack(this.track);
    pc.addEventListener("track", (event) => {
      this.sink?.stop();
      const sink = new nonstandard.RTCAudioSink(event.track);
      sink.ondata = (data: SinkAudioData) => {
        for (const frame of this.normalizer.push(data)) {
          this.framesHeard++;
          this.hears.push(frame);
          this.dtmf.push(frame);
        }
      };
      this.sink = sink;
    });
  }

  /** Sends one 10 ms frame of what the voice says (silence when it says nothing). */
  speak(): void {
    const frame = this.voice?.nextFrame() ?? new Int16Array(FRAME_SAMPLES);
    this.source.onData({
      samples: frame,
      sampleRate: SAMPLE_RATE,
      bitsPerSample: 16,
      channelCount: 1,
      numberOfFrames: FRAME_SAMPLES,
    });
  }

  close(): void {
    this.sink?.stop();
    this.sink = undefined;
    this.track.stop();
  }
}
