import { statsReport, type MediaTally } from "./fake-stats";
import type { Session, SessionDescriptionHandler, SessionDescriptionHandlerFactory } from "sip.js";
import type { AudioElementLike } from "../remote-audio";
import type { MediaDevicesLike } from "../audio-devices";
import type { PageEventTarget } from "../page-lifecycle";

// Test doubles for what a browser gives the phone: WebRTC media, devices, audio elements, the page.
// They record what the phone asked for, so tests can assert on it.

let nextId = 1;

type Listener = () => void;

export class FakeTrack {
  readonly id = `track-${nextId++}`;
  enabled = true;
  stopped = false;
  readyState: MediaStreamTrackState = "live";
  private readonly listeners = new Set<Listener>();
  constructor(
    readonly kind: "audio" | "video" = "audio",
    readonly label = "",
    /** The device it comes from, as `getSettings()` tells. */
    private readonly device: { deviceId?: string; groupId?: string } = {},
  ) {}
  getSettings(): MediaTrackSettings {
    return { ...this.device };
  }
  /** Stopping a track ourselves ends it without an `ended` event, as in browsers. */
  stop(): void {
    this.stopped = true;
    this.readyState = "ended";
  }
  /** The device went away (unplugged): the track ends and says so. */
  end(): void {
    this.readyState = "ended";
    for (const l of [...this.listeners]) l();
  }
  addEventListener(_type: "ended", l: Listener): void {
    this.listeners.add(l);
  }
  removeEventListener(_type: "ended", l: Listener): void {
    this.listeners.delete(l);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
}

export class FakeStream {
  readonly id = `stream-${nextId++}`;
  private readonly tracks: FakeTrack[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  constructor(tracks: FakeTrack[] = []) {
    this.tracks.push(...tracks);
  }
  getTracks(): FakeTrack[] {
    return [...this.tracks];
  }
  getAudioTracks(): FakeTrack[] {
    return this.tracks.filter((t) => t.kind === "audio");
  }
  addTrack(t: FakeTrack): void {
    this.tracks.push(t);
  }
  removeTrack(t: FakeTrack): void {
    const i = this.tracks.indexOf(t);
    if (i >= 0) this.tracks.splice(i, 1);
  }
  addEventListener(type: string, l: Listener): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(l);
  }
  removeEventListener(type: string, l: Listener): void {
    this.listeners.get(type)?.delete(l);
  }
  dispatch(type: string): void {
    for (const l of [...(this.listeners.get(type) ?? [])]) l();
  }
  get listenerCount(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}

export class FakeSender {
  replaced: FakeTrack[] = [];
  /** RTCDTMFSender: `toneBuffer` holds the tones not played yet. */
  dtmf: { toneBuffer: string } = { toneBuffer: "" };
  constructor(public track: FakeTrack | null) {}
  async replaceTrack(t: FakeTrack | null): Promise<void> {
    if (t) this.replaced.push(t);
    this.track = t;
  }
}

type Direction = "sendrecv" | "sendonly" | "recvonly" | "inactive";

export interface DescriptionOptions {
  constraints?: object;
  hold?: boolean;
  offerOptions?: { iceRestart?: boolean };
  microphone?: FakeStream;
}

/**
 * Stands in for sip.js's WebRTC session description handler. It keeps the same offer/answer
 * state and the same rules as the real one: `hold` offers sendonly, an offer received as sendonly
 * is answered recvonly; a description set while it has a local offer out is taken as the answer
 * to it, whatever it is; it has no `rollbackDescription` (sip.js 0.21's has none either), but its
 * peer connection rolls back as a browser's does. It writes SDP that shows all that, changes its
 * ICE credentials on `iceRestart`, and its media API (tracks, DTMF, streams) records what it is
 * asked. `gathering` holds offers in "gathering ICE" (local offer set, not yet returned) until it
 * settles, so a test can make a re-INVITE arrive meanwhile.
 */
export class MockSdh implements SessionDescriptionHandler {
  readonly localMediaStream = new FakeStream();
  readonly remoteMediaStream = new FakeStream();
  readonly receiverTrack = new FakeTrack("audio", "remote");
  private sender: FakeSender | undefined;
  /** What the call's media did so far, as its statistics report it; none: the handler has no statistics. */
  media: MediaTally | undefined;
  private _peerConnection:
    | {
        readonly getStats?: () => Promise<RTCStatsReport>;
        getSenders(): FakeSender[];
        getReceivers(): Array<{ track: FakeTrack }>;
        readonly iceConnectionState: RTCIceConnectionState;
        readonly iceGatheringState: RTCIceGatheringState;
        readonly signalingState: RTCSignalingState;
        setLocalDescription(d: { type: "rollback" }): Promise<void>;
        setRemoteDescription(d: { type: "rollback" }): Promise<void>;
      }
    | undefined;
  private signaling: "stable" | "have-local-offer" | "have-remote-offer" = "stable";
  private remoteOfferDirection: Direction = "sendrecv";
  private iceGeneration = 1;
  readonly offers: Array<{ sdp: string; options: DescriptionOptions | undefined }> = [];
  readonly answers: string[] = [];
  readonly remoteDescriptions: string[] = [];
  readonly dtmf: Array<{ tones: string; options: unknown }> = [];
  /** What sendDtmf returns: false when telephone-event was not negotiated. */
  dtmfWorks = true;
  /** Set by the phone's wrappers, as on sip.js's handler. */
  peerConnectionDelegate:
    { oniceconnectionstatechange?: (e: Event) => void; onicecandidate?: (e: unknown) => void } | undefined;
  iceConnectionState: RTCIceConnectionState = "connected";
  iceGatheringCompleted = 0;
  /** Offers wait here after the local description is set, as ICE gathering makes them. */
  gathering: Promise<void> | undefined;
  /** Make the next setDescription fail, as an unacceptable offer would. */
  failNextSetDescription = false;
  /** Hold the next setDescription until this is settled, as a slow browser would. */
  holdNextSetDescription: Promise<void> | undefined;
  closed = false;

