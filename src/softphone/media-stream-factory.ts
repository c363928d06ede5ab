import { Web, type SessionDescriptionHandlerFactory } from "sip.js";
import type { PhoneSdhOptions } from "./call-media";

/**
 * The browser's session description handler factory: sip.js's WebRTC handler, fed with the
 * microphone the phone opened before sending the INVITE or the answer (so that a refused
 * microphone is known before any SIP goes out).
 */
export function browserSessionDescriptionHandlerFactory(
  openMicrophone: () => Promise<MediaStream>,
): SessionDescriptionHandlerFactory {
  const mediaStreamFactory: Web.MediaStreamFactory = (constraints, _sdh, options) => {
    const prepared = (options as PhoneSdhOptions | undefined)?.microphone;
    if (prepared) return Promise.resolve(prepared);
    if (!constraints.audio) return Promise.resolve(new MediaStream());
    return openMicrophone();
  };
  return Web.defaultSessionDescriptionHandlerFactory(mediaStreamFactory);
}
