import { describe, expect, it, vi } from "vitest";
import type { Session, SessionDescriptionHandler } from "sip.js";
import { candidateSetIsUsable, candidateType, withEarlyIceCompletion } from "./ice-gathering";

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
    expect(candidateType({ candidate: "candidate:1 1 udp 1686052607 203.0.113.7 50000 typ srflx raddr 10.0.0.2 rport 50000" })).toBe("srflx");
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
    };
    const factory = withEarlyIceCompletion(() => handler as unknown as SessionDescriptionHandler, { iceServers: [turn], iceTransportPolicy: "all" });
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
