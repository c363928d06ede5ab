import wrtc from "@roamhq/wrtc";
import { FRAME_SAMPLES, SAMPLE_RATE, type Frame } from "./frame";
import { FrameNormalizer, type SinkAudioData } from "./frame-normalizer";
import { JitterBuffer, type JitterBufferOptions, type JitterBufferStats } from "./jitter-buffer";
import { MediaEndpoint } from "./media-endpoint";

const { nonstandard, MediaStream } = wrtc;

export interface WebRtcLegOptions {
  jitter?: JitterBufferOptions;
  /** The sink handed over what the far end said (every 10 ms, silence before the first packet). */
  onInput?: () => void;
}

export interface WebRtcLegStats {
  framesSent: number;
  jitter: JitterBufferStats;
  /** Chunks delivered by the sink per "rate/channels/samples" shape. */
  sinkChunks: Record<string, number>;
  hasRemoteTrack: boolean;
}

/**
 * The media end of a browser's call leg, on a wrtc RTCPeerConnection owned by the SIP side.
 * Outgoing: an RTCAudioSource track fed with exactly one frame per media tick (what the leg
 * hears), so libwebrtc's Opus encoder runs at the plane's cadence. Incoming: an RTCAudioSink on
 * the remote track, whose chunks are normalised to frames and queued in a jitter buffer that the
 * mixer drains one frame per tick (what the leg says).
 *
 * The leg never closes the peer connection: the SIP side owns it. Close the leg, then the
 * connection (bench/wrtc-churn.ts found either order stable over hundreds of connections, but
 * stopping the sink first means no audio arrives for a leg that is being torn down). A process
 * that has used wrtc audio must end with process.exit(): a natural exit crashes in wrtc's
 * static destructors (measured: exit status 139 once an RTCAudioSource has existed).
 */
export class WebRtcLeg extends MediaEndpoint {
  readonly localTrack: MediaStreamTrack;
  /** The outgoing track in a stream, for a sip.js `mediaStreamFactory`. */
  readonly localStream: MediaStream;
  private readonly source = new nonstandard.RTCAudioSource();
  private readonly jitter: JitterBuffer;
  private readonly normalizer = new FrameNormalizer();
  private sink: InstanceType<typeof nonstandard.RTCAudioSink> | undefined;
  private remoteTrack: MediaStreamTrack | undefined;
  private framesSent = 0;
  private detachFromPeerConnection: (() => void) | undefined;
  private readonly onInput: (() => void) | undefined;

  constructor(label: string, options: WebRtcLegOptions = {}) {
    super(label);
    this.jitter = new JitterBuffer(options.jitter);
    this.onInput = options.onInput;
    this.localTrack = this.source.createTrack();
    this.localStream = new MediaStream([this.localTrack]);
  }

  /**
   * Wires the leg into a peer connection: adds the outgoing track unless the SIP stack already
   * added it from `localStream`, and takes the remote audio track, now if the connection already
   * has a receiver for it, or when its `track` event comes. Call before creating the offer or
   * answer, so that the outgoing track is part of it.
   */
  attach(pc: RTCPeerConnection): void {
    if (this.closed) throw new Error(`leg ${this.id} is closed`);
    this.detachFromPeerConnection?.();
    if (!pc.getSenders().some((sender) => sender.track === this.localTrack))
      pc.addTrack(this.localTrack, this.localStream);
    // With Unified Plan the remote audio arrives on the receiver of the transceiver that sends
    // our track; its track exists (muted) before negotiation, so the sink can be attached now.
    const ours = () => pc.getTransceivers().find((t) => t.sender.track === this.localTrack);
    const receiverTrack = ours()?.receiver.track;
    if (receiverTrack) this.attachRemoteTrack(receiverTrack);
    const onTrack = (event: RTCTrackEvent) => {
      if (event.track.kind !== "audio") return;
      const transceiver = ours();
      if (!transceiver || event.track === transceiver.receiver.track) this.attachRemoteTrack(event.track);
    };
    pc.addEventListener("track", onTrack);
    this.detachFromPeerConnection = () => pc.removeEventListener("track", onTrack);
  }

  /** Takes this track as what the leg says, replacing any earlier one. */
  attachRemoteTrack(track: MediaStreamTrack): void {
    if (this.closed || track === this.remoteTrack) return;
    this.stopSink();
    this.remoteTrack = track;
    const sink = new nonstandard.RTCAudioSink(track);
    sink.ondata = (data: SinkAudioData) => {
      if (this.sink !== sink) return;
      for (const frame of this.normalizer.push(data)) this.jitter.push(frame);
      this.onInput?.();
    };
    this.sink = sink;
  }

  stats(): WebRtcLegStats {
    return {
      framesSent: this.framesSent,
      jitter: this.jitter.stats(),
      sinkChunks: Object.fromEntries(this.normalizer.shapes),
      hasRemoteTrack: this.remoteTrack !== undefined,
    };
  }

  protected readInput(): Frame | null {
    return this.jitter.pull();
  }

  protected writeOutput(frame: Frame): void {
    this.source.onData({
      samples: frame,
      sampleRate: SAMPLE_RATE,
      bitsPerSample: 16,
      channelCount: 1,
      numberOfFrames: FRAME_SAMPLES,
    });
    this.framesSent++;
  }

  protected release(): void {
    this.detachFromPeerConnection?.();
    this.detachFromPeerConnection = undefined;
    this.stopSink();
    this.localTrack.stop();
    this.jitter.clear();
  }

  private stopSink(): void {
    const sink = this.sink;
    this.sink = undefined;
    this.remoteTrack = undefined;
    sink?.stop();
  }
}
