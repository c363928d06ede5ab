import { describe, expect, it, vi } from "vitest";
import type { Session, SessionDescriptionHandler } from "sip.js";
import { candidateSetIsUsable, candidateType, withEarlyIceCompletion, withoutTrickle } from "./ice-gathering";
import { FakeSipServer, isRequest, isResponse } from "./testing/fake-sip-server";
import { startPhone, untilCall } from "./testing/phone-rig";

const stun = { urls: "stun:stun.example.com:3478" };
const turn = { urls: ["turn:turn.example.com:3478?transport=udp"], username: "u", credential: "p" };

describe("candidateSetIsUsable", () => {
  it("with TURN, waits for a relay candidate", () => {
    const config = { iceServers: [stun, turn], iceTransportPolicy: "all" as const };
    expect(candidateSetIsUsable(["host", "srflx"], config)).toBe(false);
    expect(candidateSetIsUsable(["host", "relay"], config)).toBe(true);
  });

  it("with STUN only, a server-reflexive candidate is enough", () => {
    const config = { iceServers: [stun], iceTransportPolicy: "all" as const };
    expect(candidateSetIsUsable(["host"], config)).toBe(false);
    expect(candidateSetIsUsable(["host", "srflx"], config)).toBe(true);
  });

  it("with no servers, leaves completion to the browser", () => {
    expect(candidateSetIsUsable(["host", "host"], { iceServers: [], iceTransportPolicy: "all" })).toBe(false);
  });

  it("reads the type from the candidate line when the browser gives no type field", () => {
    expect(
      candidateType({
        candidate: "candidate:1 1 udp 1686052607 203.0.113.7 50000 typ srflx raddr 10.0.0.2 rport 50000",
      }),
    ).toBe("srflx");
    expect(candidateType({ type: "relay" })).toBe("relay");
    expect(candidateType(null)).toBeUndefined();
  });
});

describe("withEarlyIceCompletion", () => {
  it("stops the handler's ICE wait at the first usable candidate and forgets candidates on an ICE restart", () => {
    const handler = {
      peerConnectionDelegate: undefined as undefined | Record<string, (e: unknown) => void>,
      peerConnection: { iceGatheringState: "gathering" },
      iceGatheringComplete: vi.fn(),
      getDescription: vi.fn(),
    };
    const factory = withEarlyIceCompletion(() => handler as unknown as SessionDescriptionHandler, {
      iceServers: [turn],
      iceTransportPolicy: "all",
    });
    factory({} as Session, {});
    const d = handler.peerConnectionDelegate!;
    d.onicecandidate!({ candidate: { type: "host" } });
    d.onicecandidate!({ candidate: { type: "srflx" } });
    expect(handler.iceGatheringComplete).not.toHaveBeenCalled();
    d.onicecandidate!({ candidate: { type: "relay" } });
    expect(handler.iceGatheringComplete).toHaveBeenCalledTimes(1);
    d.onicegatheringstatechange!({});
    d.onicecandidate!({ candidate: { type: "host" } });
    expect(handler.iceGatheringComplete).toHaveBeenCalledTimes(1);
  });
});

describe("trickle ICE", () => {
  it("is not announced in offers or answers, since the phone never trickles candidates", async () => {
    const sw = new FakeSipServer();
    const alice = await startPhone(sw, { user: "1001" });
    const bob = await startPhone(sw, { user: "1002" });
    try {
      const a = await alice.phone.call("1002");
      await vi.waitFor(() => expect(bob.phone.callsStore.getState().calls[0]?.state).toBe("ringing"));
      await bob.phone.answer(bob.phone.callsStore.getState().calls[0]!.id);
      await untilCall(alice.phone, a, (c) => c.state === "active");
      const offer = sw.records((r) => r.direction === "from-ua" && isRequest(r, "INVITE"))[0]!;
      const answer = sw.records((r) => r.direction === "from-ua" && isResponse(r, 200, "INVITE"))[0]!;
      // The browser's own description still says trickle; what goes on the wire does not.
      expect(alice.sdh(a).offers[0]!.sdp).toMatch(/a=ice-options:trickle/);
      for (const m of [offer, answer]) {
        expect(m.message.body).toMatch(/a=ice-ufrag/);
        expect(m.message.body).not.toMatch(/trickle/);
      }
    } finally {
      await alice.phone.stop();
      await bob.phone.stop();
    }
  });

  it("keeps the other ICE options", () => {
    expect(withoutTrickle("v=0\r\na=ice-options:trickle renomination\r\na=ice-options:trickle\r\nm=audio 9\r\n")).toBe(
      "v=0\r\na=ice-options:renomination\r\nm=audio 9\r\n",
    );
  });
});