  constructor(readonly session: Session) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this._peerConnection = {
      get getStats() {
        const media = self.media;
        return media ? () => Promise.resolve(statsReport(media)) : undefined;
      },
      getSenders: () => (this.sender ? [this.sender] : []),
      getReceivers: () => [{ track: this.receiverTrack }],
      get iceConnectionState() {
        return self.iceConnectionState;
      },
      get iceGatheringState(): RTCIceGatheringState {
        return "complete";
      },
      get signalingState(): RTCSignalingState {
        return self.signaling;
      },
      setLocalDescription: async (d) => this.rollback(d.type, "have-local-offer"),
      setRemoteDescription: async (d) => this.rollback(d.type, "have-remote-offer"),
    };
  }

  iceGatheringComplete(): void {
    this.iceGatheringCompleted++;
  }

  /** The browser reports a new ICE connection state. */
  setIceConnectionState(state: RTCIceConnectionState): void {
    this.iceConnectionState = state;
    this.peerConnectionDelegate?.oniceconnectionstatechange?.({} as Event);
  }

  get peerConnection() {
    return this._peerConnection;
  }

  /** The microphone track currently sent (what mute and hold must silence). */
  get senderTrack(): FakeTrack | undefined {
    return this.sender?.track ?? undefined;
  }

  get senders(): FakeSender[] {
    return this.sender ? [this.sender] : [];
  }

  close(): void {
    this.closed = true;
    this.sender?.track?.stop();
    this.receiverTrack.stop();
    this._peerConnection = undefined;
  }

  hasDescription(contentType: string): boolean {
    return contentType === "application/sdp";
  }

  async getDescription(options?: DescriptionOptions): Promise<{ body: string; contentType: string }> {
    if (this.closed) throw new Error("Peer connection closed.");
    this.useMicrophone(options);
    if (options?.offerOptions?.iceRestart) this.iceGeneration++;
    let direction: Direction;
    if (this.signaling === "stable") {
      direction = options?.hold ? "sendonly" : "sendrecv";
      this.signaling = "have-local-offer";
      const sdp = this.sdp(direction);
      await this.gathering;
      this.offers.push({ sdp, options });
      return { body: sdp, contentType: "application/sdp" };
    }
    if (this.signaling !== "have-remote-offer") throw new Error(`Invalid signaling state ${this.signaling}`);
    const offered = this.remoteOfferDirection;
    direction =
      offered === "inactive"
        ? "inactive"
        : offered === "recvonly"
          ? "sendonly"
          : offered === "sendonly"
            ? options?.hold
              ? "inactive"
              : "recvonly"
            : options?.hold
              ? "sendonly"
              : "sendrecv";
    this.signaling = "stable";
    const sdp = this.sdp(direction);
    this.answers.push(sdp);
    return { body: sdp, contentType: "application/sdp" };
  }

