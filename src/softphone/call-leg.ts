import type { Invitation, Inviter, Referral } from "sip.js";
import type { Call, CallDirection, CallEnd, CallId } from "./call";
import type { CallsStore } from "./calls-store";
import type { NoticeBody } from "./notice";
import type { PhoneEvents } from "./phone-events";
import { PhoneError } from "./phone-error";
import type { WatchedCall } from "./quality-watchdog";
import type { RemoteAudio } from "./remote-audio";
import type { ResolvedSettings } from "./settings";

/** What a call needs from the phone around it. */
export interface CallSessionContext {
  readonly calls: CallsStore;
  readonly remoteAudio: RemoteAudio;
  readonly events: PhoneEvents;
  settings(): ResolvedSettings;
  now(): number;
  random(): number;
  notice(body: NoticeBody): void;
  /** The call is over: forget its session. */
  release(call: CallId): void;
  /** A REFER received on call `from` was accepted: place the call it asks for. */
  followReferral(from: CallId, referral: Referral): Promise<CallId>;
  /** The call's microphone track ended by itself (the device was unplugged or taken away). */
  microphoneEnded(call: CallId, track: MediaStreamTrack): void;
  /** Watches the answered call's quality until the returned function is called. */
  watchQuality(call: WatchedCall): () => void;
}

/**
 * One call as its parts see it (hold, transfer, DTMF, the pre-answer: each a file of its own, as
 * sip.js splits its Session): the session, the store record and the call's own timers and end.
 * `CallSession` is the one implementation; the parts take it through this, so that none of them
 * imports the class that owns them.
 */
export interface CallLeg {
  readonly ctx: CallSessionContext;
  readonly id: CallId;
  readonly session: Inviter | Invitation;
  readonly direction: CallDirection;
  readonly call: Call | undefined;
  readonly isEstablished: boolean;
  readonly isFinished: boolean;
  microphone: MediaStream | undefined;
  update(patch: Partial<Call> | ((call: Call) => Partial<Call>)): Call | undefined;
  /** Records how the call ended, unless that is already known (or `override`). */
  setEnd(end: CallEnd, override?: boolean): void;
  /** Runs `fn` after `ms` unless the call ends first. */
  schedule(ms: number, fn: () => void): void;
  /** Runs `fn` when the call ends (unless the returned function is called first). */
  whenEnded(fn: () => void): () => void;
  /** Settles with `onEnd()` if the call ends before `p` settles (some sip.js paths never answer). */
  untilEnded<T>(p: Promise<T>, onEnd: () => T | Error): Promise<T>;
  /** Sets the tracks to what the call's mute and hold say. */
  applyTracks(call: Call): void;
  /** Plays the call's remote stream (`ahead`: before any audio can come). */
  attachAudio(ahead?: boolean): void;
}

export function invalidState(detail: string): PhoneError {
  return new PhoneError({ kind: "invalid-state", detail });
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
