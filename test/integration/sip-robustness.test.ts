import { describe, expect, it, vi } from "vitest";
import { Grammar, SessionState } from "sip.js";
import { DEMO_DOMAIN } from "./harness";
import { sipFixture } from "./sip-fixture";
import type { TestCall, TestPhone } from "./sip-phone";
import { until } from "./sip-phone";
import { RawSip, header, headers, newId, request, statusOf } from "./sip-raw";

/**
 * What the platform does with bad input and bad networks: malformed messages get 400 and disturb
 * nobody, a flood from one connection is held back with 503, and a phone whose WebSocket dies
 * mid-call can come back (its dialog follows the new connection) or its call ends after the grace
 * period with a cause saying why.
 */
const GRACE_MS = 2500;
const f = sipFixture({ sipReconnectGraceMs: GRACE_MS, sipRateBurst: 20, sipRatePerSecond: 5 });

async function connected(): Promise<{ alice: TestPhone; bob: TestPhone; aliceCall: TestCall; bobCall: TestCall }> {
  const alice = await f.phone("1001", 440);
  const bob = await f.phone("1002", 1000);
  const aliceCall = alice.call("1002");
  const bobCall = await bob.incoming();
  await bobCall.answer();
  await aliceCall.waitState(SessionState.Established);
  await aliceCall.waitHears(1000);
  await bobCall.waitHears(440);
  return { alice, bob, aliceCall, bobCall };
}

const optionsRequest = () => ({
  method: "OPTIONS",
  uri: `sip:1001@${DEMO_DOMAIN}`,
  from: `<sip:probe@${DEMO_DOMAIN}>`,
  to: `<sip:1001@${DEMO_DOMAIN}>`,
});
const options = () => request(optionsRequest());

describe("malformed messages", () => {
  it("get 400 built from what can be read, and calls on other connections keep going", async () => {
    const { aliceCall, bobCall } = await connected();
    const sip = await RawSip.open(f.platform.url);
    try {
      // A To header sip.js's grammar cannot parse.
      sip.send(
        [
          `INVITE sip:1002@${DEMO_DOMAIN} SIP/2.0`,
          "Via: SIP/2.0/WSS x.invalid;branch=z9hG4bKbroken1",
          `From: <sip:1001@${DEMO_DOMAIN}>;tag=a1`,
          "To: <<<not a uri",
          "Call-ID: broken-1",
          "CSeq: 7 INVITE",
          "Content-Length: 0",
          "",
          "",
        ].join("\r\n"),
      );
      const first = await sip.next((m) => m.startsWith("SIP/2.0 "), "the answer to the broken To");
      expect(statusOf(first)).toBe(400);
      expect(header(first, "call-id")).toBe("broken-1");
      expect(header(first, "cseq")).toBe("7 INVITE");
      expect(header(first, "via")).toBe("SIP/2.0/WSS x.invalid;branch=z9hG4bKbroken1");

      // No Call-ID at all.
      sip.send(
        `OPTIONS sip:1001@${DEMO_DOMAIN} SIP/2.0\r\nVia: SIP/2.0/WSS x.invalid;branch=z9hG4bKbroken2\r\nFrom: <sip:x@y>;tag=b\r\nTo: <sip:1001@${DEMO_DOMAIN}>\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`,
      );
      const second = await sip.next((m) => m.startsWith("SIP/2.0 "), "the answer to the missing Call-ID");
      expect(statusOf(second)).toBe(400);
      expect(header(second, "via")).toContain("z9hG4bKbroken2");

      // Not SIP at all: nothing to answer, nothing broken.
      sip.send("hello, is this the platform?");
      sip.send("\u0000\u0001binary\uFFFF");
      // The same connection still works.
      const probe = options();
      sip.send(probe.text);
      expect(statusOf(await sip.response(probe.callId, "OPTIONS"))).toBe(200);
    } finally {
      sip.close();
    }
    // The call between alice and bob never noticed.
    expect(aliceCall.state).toBe(SessionState.Established);
    await aliceCall.waitHears(1000);
    await bobCall.waitHears(440);
    await aliceCall.hangup();
  });
});