  async setDescription(sdp: string, options?: DescriptionOptions): Promise<void> {
    if (this.closed) throw new Error("Peer connection closed.");
    if (this.failNextSetDescription) {
      this.failNextSetDescription = false;
      throw new Error("unacceptable description");
    }
    const held = this.holdNextSetDescription;
    this.holdNextSetDescription = undefined;
    if (held) await held;
    this.useMicrophone(options);
    this.remoteDescriptions.push(sdp);
    if (this.signaling === "have-local-offer") this.signaling = "stable";
    else if (this.signaling === "stable") {
      this.signaling = "have-remote-offer";
      this.remoteOfferDirection = (/a=(sendrecv|sendonly|recvonly|inactive)/.exec(sdp)?.[1] as Direction) ?? "sendrecv";
    } else throw new Error(`Invalid signaling state ${this.signaling}`);
    if (!this.remoteMediaStream.getTracks().includes(this.receiverTrack)) {
      this.remoteMediaStream.addTrack(this.receiverTrack);
      this.remoteMediaStream.dispatch("addtrack");
    }
  }

  private rollback(type: string, from: "have-local-offer" | "have-remote-offer"): void {
    if (type !== "rollback") throw new Error("only rollback is modelled");
    if (this.signaling !== from)
      throw Object.assign(new Error(`Failed to rollback in state ${this.signaling}`), { name: "InvalidStateError" });
    this.signaling = "stable";
  }

  sendDtmf(tones: string, options?: unknown): boolean {
    this.dtmf.push({ tones, options });
    return this.dtmfWorks && !this.closed;
  }

  enableSenderTracks(enable: boolean): void {
    if (!this._peerConnection) throw new Error("Peer connection closed.");
    if (this.sender?.track) this.sender.track.enabled = enable;
  }

  enableReceiverTracks(enable: boolean): void {
    if (!this._peerConnection) throw new Error("Peer connection closed.");
    this.receiverTrack.enabled = enable;
  }

  private useMicrophone(options?: DescriptionOptions): void {
    if (this.sender) return;
    const track = options?.microphone?.getAudioTracks()[0] ?? new FakeTrack("audio", "default microphone");
    this.sender = new FakeSender(track);
    this.localMediaStream.addTrack(track);
  }

  private sdp(direction: Direction): string {
    return (
      [
        "v=0",
        `o=- ${this.offers.length + this.answers.length + 1} 1 IN IP4 127.0.0.1`,
        "s=-",
        "t=0 0",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 126",
        "c=IN IP4 127.0.0.1",
        `a=ice-ufrag:gen${this.iceGeneration}`,
        // Chrome announces trickle in every offer and answer it creates.
        "a=ice-options:trickle",
        "a=rtpmap:111 opus/48000/2",
        "a=rtpmap:126 telephone-event/8000",
        `a=${direction}`,
      ].join("\r\n") + "\r\n"
    );
  }
}

/** A factory that makes MockSdh handlers and remembers them, newest last. */
export function mockMedia(): {
  factory: SessionDescriptionHandlerFactory;
  handlers: MockSdh[];
  of(session: Session): MockSdh;
} {
  const handlers: MockSdh[] = [];
  return {
    handlers,
    factory: (session) => {
      const h = new MockSdh(session);
      handlers.push(h);
      return h as unknown as SessionDescriptionHandler;
    },
    of: (session) => {
      const h = handlers.find((x) => x.session === session);
      if (!h) throw new Error("no media handler for this session");
      return h;
    },
  };
}

export interface FakeDevice {
  deviceId: string;
  kind: MediaDeviceKind;
  label: string;
  groupId: string;
}

export class FakeMediaDevices implements MediaDevicesLike {
  devices: FakeDevice[];
  readonly requests: MediaStreamConstraints[] = [];
  readonly opened: FakeStream[] = [];
  /** Error name to fail getUserMedia with (e.g. "NotAllowedError"); for exact-device requests only when `onlyExact`. */
  failWith: { name: string; onlyExact?: boolean } | undefined;
  /** Holds the next getUserMedia until this is settled, as a slow device would. */
  holdNext: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(devices: FakeDevice[] = defaultDevices()) {
    this.devices = devices;
  }

