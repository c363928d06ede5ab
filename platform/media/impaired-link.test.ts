import { describe, expect, it } from "vitest";
import { hostCandidates, packetKind, replaceCandidates } from "./impaired-link";

const offer = [
  "v=0",
  "o=- 1 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "a=group:BUNDLE 0",
  "m=audio 56943 UDP/TLS/RTP/SAVPF 111 0",
  "c=IN IP4 192.0.2.2",
  "a=rtcp:9 IN IP4 0.0.0.0",
  "a=candidate:3077952869 1 udp 2122265343 fd00::2 60736 typ host generation 0 network-id 2",
  "a=candidate:3229573512 1 udp 2122194687 192.0.2.2 56943 typ host generation 0 network-id 1",
  "a=candidate:1510613869 1 udp 2122063615 127.0.0.1 44391 typ host generation 0 network-id 3",
  "a=candidate:2398920056 1 tcp 1518214911 192.0.2.2 57477 typ host tcptype passive generation 0 network-id 1",
  "a=ice-ufrag:j2eg",
  "a=mid:0",
  "a=rtpmap:111 opus/48000/2",
  "",
].join("\r\n");

describe("the impaired link's SDP rewriting", () => {
  it("reads the IPv4 UDP host candidates only", () => {
    expect(hostCandidates(offer)).toEqual([
      { foundation: "3229573512", priority: "2122194687", address: "192.0.2.2", port: 56943 },
      { foundation: "1510613869", priority: "2122063615", address: "127.0.0.1", port: 44391 },
    ]);
  });

  it("puts the relay's candidates in place of the others, and the default address on the first", () => {
    const ours = [
      "a=candidate:1 1 udp 2122194687 192.0.2.2 40000 typ host generation 0",
      "a=candidate:2 1 udp 2122063615 127.0.0.1 40001 typ host generation 0",
    ];
    const out = replaceCandidates(offer, ours);
    expect(out.match(/^a=candidate:.*$/gm)).toEqual(ours);
    expect(out).toContain("m=audio 40000 UDP/TLS/RTP/SAVPF 111 0\r\nc=IN IP4 192.0.2.2\r\na=candidate:1 ");
    // Everything else is as it was.
    expect(out.replace(/^(a=candidate|m=audio|c=IN).*\r\n/gm, "")).toBe(
      offer.replace(/^(a=candidate|m=audio|c=IN).*\r\n/gm, ""),
    );
  });

  it("leaves no address to reach when there are no candidates (trickle ICE's placeholder)", () => {
    const out = replaceCandidates(offer, []);
    expect(out).not.toContain("a=candidate:");
    expect(out).toContain("m=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\nc=IN IP4 0.0.0.0\r\n");
  });
});

describe("packetKind (RFC 7983)", () => {
  it("tells STUN, DTLS, RTP and RTCP apart by their first bytes", () => {
    expect(packetKind(Uint8Array.of(0x00, 0x01))).toBe("stun");
    expect(packetKind(Uint8Array.of(22, 254))).toBe("dtls");
    expect(packetKind(Uint8Array.of(0x80, 111))).toBe("rtp");
    expect(packetKind(Uint8Array.of(0x80, 111 | 0x80))).toBe("rtp");
    expect(packetKind(Uint8Array.of(0x81, 200))).toBe("rtcp");
    expect(packetKind(Uint8Array.of(0x80, 201))).toBe("rtcp");
    expect(packetKind(Uint8Array.of(0x40))).toBe("other");
  });
});
