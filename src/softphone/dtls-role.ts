import type {
  SessionDescriptionHandler,
  SessionDescriptionHandlerFactory,
  SessionDescriptionHandlerModifier,
} from "sip.js";

/**
 * An answer that takes the DTLS server's role (`a=setup:passive`) where the browser chose the
 * client's (`a=setup:active`). Only for an answer to an offer that left the role to us
 * (`a=setup:actpass`); any other offer has already said which role we must take.
 */
export function asDtlsServer(answerSdp: string): string {
  return answerSdp.replace(/^a=setup:active(?=\r?$)/gm, "a=setup:passive");
}

const dtlsServer: SessionDescriptionHandlerModifier = (d) =>
  Promise.resolve(d.sdp ? { type: d.type, sdp: asDtlsServer(d.sdp) } : d);

/** The parts of sip.js's Web SessionDescriptionHandler this needs. */
interface AnsweringHandler extends Pick<SessionDescriptionHandler, "getDescription"> {
  peerConnection:
    Pick<RTCPeerConnection, "signalingState" | "currentLocalDescription" | "remoteDescription"> | undefined;
}

function isAnsweringHandler(x: unknown): x is AnsweringHandler {
  return !!x && typeof (x as AnsweringHandler).getDescription === "function" && "peerConnection" in (x as object);
}

/**
 * Wraps a session description handler factory so that the first answer of a call to an offer
 * that leaves the DTLS role open takes the server's role: the far end, the client, then starts
 * the handshake as soon as it has our answer, instead of us sending a ClientHello before it can
 * take it. Browsers answer as the client so that the handshake can start while the answer travels
 * (RFC 5763 §5), but our answer is made while the call rings, long before the far end has it:
 * the ClientHello sent then is lost (a far end that has no answer yet has no DTLS to give it to;
 * libwebrtc keeps one early datagram, and a browser's ClientHello with a post-quantum key share
 * takes two), and the browser sends it again only on its retransmission timer, which by then has
 * backed off to seconds. Later answers in the call keep the role the call has. A browser that
 * refuses the edited answer gets its own answer set instead (the call works, in the old role).
 */
export function withDtlsServerAnswer(factory: SessionDescriptionHandlerFactory): SessionDescriptionHandlerFactory {
  return (session, options) => {
    const sdh = factory(session, options);
    if (!isAnsweringHandler(sdh)) return sdh;
    const getDescription = sdh.getDescription.bind(sdh);
    sdh.getDescription = (opts, modifiers) => {
      const pc = sdh.peerConnection;
      const firstAnswer =
        pc?.signalingState === "have-remote-offer" &&
        !pc.currentLocalDescription &&
        /^a=setup:actpass\r?$/m.test(pc.remoteDescription?.sdp ?? "");
      if (!firstAnswer) return getDescription(opts, modifiers);
      return getDescription(opts, [...(modifiers ?? []), dtlsServer]).catch(() => getDescription(opts, modifiers));
    };
    return sdh;
  };
}
