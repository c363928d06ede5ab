import type { SessionDescriptionHandler, SessionDescriptionHandlerFactory } from "sip.js";

/** The parts of a WebRTC session description handler (sip.js's Web one) this needs. */
interface NegotiatingHandler extends SessionDescriptionHandler {
  readonly peerConnection:
    | Pick<RTCPeerConnection, "signalingState"> & {
        setLocalDescription(d: { type: "rollback" }): Promise<void>;
        setRemoteDescription(d: { type: "rollback" }): Promise<void>;
      }
    | undefined;
}

function isNegotiating(x: unknown): x is NegotiatingHandler {
  return !!x && "peerConnection" in (x as object) && typeof (x as SessionDescriptionHandler).getDescription === "function";
}

/**
 * Wraps a session description handler factory so that two offers of one call never tread on each
 * other, which sip.js 0.21's browser handler cannot ensure by itself:
 * - it gets `rollbackDescription()` (sip.js calls it after a 491 or a refused offer; the browser
 *   handler has none, so its peer connection stayed in have-local-offer and every later
 *   re-INVITE failed with "Invalid signaling state");
 * - a re-INVITE that arrives while our own offer is still being prepared (ICE gathering) is not
 *   taken for the answer to it: it waits until our offer is rolled back (the dialog refuses to
 *   send ours while theirs is open, and the call then retries once theirs is over);
 * - a new offer is not prepared while a received one is being answered (the browser would create
 *   the answer in its place).
 * Offers and answers are otherwise the wrapped handler's own.
 */
export function withOfferAnswerOrder(factory: SessionDescriptionHandlerFactory): SessionDescriptionHandlerFactory {
  return (session, options) => {
    const sdh = factory(session, options);
    if (!isNegotiating(sdh)) return sdh;
    /**
     * Our offer: being prepared (set locally, not yet handed to sip.js), out in a request, or being
     * taken back (sip.js asks for that as a 491 arrives; an offer of theirs may follow at once).
     */
    let offer: "none" | "preparing" | "sent" | "rolling-back" = "none";
    let applyingRemoteOffer = false;
    let answerDue = false;
    let closed = false;
    const waiters = new Set<() => void>();
    const changed = () => {
      for (const w of [...waiters]) w();
    };
    const until = (ready: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!ready() && !closed) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });

    const getDescription = sdh.getDescription.bind(sdh);
    const setDescription = sdh.setDescription.bind(sdh);
    const close = sdh.close.bind(sdh);

    sdh.getDescription = async (opts, modifiers) => {
      if (answerDue) {
        answerDue = false;
        try {
          return await getDescription(opts, modifiers);
        } finally {
          changed();
        }
      }
      await until(() => !applyingRemoteOffer && !answerDue);
      const isOffer = sdh.peerConnection?.signalingState === "stable";
      if (isOffer) offer = "preparing";
      try {
        const description = await getDescription(opts, modifiers);
        if (isOffer && offer === "preparing") offer = "sent";
        return description;
      } catch (e) {
        if (isOffer) offer = "none";
        throw e;
      } finally {
        changed();
      }
    };

    sdh.setDescription = async (sdp, opts, modifiers) => {
      // Nothing can answer an offer we have not sent yet, or one we are taking back: this is an
      // offer crossing ours.
      if (offer === "preparing" || offer === "rolling-back") await until(() => offer === "none");
      if (offer === "sent" && sdh.peerConnection?.signalingState === "have-local-offer") {
        offer = "none";
        try {
          return await setDescription(sdp, opts, modifiers);
        } finally {
          changed();
        }
      }
      applyingRemoteOffer = true;
      try {
        await setDescription(sdp, opts, modifiers);
        answerDue = true;
      } finally {
        applyingRemoteOffer = false;
        changed();
      }
    };

    sdh.rollbackDescription = async () => {
      const pc = sdh.peerConnection;
      offer = "rolling-back";
      try {
        if (pc?.signalingState === "have-local-offer") await pc.setLocalDescription({ type: "rollback" });
        else if (pc?.signalingState === "have-remote-offer") await pc.setRemoteDescription({ type: "rollback" });
      } finally {
        offer = "none";
        answerDue = false;
        changed();
      }
    };

    sdh.close = () => {
      closed = true;
      close();
      changed();
    };
    return sdh;
  };
}

/** Rolls back an offer of ours that never went out (the re-INVITE failed before it was sent). */
export async function rollbackUnsentOffer(sdh: SessionDescriptionHandler | undefined): Promise<void> {
  await sdh?.rollbackDescription?.().catch(() => {});
}
