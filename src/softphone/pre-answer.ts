import { Invitation, SessionState, type SessionDescriptionHandler } from "sip.js";
import type { PhoneSdhOptions } from "./call-media";
import type { CallLeg } from "./call-leg";

/**
 * While the call rings, does what Answer would do first: opens the microphone and makes the
 * answer to the offer in hand on the call's own peer connection, ICE gathered, so that Answer
 * only has to send it, and starts playing the call's (still silent) remote stream, so that the
 * browser's audio output is running when the first packet comes. Nothing goes out: no SIP, and
 * no audio (the track stays off until Answer, and DTLS cannot finish before the far end has the
 * answer). Turned away, cancelled or ended meanwhile, the call closes its peer connection and
 * stops the microphone as any call does; a step that fails leaves Answer to do it all itself.
 *
 * Resolves with the microphone it opened (now the call's), or undefined when it prepared nothing;
 * returns undefined when there is nothing to prepare (not an incoming call, no SDP offer).
 */
export function prepareAnswer(
  leg: CallLeg,
  openMicrophone: () => Promise<MediaStream>,
): Promise<MediaStream | undefined> | undefined {
  const invitation = leg.session;
  if (!(invitation instanceof Invitation)) return undefined;
  const body = invitation.request.body;
  const offer: string | undefined = typeof body === "string" ? body : (body as { body?: string } | undefined)?.body;
  if (!offer || !/^v=0/m.test(offer)) return undefined;
  const ringing = () => !leg.isFinished && invitation.state === SessionState.Initial;
  return (async () => {
    const microphone = await openMicrophone().catch(() => undefined);
    if (!microphone) return undefined;
    if (!ringing()) {
      microphone.getTracks().forEach((t) => t.stop());
      return undefined;
    }
    leg.microphone = microphone;
    microphone.getAudioTracks().forEach((t) => (t.enabled = false));
    const sdh = sessionDescriptionHandlerNow(invitation);
    const options: PhoneSdhOptions = { constraints: { audio: true, video: false }, microphone };
    try {
      await sdh.setDescription(offer, options);
      const answer = await sdh.getDescription(options);
      if (ringing()) {
        answerWith(sdh, offer, answer);
        // The audio output starts now, not after Answer: the first packet is played at once.
        leg.attachAudio(true);
      }
    } catch (e) {
      if (ringing()) console.warn("softphone: preparing the answer failed; Answer makes it", e);
    }
    return microphone;
  })();
}

/**
 * The one reach into sip.js's inside: sip.js makes a call's session description handler (its peer
 * connection) only when accept() first needs one, through a protected method, and offers no public
 * way to have it earlier. Made now, accept() finds it ready and uses it, and sip.js still closes it
 * when the call ends. sip.js is pinned (package.json) to a version whose Invitation has it.
 */
function sessionDescriptionHandlerNow(invitation: Invitation): SessionDescriptionHandler {
  return (
    invitation as unknown as { setupSessionDescriptionHandler(): SessionDescriptionHandler }
  ).setupSessionDescriptionHandler();
}

/**
 * Makes sip.js's accept() use an answer prepared while the call rang: setting the same offer
 * again does nothing, and the next description asked for is the prepared one. Once used, the
 * handler is as before.
 */
function answerWith(
  sdh: SessionDescriptionHandler,
  offer: string,
  answer: Awaited<ReturnType<SessionDescriptionHandler["getDescription"]>>,
): void {
  const setDescription = sdh.setDescription;
  const getDescription = sdh.getDescription;
  sdh.setDescription = (sdp, options, modifiers) =>
    sdp === offer ? Promise.resolve() : setDescription.call(sdh, sdp, options, modifiers);
  sdh.getDescription = () => {
    sdh.setDescription = setDescription;
    sdh.getDescription = getDescription;
    return Promise.resolve(answer);
  };
}
