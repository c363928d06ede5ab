import type { Session, SessionDescriptionHandlerFactory } from "sip.js";

interface WatchedHandler {
  peerConnectionDelegate: { oniceconnectionstatechange?: (e: Event) => void } | undefined;
  peerConnection: Pick<RTCPeerConnection, "iceConnectionState"> | undefined;
}

function isWatchable(x: unknown): x is WatchedHandler {
  return !!x && "peerConnectionDelegate" in (x as object) && "peerConnection" in (x as object);
}

/**
 * Wraps a session description handler factory to report when a call's ICE connection fails
 * although the SIP socket may be fine (a Wi-Fi to LTE switch changes the media path, not
 * necessarily the WebSocket): the phone then renegotiates with an ICE restart.
 */
export function withIceFailureWatch(
  factory: SessionDescriptionHandlerFactory,
  onFailed: (session: Session) => void,
): SessionDescriptionHandlerFactory {
  return (session, options) => {
    const sdh = factory(session, options);
    if (!isWatchable(sdh)) return sdh;
    const previous = sdh.peerConnectionDelegate;
    sdh.peerConnectionDelegate = {
      ...previous,
      oniceconnectionstatechange: (e) => {
        if (sdh.peerConnection?.iceConnectionState === "failed") onFailed(session);
        previous?.oniceconnectionstatechange?.(e);
      },
    };
    return sdh;
  };
}
