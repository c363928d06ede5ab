import "./node-webrtc";
import { Web, type Session, type SessionDescriptionHandlerFactory } from "sip.js";
import type { ImpairedLink, WebRtcLeg } from "../media";
import { HostCandidates } from "./host-candidates";
import { audioDirection, type MediaDirection } from "./media-direction";

export interface LegMediaHooks {
  /** An offer from the far end set the direction it sends in: a=sendonly/inactive is hold. */
  onRemoteOffer?(direction: MediaDirection): void;
  /** Negotiation completed; the codec the call uses (e.g. "opus"). */
  onCodec?(codec: string): void;
}

type Logger = ConstructorParameters<typeof Web.SessionDescriptionHandler>[0];

/**
 * sip.js's browser session description handler on @roamhq/wrtc, with the media of the leg in the
 * platform's media plane: the microphone is the leg's outgoing track (fed by the mixer every
 * 10 ms) and the remote track goes to the leg's sink. Additions to the browser handler:
 * - remote offers are inspected for media-level a=sendonly/inactive (and c=0.0.0.0): the far
 *   end put the call on hold;
 * - rollbackDescription(), which the browser handler lacks: without it a failed re-INVITE leaves
 *   the connection in have-local-offer and the next offer from the far end is then taken for an
 *   answer (488);
 * - close() stops the leg (sink, track) before the peer connection, the teardown order wrtc
 *   survives;
 * - a description leaves once every network has its UDP host candidate (see HostCandidates),
 *   not after libwebrtc's TCP candidates about 100 ms later;
 * - with an impaired link, the media goes through it: the phone is given the link's addresses
 *   and the peer connection none of the phone's (see ImpairedLink).
 */
export class WebRtcLegHandler extends Web.SessionDescriptionHandler {
  private attached = false;
  private codecReported = false;
  /**
   * The connection's signalling state as this handler's last step left it (its own description
   * set, the far end's set, a rollback), so that the far end's answer is set without asking
   * libwebrtc: on a 200 OK that read waited for the signalling thread, busy then finishing the
   * leg's ICE gathering (a median 6 ms in a profile of the phone bench). Undefined: not known, read.
   */
  private signalling: RTCSignalingState | undefined;
  private readonly hosts = new HostCandidates();

  constructor(
    logger: Logger,
    readonly leg: WebRtcLeg,
    private readonly hooks: LegMediaHooks,
    iceGatheringTimeoutMs: number,
    private readonly link?: ImpairedLink,
  ) {
    super(logger, () => Promise.resolve(leg.localStream), {
      iceGatheringTimeout: iceGatheringTimeoutMs,
      peerConnectionConfiguration: { ...Web.defaultPeerConnectionConfiguration(), iceServers: [] },
    });
    // sip.js's handlers read the connection's state at every change, for a debug log. In wrtc
    // each read is a blocking call into libwebrtc's signalling thread: microseconds on an idle
    // machine, milliseconds on a busy one, and these changes come while a call connects, when
    // the event loop also has to feed the leg's first packets. Kept: the end of ICE gathering
    // (sip.js waits for it) and the remote track.
    const pc = this.peerConnection;
    if (pc) {
      pc.onconnectionstatechange = null;
      pc.oniceconnectionstatechange = null;
      pc.onsignalingstatechange = null;
      pc.ontrack = (event) => this.setRemoteTrack(event.track);
    }
    this.peerConnectionDelegate = {
      onicecandidate: (event) => {
        if (event.candidate && !this.hosts.complete() && this.hosts.add(event.candidate.candidate))
          this.iceGatheringComplete();
      },
    };
  }

  protected override waitForIceGatheringComplete(restart = false, timeout = 0): Promise<void> {
    // The candidates may all be in before sip.js starts waiting for them.
    if (!restart && this.hosts.complete()) return Promise.resolve();
    if (restart) this.hosts.reset();
    return super.waitForIceGatheringComplete(restart, timeout);
  }

