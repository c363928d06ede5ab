import type { Session, SessionDescriptionHandlerOptions } from "sip.js";
import type { StatsSource } from "./call-stats";
import type { RemoteStreamLike } from "./remote-audio";

/**
 * The media side of a session description handler, as sip.js's Web handler provides it (and the
 * test double imitates). Reached structurally so that the phone works with any handler that has it.
 */
export interface CallMedia {
  enableSenderTracks(enable: boolean): void;
  enableReceiverTracks(enable: boolean): void;
  sendDtmf(tones: string, options?: { duration?: number; interToneGap?: number }): boolean;
  readonly remoteMediaStream: RemoteStreamLike & MediaProvider;
  readonly localMediaStream: MediaStream;
  readonly peerConnection: (Pick<RTCPeerConnection, "getSenders"> & Partial<StatsSource>) | undefined;
}

export function callMediaOf(session: Session): CallMedia | undefined {
  const sdh = session.sessionDescriptionHandler as Partial<CallMedia> | undefined;
  if (!sdh || typeof sdh.enableSenderTracks !== "function" || !sdh.remoteMediaStream) return undefined;
  return sdh as CallMedia;
}

/** Handler options with the microphone stream opened before the INVITE or the answer. */
export interface PhoneSdhOptions extends SessionDescriptionHandlerOptions {
  microphone?: MediaStream;
  hold?: boolean;
  offerOptions?: RTCOfferOptions;
}

/** Silences or restores what we send and hear; a closed peer connection has nothing to switch. */
export function applyTrackState(media: CallMedia | undefined, send: boolean, receive: boolean): void {
  if (!media?.peerConnection) return;
  media.enableSenderTracks(send);
  media.enableReceiverTracks(receive);
}
