// The phone with sip.js's real WebRTC session description handler, on @roamhq/wrtc (libwebrtc
// for Node): what the SDP offers look like when the browser's own code makes them.
import wrtc from "@roamhq/wrtc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionDescriptionHandlerFactory } from "sip.js";
import { mediaSections } from "./sdp-direction";
import { FakeSwitch, isRequest, type RequestRecord, type WireRecord } from "./testing/fake-switch";
import { startPeer } from "./testing/peer";
import { settle, startPhone, until, untilCall } from "./testing/phone-rig";

const g = globalThis as Record<string, unknown>;
const saved = { RTCPeerConnection: g.RTCPeerConnection, MediaStream: g.MediaStream, MediaStreamTrackEvent: g.MediaStreamTrackEvent };
const sources: Array<{ stop(): void }> = [];

let webFactory: () => SessionDescriptionHandlerFactory;

beforeAll(async () => {
  g.RTCPeerConnection = wrtc.RTCPeerConnection;
  g.MediaStream = wrtc.MediaStream;
  g.MediaStreamTrackEvent = class extends Event {
    readonly track: unknown;
    constructor(type: string, init: { track: unknown }) {
      super(type);
      this.track = init.track;
    }
  };
  const { Web } = await import("sip.js");
  webFactory = () =>
    Web.defaultSessionDescriptionHandlerFactory(async () => {
      const track = new wrtc.nonstandard.RTCAudioSource().createTrack();
      sources.push(track);
      return new wrtc.MediaStream([track]) as unknown as MediaStream;
    });
});

afterAll(() => {
  for (const t of sources) t.stop();
  Object.assign(g, saved);
});

const fromAlice = (method: string) => (r: WireRecord): r is RequestRecord => r.direction === "from-ua" && r.user === "1001" && isRequest(r, method);
const audioDirection = (sdp: string) => mediaSections(sdp).find((s) => s.media === "audio")?.direction;
const ufrag = (sdp: string) => /a=ice-ufrag:(\S+)/.exec(sdp)?.[1];

describe("with sip.js's WebRTC handler", () => {
  it("holds with a media-level sendonly offer, resumes with sendrecv, restarts ICE after a reconnection", async () => {
    const sw = new FakeSwitch();
    const alice = await startPhone(sw, { env: { sessionDescriptionHandlerFactory: webFactory() }, settings: { keepAlive: { mode: "off" }, reconnect: { initialDelayMs: 1, maxDelayMs: 1 } } });
    const bob = await startPeer(sw, "2000", {}, webFactory());
    try {
      const id = await alice.phone.call("2000");
      const atBob = await bob.nextInvitation();
      await atBob.accept();
      await untilCall(alice.phone, id, (c) => c.state === "active");
      const offer = sw.records(fromAlice("INVITE"))[0]!.message.body;
      expect(audioDirection(offer)).toBe("sendrecv");
      expect(alice.audio[0]?.srcObject).toBeTruthy();

      let m = sw.mark();
      await alice.phone.hold(id);
      expect(audioDirection(sw.records(fromAlice("INVITE"), m)[0]!.message.body)).toBe("sendonly");
      await alice.phone.resume(id);
      expect(audioDirection(sw.records(fromAlice("INVITE"), m)[1]!.message.body)).toBe("sendrecv");

      m = sw.mark();
      sw.drop("1001");
      await until(alice.phone.phoneStore, (s) => s.registration.status === "registered" && s.transport === "connected");
      const restart = await sw.waitFor(fromAlice("INVITE"), m);
      expect(ufrag(restart.message.body)).toBeDefined();
      expect(ufrag(restart.message.body)).not.toBe(ufrag(offer));
      await settle();

      // libwebrtc for Node has no DTMF sender: the real handler says no, and INFO carries the tone.
      m = sw.mark();
      await alice.phone.sendDtmf(id, "7");
      expect(sw.records(fromAlice("INFO"), m).map((r) => r.message.body)).toEqual(["Signal=7\r\nDuration=100"]);

      await alice.phone.hangup(id);
      await untilCall(alice.phone, id, (c) => c.state === "ended");
      expect(alice.phone.diagnostics()).toMatchObject({ sessions: 0, userAgentSessions: 0, audioElements: 0 });
    } finally {
      await alice.phone.stop();
      await bob.stop();
    }
  }, 20_000);
});
