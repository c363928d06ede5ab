import { describe, expect, it } from "vitest";
import { isHoldOffer, mediaSections } from "./sdp-direction";

const sdp = (...lines: string[]) => ["v=0", "o=- 1 1 IN IP4 10.0.0.1", "s=-", "t=0 0", ...lines].join("\r\n") + "\r\n";

describe("remote hold detection", () => {
  it("sees a media-level sendonly or inactive as hold", () => {
    expect(isHoldOffer(sdp("c=IN IP4 10.0.0.1", "m=audio 4000 RTP/AVP 0", "a=sendonly"))).toBe(true);
    expect(isHoldOffer(sdp("c=IN IP4 10.0.0.1", "m=audio 4000 RTP/AVP 0", "a=inactive"))).toBe(true);
  });

  it("lets the media-level attribute win over a session-level sendrecv (Firefox layout)", () => {
    const s = sdp("a=sendrecv", "c=IN IP4 10.0.0.1", "m=audio 4000 RTP/AVP 0", "a=sendonly");
    expect(mediaSections(s)[0]?.direction).toBe("sendonly");
    expect(isHoldOffer(s)).toBe(true);
  });

  it("applies a session-level direction to media without their own", () => {
    expect(isHoldOffer(sdp("a=sendonly", "m=audio 4000 RTP/AVP 0"))).toBe(true);
  });

  it("sees c=0.0.0.0 (RFC 2543 hold) as hold", () => {
    expect(isHoldOffer(sdp("c=IN IP4 0.0.0.0", "m=audio 4000 RTP/AVP 0", "a=sendrecv"))).toBe(true);
  });

  it("is not hold for sendrecv, recvonly, or when any live audio stream still flows", () => {
    expect(isHoldOffer(sdp("m=audio 4000 RTP/AVP 0", "a=sendrecv"))).toBe(false);
    expect(isHoldOffer(sdp("m=audio 4000 RTP/AVP 0"))).toBe(false);
    expect(isHoldOffer(sdp("m=audio 4000 RTP/AVP 0", "a=recvonly"))).toBe(false);
    expect(isHoldOffer(sdp("m=audio 4000 RTP/AVP 0", "a=sendonly", "m=audio 4002 RTP/AVP 0", "a=sendrecv"))).toBe(
      false,
    );
  });

  it("ignores rejected streams (port 0) and judges audio before other media", () => {
    expect(isHoldOffer(sdp("m=audio 4000 RTP/AVP 0", "a=sendonly", "m=video 0 RTP/AVP 96", "a=sendrecv"))).toBe(true);
    expect(isHoldOffer(sdp("m=audio 0 RTP/AVP 0", "a=sendrecv"))).toBe(false);
  });
});
