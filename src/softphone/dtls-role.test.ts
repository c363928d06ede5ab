import { describe, expect, it } from "vitest";
import type { Session, SessionDescriptionHandler, SessionDescriptionHandlerModifier } from "sip.js";
import { asDtlsServer, withDtlsServerAnswer } from "./dtls-role";

const offer = (setup: string) =>
  `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=setup:${setup}\r\na=rtpmap:111 opus/48000/2\r\n`;
const browserAnswer =
  "v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=setup:active\r\na=rtpmap:111 opus/48000/2\r\n";

/** A handler whose peer connection is in the given state; getDescription applies the modifiers to the browser's answer. */
function handler(pc: { signalingState: RTCSignalingState; remote: string; local?: string }) {
  return {
    peerConnection: {
      signalingState: pc.signalingState,
      remoteDescription: { type: "offer", sdp: pc.remote },
      currentLocalDescription: pc.local ? { type: "answer", sdp: pc.local } : null,
    },
    refusesEdits: false,
    async getDescription(_options?: unknown, modifiers?: SessionDescriptionHandlerModifier[]) {
      let d: RTCSessionDescriptionInit = { type: "answer", sdp: browserAnswer };
      for (const m of modifiers ?? []) d = await m(d);
      if (this.refusesEdits && d.sdp !== browserAnswer) throw new Error("InvalidModificationError");
      return { body: d.sdp!, contentType: "application/sdp" };
    },
  };
}

const wrap = (h: ReturnType<typeof handler>) =>
  withDtlsServerAnswer(() => h as unknown as SessionDescriptionHandler)({} as Session);

describe("withDtlsServerAnswer", () => {
  it("answers an offer that leaves the DTLS role open as the DTLS server", async () => {
    const sdh = wrap(handler({ signalingState: "have-remote-offer", remote: offer("actpass") }));
    const { body } = await sdh.getDescription();
    expect(body).toMatch(/^a=setup:passive\r$/m);
    expect(body).not.toMatch(/a=setup:active/);
  });

  it("falls back to the browser's own answer when the browser refuses the edited one", async () => {
    const h = handler({ signalingState: "have-remote-offer", remote: offer("actpass") });
    h.refusesEdits = true;
    expect((await wrap(h).getDescription()).body).toBe(browserAnswer);
  });

  it("keeps the role an offer imposes", async () => {
    const sdh = wrap(handler({ signalingState: "have-remote-offer", remote: offer("passive") }));
    expect((await sdh.getDescription()).body).toMatch(/^a=setup:active\r$/m);
  });

  it("leaves answers later in the call (re-INVITEs) to the role the call has", async () => {
    const sdh = wrap(
      handler({ signalingState: "have-remote-offer", remote: offer("actpass"), local: asDtlsServer(browserAnswer) }),
    );
    expect((await sdh.getDescription()).body).toMatch(/^a=setup:active\r$/m);
  });

  it("leaves offers alone", async () => {
    const sdh = wrap(handler({ signalingState: "stable", remote: offer("actpass") }));
    expect((await sdh.getDescription()).body).toMatch(/^a=setup:active\r$/m);
  });
});
