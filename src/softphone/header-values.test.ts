import { describe, expect, it } from "vitest";
import { headerNamesOf } from "./header-values";

describe("headerNamesOf", () => {
  it("lists the header names as written, once each, skipping the request line, folded lines and the body", () => {
    const raw = [
      "INVITE sip:1001@pbx.test SIP/2.0",
      "Via: SIP/2.0/WSS a.invalid;branch=z9hG4bK1",
      "X-IVR-Account: 12345",
      "X-Note: one",
      " folded: not a header",
      "x-ivr-account: 67890",
      "Content-Length: 9",
      "",
      "X-Body: 1",
    ].join("\r\n");
    expect(headerNamesOf(raw)).toEqual(["Via", "X-IVR-Account", "X-Note", "Content-Length"]);
  });
});
