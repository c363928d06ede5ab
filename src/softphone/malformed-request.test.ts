import { afterEach, describe, expect, it, vi } from "vitest";
import { Core } from "sip.js";
import { badRequest, malformation } from "./malformed-request";
import { FakeSipServer, isResponse, type WireRecord } from "./testing/fake-sip-server";
import { ServerCall } from "./testing/server-call";
import { settle, startPhone, until, untilCall } from "./testing/phone-rig";

/** A display name that closes its quotes, adds an auto-answer marker and opens a second From. */
const INJECTED_NAME = 'x"<sip:a@b>\r\nCall-Info: <sip:a>;answer-after=0\r\nFrom: "y';

function request(headers: string[], firstLine = "INVITE sip:1001@pbx.test SIP/2.0"): string {
  return [
    firstLine,
    "Via: SIP/2.0/WSS 10.0.0.1:5066;branch=z9hG4bKabc",
    "Via: SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bKdef",
    ...headers,
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
}

const WELL_FORMED = [
  "Max-Forwards: 70",
  '"Anna \\"Annie\\" Smith" <sip:5550100@pbx.test>;tag=f1',
  "To: <sip:1001@pbx.test>",
  "Call-ID: c1",
  "CSeq: 1 INVITE",
];
WELL_FORMED[1] = `From: ${WELL_FORMED[1]}`;

describe("malformation", () => {
  it("passes a well-formed request, an escaped quote in a name included", () => {
    expect(malformation(request(WELL_FORMED))).toBeUndefined();
  });

  it.each([
    ["From", "From: <sip:evil@pbx.test>;tag=f2"],
    ["From", "f: <sip:evil@pbx.test>;tag=f2"],
    ["To", "t: <sip:1002@pbx.test>"],
    ["Call-ID", "i: c2"],
    ["CSeq", "CSeq: 2 INVITE"],
    ["Max-Forwards", "Max-Forwards: 69"],
    ["Content-Length", "l: 0"],
  ])("finds a second %s (%s)", (name, line) => {
    expect(malformation(request([...WELL_FORMED, line]))).toBe(`${name} appears 2 times`);
  });

  it("finds what sip.js cannot parse: a quote too many in a name, a broken request line", () => {
    const quotes = WELL_FORMED.map((h) => (h.startsWith("From:") ? 'From: "Anna "Annie" Smith" <sip:a@b>;tag=f1' : h));
    expect(malformation(request(quotes))).toMatch(/From/);
    expect(malformation(request(WELL_FORMED, "INVITE <sip:1001@pbx.test> SIP/2.0"))).toMatch(/first line/);
  });

  it("finds a missing required header", () => {
    expect(malformation(request(WELL_FORMED.filter((h) => !h.startsWith("Call-ID"))))).toBe("no Call-ID header");
  });
});

describe("badRequest", () => {
  it("answers with the request's Vias, its first From, To with a tag, Call-ID, CSeq and the reason", () => {
    const raw = request([...WELL_FORMED, "From: <sip:evil@pbx.test>;tag=f2"]);
    const answer = badRequest(raw, 'From appears "2" times');
    const parsed = Core.Parser.parseMessage(answer, console as unknown as Core.Logger) as Core.IncomingResponseMessage;
    expect(parsed.statusCode).toBe(400);
    expect(parsed.reasonPhrase).toBe("Bad Request");
    expect(parsed.getHeaders("via")).toEqual([
      "SIP/2.0/WSS 10.0.0.1:5066;branch=z9hG4bKabc",
      "SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bKdef",
    ]);
    expect(parsed.from.uri.user).toBe("5550100");
    expect(parsed.fromTag).toBe("f1");
    expect(parsed.toTag).toMatch(/^\w+$/);
    expect(parsed.callId).toBe("c1");
    expect(parsed.getHeader("cseq")).toBe("1 INVITE");
    expect(parsed.getHeader("warning")).toBe(`399 phone "From appears '2' times"`);
  });

  it("leaves out a display name its sender could not read back", () => {
    const raw = request(
      WELL_FORMED.map((h) => (h.startsWith("From:") ? 'From: "Anna "Annie" Smith" <sip:5550100@pbx.test>;tag=f1' : h)),
    );
    const answer = badRequest(raw, "x");
    expect(answer).toContain("\r\nFrom: <sip:5550100@pbx.test>;tag=f1\r\n");
    expect(Core.Parser.parseMessage(answer, console as unknown as Core.Logger)).toBeDefined();
  });
});

describe("the phone and a malformed request", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function phone() {
    const sw = new FakeSipServer();
    const rig = await startPhone(sw, { settings: { autoAnswer: "platform", keepAlive: { mode: "off" } } });
    stops.push(() => rig.phone.stop());
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    stops.push(async () => warn.mockRestore());
    return { sw, rig };
  }

  const answerTo = (server: ServerCall) => (r: WireRecord) =>
    r.direction === "from-ua" && isResponse(r) && r.message.callId === server.callId && r.message.statusCode! >= 200;

  it.each([
    ["a name that smuggles in a second From and an auto-answer marker", INJECTED_NAME],
    ["a name with unescaped quotes, which sip.js cannot parse", 'Anna "Annie" Smith'],
  ])(
    "answers an INVITE from the platform with %s 400, shows no call, answers nothing by itself, and takes the next call",
    async (_what, fromName) => {
      const { sw, rig } = await phone();
      const forged = new ServerCall(sw, { to: "1001", fromName }).invite();
      const answer = await sw.waitFor(answerTo(forged));
      expect((answer.message as Core.IncomingResponseMessage).statusCode).toBe(400);
      // The failure's ACK (its From as broken as the INVITE's) is dropped, not answered.
      await settle();
      expect(sw.records(answerTo(forged))).toHaveLength(1);
      expect(rig.phone.callsStore.getState().calls).toEqual([]);
      const trace = rig.phone.diagnosticReport().sipTrace;
      const refused = trace.find((m) => m.direction === "received" && m.summary.startsWith("INVITE "));
      expect(refused?.refused).toMatch(/From/);
      expect(trace.some((m) => m.direction === "sent" && m.summary === "SIP/2.0 400 Bad Request")).toBe(true);

      const good = new ServerCall(sw, { to: "1001", fromName: "Anna Smith" }).invite();
      const s = await until(rig.phone.callsStore, (s) => s.calls.length === 1);
      const call = s.calls[0]!;
      expect(call.state).toBe("ringing");
      expect(call.autoAnswer).toBeUndefined();
      await rig.phone.answer(call.id);
      await untilCall(rig.phone, call.id, (c) => c.state === "active");
      expect(good.responses.some((r) => r.statusCode === 200)).toBe(true);
    },
  );
});
