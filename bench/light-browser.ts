import wrtc from "@roamhq/wrtc";
import { FRAME_SAMPLES, SAMPLE_RATE } from "../platform/media/frame";
import { FrameNormalizer, type SinkAudioData } from "../platform/media/frame-normalizer";
import { ToneDetector } from "../platform/media/tone-detector";
import { sineTone } from "../platform/media/tone-generator";

const { nonstandard } = wrtc;

/**
 * A browser reduced to what costs CPU in a real one: it sends a tone (one precomputed second,
 * looped, so that synthesis costs nothing) and decodes what it receives, keeping the last frames
 * so that a sample of calls can be checked for the right tone.
 */
export class LightBrowser {
  private readonly source = new nonstandard.RTCAudioSource();
  private readonly track = this.source.createTrack();
  private readonly tone: Int16Array[];
  private position = 0;
  private sink: InstanceType<typeof nonstandard.RTCAudioSink> | undefined;
  private readonly normalizer = new FrameNormalizer();
  private readonly recent: Int16Array[] = [];

  constructor(frequency: number) {
    const generator = sineTone(frequency);
    this.tone = Array.from({ length: 100 }, () => generator.nextFrame()!);
  }

  prepare(pc: RTCPeerConnection): void {
    pc.addTrack(this.track);
    pc.addEventListener("track", (event) => {
      const sink = new nonstandard.RTCAudioSink(event.track);
      sink.ondata = (data: SinkAudioData) => {
        for (const frame of this.normalizer.push(data)) {
          this.recent.push(frame);
          if (this.recent.length > 20) this.recent.shift();
        }
      };
      this.sink = sink;
    });
  }

  speak(): void {
    const samples = this.tone[this.position++ % this.tone.length]!;
    this.source.onData({
      samples,
      sampleRate: SAMPLE_RATE,
      bitsPerSample: 16,
      channelCount: 1,
      numberOfFrames: FRAME_SAMPLES,
    });
  }

  /** The strongest frequency in the last 200 ms received. */
  dominantHeard(): number | undefined {
    const detector = new ToneDetector({ hopFrames: 1 });
    for (const frame of this.recent) detector.push(frame);
    return detector.dominant()?.frequency;
  }

  close(): void {
    this.sink?.stop();
    this.sink = undefined;
    this.track.stop();
  }
}

/** Resolves when the connection has gathered all its candidates, so one SDP carries them all. */
export function gatheringComplete(pc: RTCPeerConnection): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (pc.iceGatheringState !== "complete") return;
      pc.removeEventListener("icegatheringstatechange", check);
      resolve();
    };
    pc.addEventListener("icegatheringstatechange", check);
    check();
  });
}