  async enumerateDevices(): Promise<FakeDevice[]> {
    return this.devices.map((d) => ({ ...d }));
  }

  async getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream> {
    this.requests.push(constraints);
    const held = this.holdNext;
    this.holdNext = undefined;
    if (held) await held;
    const audio = constraints.audio as { deviceId?: { exact?: string } } | boolean;
    const exact = typeof audio === "object" ? audio.deviceId?.exact : undefined;
    if (this.failWith && (!this.failWith.onlyExact || exact))
      throw Object.assign(new Error(this.failWith.name), { name: this.failWith.name });
    if (exact && !this.devices.some((d) => d.kind === "audioinput" && d.deviceId === exact)) {
      throw Object.assign(new Error("Overconstrained"), { name: "OverconstrainedError" });
    }
    // Without an exact id the browser opens the system default, listed first as "default".
    const inputs = this.devices.filter((d) => d.kind === "audioinput");
    const device = exact ? inputs.find((d) => d.deviceId === exact) : inputs[0];
    const label = exact ? (device?.label ?? "") : "default microphone";
    const stream = new FakeStream([
      new FakeTrack("audio", label, { deviceId: device?.deviceId ?? "default", groupId: device?.groupId ?? "" }),
    ]);
    this.opened.push(stream);
    return stream as unknown as MediaStream;
  }

  addEventListener(_type: "devicechange", l: () => void): void {
    this.listeners.add(l);
  }

  removeEventListener(_type: "devicechange", l: () => void): void {
    this.listeners.delete(l);
  }

  /** Replaces the device list and fires devicechange, as plugging or unplugging a headset does. */
  change(devices: FakeDevice[]): void {
    this.devices = devices;
    for (const l of [...this.listeners]) l();
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

export function defaultDevices(): FakeDevice[] {
  return [
    { deviceId: "default", kind: "audioinput", label: "Default - Built-in Microphone", groupId: "g1" },
    { deviceId: "mic-builtin", kind: "audioinput", label: "Built-in Microphone", groupId: "g1" },
    { deviceId: "mic-headset", kind: "audioinput", label: "Headset Microphone", groupId: "g2" },
    { deviceId: "default", kind: "audiooutput", label: "Default - Built-in Speakers", groupId: "g1" },
    { deviceId: "out-speakers", kind: "audiooutput", label: "Built-in Speakers", groupId: "g1" },
    { deviceId: "out-headset", kind: "audiooutput", label: "Headset Earphones", groupId: "g2" },
  ];
}

export class FakeAudioElement implements AudioElementLike {
  srcObject: MediaProvider | null = null;
  autoplay = false;
  plays = 0;
  paused = true;
  sinkId = "";
  async play(): Promise<void> {
    this.plays++;
    this.paused = false;
  }
  pause(): void {
    this.paused = true;
  }
  async setSinkId(id: string): Promise<void> {
    this.sinkId = id;
  }
}

export class FakePage implements PageEventTarget {
  private readonly listeners = new Map<string, Set<(event?: Event) => void>>();
  visibilityState: DocumentVisibilityState = "visible";
  addEventListener(type: string, l: (event?: Event) => void): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(l);
  }
  removeEventListener(type: string, l: (event?: Event) => void): void {
    this.listeners.get(type)?.delete(l);
  }
  /** Fires an event, e.g. `fire("pageshow", { persisted: true })` for a return from the back/forward cache. */
  fire(type: string, event: { persisted?: boolean } = {}): void {
    for (const l of [...(this.listeners.get(type) ?? [])]) l({ type, ...event } as unknown as Event);
  }
  get listenerCount(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}
