// The phone with sip.js's real WebRTC session description handler, on @roamhq/wrtc (libwebrtc
// for Node): what the SDP offers look like when the browser's own code makes them.
import wrtc from "@roamhq/wrtc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionDescriptionHandlerFactory } from "sip.js";
import { mediaSections } from "./sdp-direction";
import { FakeSipServer, isRequest, isResponse, type RequestRecord, type WireRecord } from "./testing/fake-sip-server";
import { startPeer } from "./testing/peer";
import { settle, startPhone, until, untilCall } from "./testing/phone-rig";

const g = globalThis as Record<string, unknown>;
/** Every peer connection made, and the rollbacks applied to them. */
const peerConnections: RTCPeerConnection[] = [];
const rollbacks: string[] = [];
const saved = {
  RTCPeerConnection: g.RTCPeerConnection,
  MediaStream: g.MediaStream,
  MediaStreamTrackEvent: g.MediaStreamTrackEvent,
};
const sources: Array<{ stop(): void }> = [];

let webFactory: () => SessionDescriptionHandlerFactory;

beforeAll(async () => {
  g.RTCPeerConnection = class extends wrtc.RTCPeerConnection {
    constructor(config?: RTCConfiguration) {
      super(config);
      peerConnections.push(this as unknown as RTCPeerConnection);
    }
    override setLocalDescription(d?: RTCLocalSessionDescriptionInit) {
      if (d?.type === "rollback") rollbacks.push(`rollback of ${this.signalingState}`);
      return super.setLocalDescription(d);
    }
  };
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

const fromAlice =
  (method: string) =>
  (r: WireRecord): r is RequestRecord =>
    r.direction === "from-ua" && r.user === "1001" && isRequest(r, method);
const audioDirection = (sdp: string) => mediaSections(sdp).find((s) => s.media === "audio")?.direction;
const ufrag = (sdp: string) => /a=ice-ufrag:(\S+)/.exec(sdp)?.[1];

describe("with sip.js's WebRTC handler", () => {
  it("holds with a media-level sendonly offer, resumes with sendrecv, restarts ICE after a reconnection", async () => {
    const sw = new FakeSipServer();
    const alice = await startPhone(sw, {
      env: { sessionDescriptionHandlerFactory: webFactory() },
      settings: { keepAlive: { mode: "off" }, reconnect: { initialDelayMs: 1, maxDelayMs: 1 } },
    });
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

  it("holds and resumes that cross on the wire (491 both ways) leave both calls sending and receiving, with no offer ever rolled back", async () => {
    // Chromium's rollback of a local offer silences the receiver of a call it answered for good
    // (seen against Kamailio): an offer during the call only goes on the peer connection with its answer.
    const sw = new FakeSipServer();
    const settings = { keepAlive: { mode: "off" as const } };
    const alice = await startPhone(sw, {
      user: "1001",
      settings,
      env: { sessionDescriptionHandlerFactory: webFactory(), random: () => 0 },
    });
    const bob = await startPhone(sw, {
      user: "1002",
      settings,
      env: { sessionDescriptionHandlerFactory: webFactory(), random: () => 0 },
    });
    try {
      const a = await alice.phone.call("1002");
      await until(bob.phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
      const b = bob.phone.callsStore.getState().calls[0]!.id;
      await bob.phone.answer(b);
      await untilCall(alice.phone, a, (c) => c.state === "active");
      const [alicePc, bobPc] = peerConnections.slice(-2);
      rollbacks.length = 0;

      const reinviteTo = (user: string) => (r: WireRecord) =>
        r.direction === "to-ua" && r.user === user && isRequest(r, "INVITE") && !!r.message.toTag;
      const cross = async (act: (phone: typeof alice.phone, id: string) => Promise<void>) => {
        const m = sw.mark();
        sw.gate("1001");
        sw.gate("1002");
        const acting = Promise.all([act(alice.phone, a), act(bob.phone, b)]);
        await Promise.all([sw.waitFor(reinviteTo("1001"), m), sw.waitFor(reinviteTo("1002"), m)]);
        sw.release("1001");
        sw.release("1002");
        await acting;
        expect(sw.records((r) => r.direction === "from-ua" && isResponse(r, 491, "INVITE"), m)).toHaveLength(2);
      };
      await cross((phone, id) => phone.hold(id));
      expect(alice.call(a)).toMatchObject({ held: true, remoteHeld: true });
      expect(bob.call(b)).toMatchObject({ held: true, remoteHeld: true });
      expect([alicePc, bobPc].map((pc) => pc!.getTransceivers()[0]!.currentDirection)).toEqual([
        "inactive",
        "inactive",
      ]);
      await cross((phone, id) => phone.resume(id));
      expect(alice.call(a)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
      expect(bob.call(b)).toMatchObject({ held: false, remoteHeld: false, state: "active" });
      expect([alicePc, bobPc].map((pc) => pc!.getTransceivers()[0]!.currentDirection)).toEqual([
        "sendrecv",
        "sendrecv",
      ]);
      expect(rollbacks).toEqual([]);
    } finally {
      await alice.phone.stop();
      await bob.phone.stop();
    }
  }, 20_000);
});
