import { CallRecorder, type CallRecorderOptions } from "./call-recorder";
import { DtmfDetector, type DtmfDetectorOptions } from "./dtmf-detector";
import type { FrameSource } from "./frame";
import { MediaClock, type MediaClockOptions, type MediaClockStats } from "./media-clock";
import type { MediaEndpoint } from "./media-endpoint";
import { Mixer } from "./mixer";
import { HoldMusic } from "./music-on-hold";
import type { Room } from "./room";
import { SimulatedParty } from "./simulated-party";
import { ToneDetector, type ToneDetectorOptions } from "./tone-detector";
import { WebRtcLeg, type WebRtcLegOptions, type WebRtcLegStats } from "./webrtc-leg";

export interface MediaPlaneOptions {
  clock?: MediaClockOptions;
  /** Hold music of a room; a fresh generated melody per room by default. */
  holdMusic?: () => FrameSource;
}

export interface MediaPlaneStats {
  clock: MediaClockStats;
  endpoints: number;
  legs: ({ id: string } & WebRtcLegStats)[];
}

/** Which side of an endpoint a detector listens to. */
export type Direction = "heard" | "said";

/**
 * The platform's media plane: one clock, one mixer, and the endpoints, rooms, recorders and
 * detectors that hang off them. This is what the SIP side and the simulated outside world use;
 * everything below it works on 10 ms frames and knows nothing of SIP.
 */
export class MediaPlane {
  readonly clock: MediaClock;
  readonly mixer: Mixer;
  private readonly endpoints = new Set<MediaEndpoint>();
  private readonly recorders = new Set<CallRecorder>();
  private isClosed = false;

  constructor(options: MediaPlaneOptions = {}) {
    this.clock = new MediaClock(options.clock);
    this.mixer = new Mixer({ holdMusic: options.holdMusic ?? (() => new HoldMusic()) });
    this.clock.onTick(() => this.mixer.tick());
  }

  /**
   * The media end of a browser leg; `attach` it to the leg's RTCPeerConnection. The clock's
   * ticks follow what its decoder hands over (`MediaClock.inputArrived`), so that a frame received
   * is mixed at once.
   */
  createWebRtcLeg(label: string, options?: WebRtcLegOptions): WebRtcLeg {
    return this.register(new WebRtcLeg(label, { ...options, onInput: () => this.clock.inputArrived() }));
  }

  /** A simulated party saying `voice` (a tone, DTMF, nothing) until told otherwise. */
  createParty(label: string, voice: FrameSource | null = null): SimulatedParty {
    return this.register(new SimulatedParty(label, voice));
  }

  createRoom(label: string): Room {
    this.assertOpen();
    return this.mixer.createRoom(label);
  }

  /** A two-party bridge: a room in which both talk and hear each other. */
  bridge(a: MediaEndpoint, b: MediaEndpoint, label = `bridge ${a.label}-${b.label}`): Room {
    return this.createRoom(label).add(a).add(b);
  }

  /**
   * Plays a source to one endpoint alone (ringback or busy to a caller, an announcement); moves
   * it out of any room. Close the returned room, or bridge the endpoint elsewhere, to stop.
   */
  playTo(endpoint: MediaEndpoint, source: FrameSource, label = `${source.label} to ${endpoint.label}`): Room {
    const room = this.createRoom(label).add(endpoint, "listener");
    room.play(source);
    return room;
  }

  /** Records what an endpoint says (left) and hears (right) into a stereo WAV file. */
  record(endpoint: MediaEndpoint, path: string, options?: CallRecorderOptions): CallRecorder {
    this.assertOpen();
    for (const done of [...this.recorders].filter((r) => r.stopped)) this.recorders.delete(done);
    const recorder = new CallRecorder(path, endpoint, options);
    this.recorders.add(recorder);
    return recorder;
  }

  /** Starts a tone detector on what an endpoint hears (or says); it stops with the endpoint. */
  detectTones(endpoint: MediaEndpoint, direction: Direction = "heard", options?: ToneDetectorOptions): ToneDetector {
    const detector = new ToneDetector(options);
    if (direction === "heard") endpoint.onHeard((frame) => detector.push(frame));
    else endpoint.onSaid((frame) => detector.push(frame));
    return detector;
  }

  /** Starts a DTMF receiver on what an endpoint hears (or says); it stops with the endpoint. */
  detectDtmf(endpoint: MediaEndpoint, direction: Direction = "heard", options?: DtmfDetectorOptions): DtmfDetector {
    const detector = new DtmfDetector(options);
    if (direction === "heard") endpoint.onHeard((frame) => detector.push(frame));
    else endpoint.onSaid((frame) => detector.push(frame));
    return detector;
  }

  stats(): MediaPlaneStats {
    const legs: MediaPlaneStats["legs"] = [];
    for (const endpoint of this.endpoints)
      if (endpoint instanceof WebRtcLeg) legs.push({ id: endpoint.id, ...endpoint.stats() });
    return { clock: this.clock.stats(), endpoints: this.endpoints.size, legs };
  }

  /** Stops the clock, closes every endpoint and completes every recording. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.clock.stop();
    const recordings = [...this.recorders].map((r) =>
      r.stop().catch((error: unknown) => console.error("recording failed to complete", error)),
    );
    for (const endpoint of [...this.endpoints]) endpoint.close();
    await Promise.all(recordings);
  }

  private register<T extends MediaEndpoint>(endpoint: T): T {
    this.assertOpen();
    this.endpoints.add(endpoint);
    endpoint.onClose(() => this.endpoints.delete(endpoint));
    this.mixer.add(endpoint);
    // The clock runs from the first endpoint on: before it there is nothing to do.
    if (!this.clock.running) this.clock.start();
    return endpoint;
  }

  private assertOpen(): void {
    if (this.isClosed) throw new Error("the media plane is closed");
  }
}
