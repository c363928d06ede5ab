import type { SessionDescriptionHandler, SessionDescriptionHandlerFactory } from "sip.js";

/** The parts of a WebRTC session description handler (sip.js's Web one) this needs. */
interface NegotiatingHandler extends SessionDescriptionHandler {
  readonly peerConnection:
    | (Pick<RTCPeerConnection, "signalingState"> &
        Partial<Pick<RTCPeerConnection, "currentRemoteDescription" | "iceGatheringState" | "getTransceivers">> & {
          setLocalDescription(d: RTCSessionDescriptionInit): Promise<void>;
          setRemoteDescription(d: { type: "rollback" }): Promise<void>;
        })
    | undefined;
  /** sip.js's Web handler sets its offer or answer through this, and reads it back through the next. */
  setLocalSessionDescription?(d: RTCSessionDescriptionInit): Promise<void>;
  getLocalSessionDescription?(): Promise<RTCSessionDescriptionInit>;
}

function isNegotiating(x: unknown): x is NegotiatingHandler {
  return (
    !!x && "peerConnection" in (x as object) && typeof (x as SessionDescriptionHandler).getDescription === "function"
  );
}

/**
 * Wraps a session description handler factory so that two offers of one call never tread on each
 * other, which sip.js 0.21's browser handler cannot ensure by itself:
 * - an offer of ours during the call (hold, resume) is not set on the peer connection until its
 *   answer comes: when it is refused (491 after re-INVITEs crossed) nothing is left to roll back.
 *   Chromium's rollback of a local offer leaves the receiver of a call it answered silent for
 *   good, though RTP keeps arriving (seen with Chromium 14x: after crossed holds and resumes the
 *   callee heard nothing while the SDP said sendrecv);
 * - it gets `rollbackDescription()` (sip.js calls it after a 491 or a refused offer; the browser
 *   handler has none, so its peer connection stayed in have-local-offer and every later
 *   re-INVITE failed with "Invalid signaling state"); for an offer held back as above it only
 *   puts the transceivers' directions back;
 * - a re-INVITE that arrives while our own offer is still being prepared (ICE gathering) is not
 *   taken for the answer to it: it waits until our offer is rolled back (the dialog refuses to
 *   send ours while theirs is open, and the call then retries once theirs is over);
 * - a new offer is not prepared while a received one is being answered (the browser would create
 *   the answer in its place).
 * Offers and answers are otherwise the wrapped handler's own. The first offer of a call and an
 * ICE restart are set at once, as they must be for the browser to gather candidates.
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
    /** Our offer held back from the peer connection, and the directions to put back if refused. */
    let heldBack: { offer: RTCSessionDescriptionInit; directions: RTCRtpTransceiverDirection[] } | undefined;
    /** While an offer that may be held back is prepared: the directions before it changed them. */
    let holdingBack: RTCRtpTransceiverDirection[] | undefined;
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
    const setLocal = sdh.setLocalSessionDescription?.bind(sdh);
    const getLocal = sdh.getLocalSessionDescription?.bind(sdh);
    if (setLocal && getLocal) {
      sdh.setLocalSessionDescription = (d) => {
        if (!holdingBack || d.type !== "offer") return setLocal(d);
        heldBack = { offer: d, directions: holdingBack };
        return Promise.resolve();
      };
      sdh.getLocalSessionDescription = () => (holdingBack && heldBack ? Promise.resolve(heldBack.offer) : getLocal());
    }
    /** An offer during the call, on ICE that stays as it is, can wait for its answer: the directions to put back if refused. */
    const holdBackFor = (opts: Parameters<SessionDescriptionHandler["getDescription"]>[0]) => {
      const pc = sdh.peerConnection;
      const iceRestart = (opts as { offerOptions?: RTCOfferOptions } | undefined)?.offerOptions?.iceRestart;
      if (
        !setLocal ||
        !pc?.currentRemoteDescription ||
        pc.iceGatheringState !== "complete" ||
        !pc.getTransceivers ||
        iceRestart
      )
        return undefined;
      return pc.getTransceivers().map((t) => t.direction);
    };

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
      holdingBack = isOffer ? holdBackFor(opts) : undefined;
      try {
        const description = await getDescription(opts, modifiers);
        if (isOffer && offer === "preparing") offer = "sent";
        return description;
      } catch (e) {
        if (isOffer) offer = "none";
        heldBack = undefined;
        throw e;
      } finally {
        holdingBack = undefined;
        changed();
      }
    };

    sdh.setDescription = async (sdp, opts, modifiers) => {
      // Nothing can answer an offer we have not sent yet, or one we are taking back: this is an
      // offer crossing ours.
      if (offer === "preparing" || offer === "rolling-back") await until(() => offer === "none");
      if (offer === "sent" && (heldBack || sdh.peerConnection?.signalingState === "have-local-offer")) {
        offer = "none";
        try {
          // The answer to an offer held back: the offer goes on the peer connection first.
          const held = heldBack;
          heldBack = undefined;
          if (held) await sdh.peerConnection?.setLocalDescription(held.offer);
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
      const held = heldBack;
      heldBack = undefined;
      try {
        if (held) {
          pc?.getTransceivers?.().forEach((t, i) => {
            const d = held.directions[i];
            if (d && t.direction !== d && t.direction !== "stopped") t.direction = d;
          });
        } else if (pc?.signalingState === "have-local-offer") await pc.setLocalDescription({ type: "rollback" });
        else if (pc?.signalingState === "have-remote-offer") await pc.setRemoteDescription({ type: "rollback" });
      } finally {
        offer = "none";
        answerDue = false;
        changed();
      }
    };

    sdh.close = () => {
      closed = true;
      heldBack = undefined;
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