describe("what is checked before parsing", () => {
  it("answers a message over a size or header limit without parsing it, and keeps the connection", async () => {
    const sip = await RawSip.open(f.platform.url);
    const grammar = vi.spyOn(Grammar, "parse");
    try {
      const cases: [string[], string, number, string][] = [
        [[], "x".repeat(40 * 1024), 513, "Message Too Large"],
        [Array(70).fill("Contact: <sip:a@b.invalid>"), "", 400, "Too Many Headers"],
        [[`Subject: ${"s".repeat(3000)}`], "", 400, "Header Too Long"],
        [Array(6).fill(`X-Filler: ${"f".repeat(1500)}`), "", 513, "Headers Too Large"],
      ];
      for (const [extra, body, status, reason] of cases) {
        const r = request({ ...optionsRequest(), headers: extra, body });
        sip.send(r.text);
        const answer = await sip.response(r.callId, "OPTIONS");
        expect(answer.split("\r\n")[0]).toBe(`SIP/2.0 ${status} ${reason}`);
        expect(headers(answer, "via")).toHaveLength(1);
      }
      expect(grammar).not.toHaveBeenCalled();
      // The connection still works.
      const probe = options();
      sip.send(probe.text);
      expect(statusOf(await sip.response(probe.callId, "OPTIONS"))).toBe(200);
    } finally {
      grammar.mockRestore();
      sip.close();
    }
  });

  it("closes a connection whose frame is over 64 KiB before reading it", async () => {
    const sip = await RawSip.open(f.platform.url);
    const closed = new Promise<number>((resolve) => sip.ws.once("close", (code) => resolve(code)));
    sip.send(request({ ...optionsRequest(), body: "x".repeat(100 * 1024) }).text);
    expect(await closed).toBe(1009);
  });

  it("parses a message once: the platform's UserAgent gets the hub's parse", async () => {
    const sip = await RawSip.open(f.platform.url);
    const grammar = vi.spyOn(Grammar, "parse");
    try {
      const probe = options();
      sip.send(probe.text);
      expect(statusOf(await sip.response(probe.callId, "OPTIONS"))).toBe(200);
      const startLines = grammar.mock.calls.filter(([, rule]) => rule === "Request_Response");
      expect(startLines).toEqual([[probe.text.split("\r\n")[0], "Request_Response"]]);
    } finally {
      grammar.mockRestore();
      sip.close();
    }
  });
});

describe("floods", () => {
  it("a connection that sends too many requests gets 503 with Retry-After; others are served", async () => {
    const flooder = await RawSip.open(f.platform.url);
    const other = await RawSip.open(f.platform.url);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) {
        const r = request({
          method: "REGISTER",
          uri: `sip:${DEMO_DOMAIN}`,
          from: `<sip:1004@${DEMO_DOMAIN}>`,
          to: `<sip:1004@${DEMO_DOMAIN}>`,
          contact: `<sip:${newId()}@x.invalid;transport=ws>`,
        });
        ids.push(r.callId);
        flooder.send(r.text);
      }
      await until(
        "every flooded REGISTER is answered",
        () => flooder.received.filter((m) => m.startsWith("SIP/2.0 ")).length >= 60,
      );
      const answers = flooder.received.filter((m) => m.startsWith("SIP/2.0 "));
      const refused = answers.filter((m) => statusOf(m) === 503);
      expect(refused.length).toBeGreaterThanOrEqual(30);
      expect(header(refused[0]!, "retry-after")).toBe("5");
      expect(answers.filter((m) => statusOf(m) === 401).length).toBeLessThanOrEqual(30);

      const probe = options();
      other.send(probe.text);
      expect(statusOf(await other.response(probe.callId, "OPTIONS"))).toBe(200);
    } finally {
      flooder.close();
      other.close();
    }
  });
});

describe("a WebSocket that dies mid-call", () => {
  it("keeps the call while the phone reconnects; in-dialog requests then go to the new connection", async () => {
    const { alice, aliceCall, bobCall } = await connected();
    alice.dropConnection();
    expect(await alice.reconnect()).toBe(200);
    // Media never depended on the WebSocket.
    await aliceCall.waitHears(1000);
    // A platform re-INVITE reaches alice over her new connection.
    const leg = f.ctx.switch.channels().find((c) => c.sipCallId === aliceCall.callId)!;
    await f.ctx.switch.hold(leg);
    await until("alice's phone got the platform's hold over the new connection", () =>
      aliceCall.remoteOffers.includes("sendonly"),
    );
    await f.ctx.switch.unhold(leg);
    await bobCall.waitHears(440);
    // So does the BYE when bob hangs up.
    await bobCall.hangup();
    await aliceCall.waitEnded();
    expect(aliceCall.endedBy).toBe("bye");
    const cdr = await f.cdr(leg.uuid);
    expect(cdr.hangup_cause).toBe("NORMAL_CLEARING");
  });

  it("ends the call after the grace period when the phone does not come back", async () => {
    const { bob, aliceCall, bobCall } = await connected();
    const bobLeg = f.ctx.switch.channels().find((c) => c.sipCallId === bobCall.callId)!;
    bob.dropConnection();
    await aliceCall.waitEnded();
    expect(aliceCall.endedBy).toBe("bye");
    const cdr = await f.cdr(bobLeg.uuid);
    expect(cdr.hangup_cause).toBe("NETWORK_OUT_OF_ORDER");
    expect(cdr.xui_hangup_cause).toBe("websocket closed");
    // It lasted at least the grace period after the drop (the record's times are whole seconds).
    expect(cdr.duration).toBeGreaterThanOrEqual(Math.floor(GRACE_MS / 1000));
  });
});
