import { describe, expect, it } from "vitest";
import { isCompletedElsewhere, parseReasonHeader } from "./reason-header";
import { parseSipfrag } from "./sipfrag";
import { dtmfRelayBody, normaliseDtmf } from "./dtmf";
import { reconnectDelay } from "./reconnect-backoff";

describe("parseReasonHeader", () => {
  it("reads FreeSWITCH's completed-elsewhere and Q.850 causes", () => {
    expect(parseReasonHeader(['SIP;cause=200;text="Call completed elsewhere"'])).toEqual([
      { protocol: "SIP", cause: 200, text: "Call completed elsewhere" },
    ]);
    expect(parseReasonHeader(['Q.850;cause=16;text="NORMAL_CLEARING"'])).toEqual([
      { protocol: "Q.850", cause: 16, text: "NORMAL_CLEARING" },
    ]);
    expect(isCompletedElsewhere(parseReasonHeader(['SIP ;cause=200 ;text="Call completed elsewhere"']))).toBe(true);
  });

  it("splits several reasons and keeps commas inside quoted text", () => {
    const r = parseReasonHeader(['Q.850;cause=17;text="USER_BUSY, really", SIP;cause=486']);
    expect(r).toEqual([
      { protocol: "Q.850", cause: 17, text: "USER_BUSY, really" },
      { protocol: "SIP", cause: 486 },
    ]);
    expect(isCompletedElsewhere(r)).toBe(false);
  });

  it("skips values without a cause", () => {
    expect(parseReasonHeader(["SIP;text=nothing", ""])).toEqual([]);
  });
});

describe("parseSipfrag", () => {
  it("reads the status line of a NOTIFY body", () => {
    expect(parseSipfrag("SIP/2.0 200 OK")).toEqual({ status: 200, reasonPhrase: "OK" });
    expect(parseSipfrag("SIP/2.0 100 Trying\r\nContent-Length: 0\r\n")).toEqual({
      status: 100,
      reasonPhrase: "Trying",
    });
    expect(parseSipfrag("SIP/2.0 486 Busy Here")).toEqual({ status: 486, reasonPhrase: "Busy Here" });
    expect(parseSipfrag("SIP/2.0 503")).toEqual({ status: 503, reasonPhrase: "" });
  });

  it("returns nothing for what is not a sipfrag", () => {
    expect(parseSipfrag("")).toBeUndefined();
    expect(parseSipfrag(undefined)).toBeUndefined();
    expect(parseSipfrag("hello")).toBeUndefined();
  });
});

describe("DTMF values", () => {
  it("accepts the sixteen DTMF symbols, upper-casing A-D and dropping spaces", () => {
    expect(normaliseDtmf("123 456 789 0*# abcd")).toEqual({ ok: true, tones: "1234567890*#ABCD" });
  });

  it("names the first character that is not DTMF", () => {
    expect(normaliseDtmf("12e4")).toEqual({ ok: false, character: "E" });
    expect(normaliseDtmf("1,2")).toEqual({ ok: false, character: "," });
    expect(normaliseDtmf("  ")).toEqual({ ok: false, character: "" });
  });

  it("writes the application/dtmf-relay body", () => {
    expect(dtmfRelayBody("5", 160)).toBe("Signal=5\r\nDuration=160");
    expect(dtmfRelayBody("#", 100)).toBe("Signal=#\r\nDuration=100");
  });
});

describe("reconnectDelay", () => {
  const opts = { initialDelayMs: 1000, maxDelayMs: 30_000 };

  it("doubles each attempt and stays between half and all of the step", () => {
    expect([1, 2, 3, 4].map((a) => reconnectDelay(a, opts, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((a) => reconnectDelay(a, opts, () => 1))).toEqual([1000, 2000, 4000, 8000]);
  });

  it("is capped", () => {
    expect(reconnectDelay(10, opts, () => 1)).toBe(30_000);
    expect(reconnectDelay(1000, opts, () => 0)).toBe(15_000);
  });

  it("spreads agents apart with jitter", () => {
    expect(reconnectDelay(3, opts, () => 0.5)).toBe(3000);
  });
});