  protected override getLocalMediaStream(options?: Web.SessionDescriptionHandlerOptions): Promise<void> {
    return super.getLocalMediaStream(options).then(() => {
      const pc = this.peerConnection;
      if (!this.attached && pc && !this.leg.closed) {
        this.attached = true;
        this.leg.attach(pc);
      }
    });
  }

  override setDescription(
    sdp: string,
    options?: Web.SessionDescriptionHandlerOptions,
    modifiers?: Parameters<Web.SessionDescriptionHandler["setDescription"]>[2],
  ): Promise<void> {
    // sip.js's own setDescription, with the signalling state read once instead of three times
    // (each read a blocking call into libwebrtc, see the constructor): this is the phone's
    // answer reaching the platform, on the way to its first packet.
    const pc = this.peerConnection;
    if (!pc) return Promise.reject(new Error("Peer connection closed."));
    const state = this.signalling ?? pc.signalingState;
    this.signalling = undefined;
    if (state !== "stable" && state !== "have-local-offer")
      return Promise.reject(new Error(`Invalid signaling state ${state}`));
    const type = state === "stable" ? "offer" : "answer";
    return this.getLocalMediaStream(options)
      .then(() => this.applyModifiers({ sdp: this.link ? this.link.conceal(sdp) : sdp, type }, modifiers))
      .then((description) => pc.setRemoteDescription(description))
      .then(() => {
        this.signalling = type === "offer" ? "have-remote-offer" : "stable";
        if (type === "offer") this.hooks.onRemoteOffer?.(audioDirection(sdp));
        else this.reportCodec(sdp);
      });
  }

  override getDescription(
    options?: Web.SessionDescriptionHandlerOptions,
    modifiers?: Parameters<Web.SessionDescriptionHandler["getDescription"]>[1],
  ): ReturnType<Web.SessionDescriptionHandler["getDescription"]> {
    this.signalling = undefined;
    return super.getDescription(options, modifiers).then(async (description) => {
      this.signalling = this.peerConnection?.signalingState;
      // Our answer names the codec chosen for a call the far end offered.
      if (this.signalling === "stable") this.reportCodec(description.body);
      return this.link ? { ...description, body: await this.link.advertise(description.body) } : description;
    });
  }

  protected override setRemoteTrack(track: MediaStreamTrack): void {
    super.setRemoteTrack(track);
    if (track.kind === "audio" && !this.leg.closed) this.leg.attachRemoteTrack(track);
  }

  rollbackDescription(): Promise<void> {
    const pc = this.peerConnection;
    this.signalling = undefined;
    if (!pc || pc.signalingState === "stable" || pc.signalingState === "closed") return Promise.resolve();
    return pc.setLocalDescription({ type: "rollback" });
  }

  override close(): void {
    this.leg.close();
    this.link?.close();
    super.close();
  }

  private reportCodec(sdp: string): void {
    if (this.codecReported) return;
    const codec = firstAudioCodec(sdp);
    if (!codec) return;
    this.codecReported = true;
    this.hooks.onCodec?.(codec);
  }
}

/** Name of the first codec of the audio section (the one an answer chose), e.g. "opus". */
export function firstAudioCodec(sdp: string): string | undefined {
  const m = /^m=audio \d+ \S+ (\d+)/m.exec(sdp);
  if (!m) return undefined;
  return new RegExp(`^a=rtpmap:${m[1]} ([^/\\s]+)`, "m").exec(sdp)?.[1];
}

/**
 * A factory for the platform's (or a test phone's) UserAgent: `legFor(session)` gives the media
 * leg and hooks of the session being set up, or undefined to refuse media (the call then fails).
 */
export function legHandlerFactory(
  legFor: (session: Session) => { leg: WebRtcLeg; hooks: LegMediaHooks; link?: ImpairedLink } | undefined,
  iceGatheringTimeoutMs = 500,
): SessionDescriptionHandlerFactory {
  return (session) => {
    const found = legFor(session);
    if (!found) throw new Error("no media leg for this session");
    return new WebRtcLegHandler(
      session.userAgent.getLogger("sip.SessionDescriptionHandler"),
      found.leg,
      found.hooks,
      iceGatheringTimeoutMs,
      found.link,
    );
  };
}
