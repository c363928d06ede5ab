import { describe, expect, it } from "vitest";
import { DEFAULT_SIP_FRAME_LIMITS, frameRefusal } from "./frame-limits";

const limits = DEFAULT_SIP_FRAME_LIMITS;

function message(headers: string[], body = "", start = "INVITE sip:1002@agentbar.local SIP/2.0"): string {
  return [
    start,
    "Via: SIP/2.0/WSS abc.invalid;branch=z9hG4bK1",
    "Max-Forwards: 70",
    "To: <sip:1002@agentbar.local>",
    "From: <sip:1001@agentbar.local>;tag=1",
    "Call-ID: abc",
    "CSeq: 1 INVITE",
    ...headers,
    `Content-Length: ${body.length}`,
    "",
    body,
  ].join("\r\n");
}

describe("frameRefusal", () => {
  it("lets a phone's INVITE with a large SDP through", () => {
    const sdp = Array.from(
      { length: 150 },
      (_, i) => `a=candidate:${i} 1 udp 2122260223 192.168.1.${i} 5${i} typ host`,
    );
    const invite = message(
      [
        `Contact: <sip:abcdefgh@xyz.invalid;transport=ws>;+sip.ice;reg-id=1;+sip.instance="<urn:uuid:1234>"`,
        "Allow: ACK,CANCEL,INVITE,MESSAGE,BYE,OPTIONS,INFO,NOTIFY,REFER",
        "Supported: path, gruu, outbound",
        "User-Agent: SIP.js/0.21.2",
        "Content-Type: application/sdp",
        `Proxy-Authorization: Digest username="1001", realm="agentbar.local", nonce="${"n".repeat(200)}", uri="sip:1002@agentbar.local", response="${"r".repeat(32)}"`,
      ],
      sdp.join("\r\n"),
    );
    expect(invite.length).toBeGreaterThan(8 * 1024);
    expect(frameRefusal(invite, limits)).toBeUndefined();
    // A folded header is one field.
    expect(frameRefusal(message(["Subject: a\r\n b\r\n\tc"]), limits)).toBeUndefined();
  });

  it("refuses a message over 32 KiB, a header section over 8 KiB, more than 64 fields, a field over 2 KiB", () => {
    expect(frameRefusal(message([], "x".repeat(33 * 1024)), limits)).toEqual({
      status: 513,
      reason: "Message Too Large",
    });
    // Multi-byte characters count as bytes.
    expect(frameRefusal(message([], "中".repeat(11 * 1024)), limits)).toEqual({
      status: 513,
      reason: "Message Too Large",
    });
    expect(frameRefusal(message(Array(5).fill(`X-A: ${"a".repeat(1800)}`)), limits)).toEqual({
      status: 513,
      reason: "Headers Too Large",
    });
    // Seven fields of the message and 58 Contacts: 65.
    expect(frameRefusal(message(Array(58).fill("Contact: <sip:a@b>")), limits)).toEqual({
      status: 400,
      reason: "Too Many Headers",
    });
    expect(frameRefusal(message(Array(57).fill("Contact: <sip:a@b>")), limits)).toBeUndefined();
    expect(frameRefusal(message([`Contact: ${Array(205).fill("<sip:a@b>").join(",")}`]), limits)).toEqual({
      status: 400,
      reason: "Header Too Long",
    });
    // Continuation lines belong to their field.
    expect(frameRefusal(message([`Subject: ${"a".repeat(1000)}\r\n ${"b".repeat(1100)}`]), limits)).toEqual({
      status: 400,
      reason: "Header Too Long",
    });
    expect(frameRefusal(message([], "", `INVITE sip:${"1".repeat(2100)}@agentbar.local SIP/2.0`), limits)).toEqual({
      status: 414,
      reason: "Request-URI Too Long",
    });
  });

  it("bounds text that is not SIP at all by its size", () => {
    expect(frameRefusal("hello", limits)).toBeUndefined();
    expect(frameRefusal("x".repeat(3000), limits)).toEqual({ status: 414, reason: "Request-URI Too Long" });
    expect(frameRefusal("x".repeat(9000), limits)).toEqual({ status: 513, reason: "Headers Too Large" });
  });
});
