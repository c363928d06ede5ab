import type { CallId } from "./call";

/** The HTMLAudioElement subset used, so that tests can run in Node. */
export interface AudioElementLike {
  srcObject: MediaProvider | null;
  autoplay: boolean;
  play(): Promise<void>;
  pause(): void;
  setSinkId?(sinkId: string): Promise<void>;
}

/** What is needed of a MediaStream to follow its tracks. */
export interface RemoteStreamLike {
  addEventListener(type: "addtrack" | "removetrack", listener: () => void): void;
  removeEventListener(type: "addtrack" | "removetrack", listener: () => void): void;
}

interface Playback {
  element: AudioElementLike;
  stream?: RemoteStreamLike;
  onTracksChanged?: () => void;
  /** Playing ahead of time (the call still rings): a refusal to play is not reported. */
  ahead: boolean;
}

/**
 * Plays each call's remote audio through its own audio element, created once per call and kept
 * until the call ends: the stream sip.js gives starts empty and gains its track later, and Safari
 * only plays a track added after `srcObject` was set if the element is told to play again.
 */
export class RemoteAudio {
  private readonly playbacks = new Map<CallId, Playback>();
  private sinkId = "";

  constructor(
    private readonly createElement: (() => AudioElementLike | undefined) | undefined,
    private readonly onError: (callId: CallId, error: unknown) => void,
  ) {}

  get size(): number {
    return this.playbacks.size;
  }

  /**
   * Plays `stream` for the call (again, if it changed or gained tracks). `ahead`: the call still
   * rings and nothing can arrive before it is answered, but the browser's audio output is started
   * now so that the first packet after the answer is played at once instead of waiting for the
   * output to start; a refusal to play then (autoplay policy) is left to the attach at the answer
   * to report, when a user gesture has usually unlocked it.
   */
  attach(callId: CallId, stream: RemoteStreamLike & MediaProvider, ahead = false): void {
    let p = this.playbacks.get(callId);
    if (p) p.ahead = ahead;
    else {
      const element = this.createElement?.();
      if (!element) return;
      element.autoplay = true;
      p = { element, ahead };
      this.playbacks.set(callId, p);
      if (this.sinkId) this.routeTo(callId, p.element, this.sinkId);
    }
    if (p.stream !== stream) {
      this.unfollow(p);
      p.stream = stream;
      p.onTracksChanged = () => this.play(callId, p!);
      stream.addEventListener("addtrack", p.onTracksChanged);
      stream.addEventListener("removetrack", p.onTracksChanged);
      p.element.srcObject = stream;
    }
    this.play(callId, p);
  }

  detach(callId: CallId): void {
    const p = this.playbacks.get(callId);
    if (!p) return;
    this.unfollow(p);
    p.element.pause();
    p.element.srcObject = null;
    this.playbacks.delete(callId);
  }

  /** Tries to play every call's audio again (after a user gesture unlocked autoplay). */
  retry(): void {
    for (const [callId, p] of this.playbacks) this.play(callId, p);
  }

  /** Routes every call's audio to an output device ("" = default), where the browser allows it. */
  setSink(sinkId: string): void {
    this.sinkId = sinkId;
    for (const [callId, p] of this.playbacks) this.routeTo(callId, p.element, sinkId);
  }

  private routeTo(callId: CallId, element: AudioElementLike, sinkId: string): void {
    if (typeof element.setSinkId !== "function") return;
    element.setSinkId(sinkId).catch((e: unknown) => this.onError(callId, e));
  }

  private play(callId: CallId, p: Playback): void {
    p.element.play().catch((e: unknown) => {
      if (!p.ahead) this.onError(callId, e);
    });
  }

  private unfollow(p: Playback): void {
    if (p.stream && p.onTracksChanged) {
      p.stream.removeEventListener("addtrack", p.onTracksChanged);
      p.stream.removeEventListener("removetrack", p.onTracksChanged);
    }
    p.stream = undefined;
    p.onTracksChanged = undefined;
  }
}
