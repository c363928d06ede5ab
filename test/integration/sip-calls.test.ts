import { describe, expect, it } from "vitest";
import { SessionState, type Web } from "sip.js";
import { recognizesHoldMusic } from "../../platform/media";
import { sipFixture } from "./sip-fixture";
import { until } from "./sip-phone";

/**
 * Calls between phones through the back-to-back user agent: who hears whom (each phone says its
 * own tone), what reaches the wire (status codes, Reason headers) and what the call records say.
 */
const f = sipFixture();

describe("extension to extension", () => {
  it("connects the two phones with audio both ways and writes a record per leg", async () => {
    const alice = await f.phone("1001", 440);
    const bob = await f.phone("1002", 1000);
    const call = alice.call("1002");
    const ringing = await bob.incoming();
    // The platform rings bob as alice: her caller id, his number.
    expect(ringing.header("from")).toMatch(/^"Alice Agent" <sip:1001@agentbar\.local>/);
    expect(ringing.header("to")).toMatch(/^<sip:1002@agentbar\.local>/);
    // While bob rings, alice hears the platform's ringback (450 Hz) as early media.
    await call.waitHears(450, "the caller hears ringback");
    expect(call.provisional).toContain(183);

    await ringing.answer();
    await call.waitState(SessionState.Established);
    // The platform's offer to bob and its answer to alice carry its UDP host candidates, sent as
    // soon as it has them (as FreeSWITCH sends its RTP address): not after libwebrtc's TCP
    // candidates, which come one allocation step (about 100 ms) later.
    const descriptions = {
      "offer to bob": ringing.session.request.body,
      "answer to alice": (call.session.sessionDescriptionHandler as Web.SessionDescriptionHandler).peerConnection
        ?.remoteDescription?.sdp,
    };
    for (const [what, sdp] of Object.entries(descriptions)) {
      expect(sdp, what).toMatch(/^a=candidate:\S+ 1 udp \d+ \S+ \d+ typ host/m);
      expect(sdp, what).not.toMatch(/^a=candidate:\S+ 1 tcp /m);
    }
    await call.waitHears(1000, "alice hears bob");
    await ringing.waitHears(440, "bob hears alice");
    await call.waitSilentOn(450, "the ringback has stopped");

    await call.hangup();
    await ringing.waitEnded();
    expect(ringing.endedBy).toBe("bye");

    const { a, b } = await f.legsOfCall(call.callId);
    expect(a).toMatchObject({
      direction: "inbound",
      caller_id_number: "1001",
      caller_id_name: "Alice Agent",
      destination_number: "1002",
      hangup_cause: "NORMAL_CLEARING",
      sip_hangup_disposition: "recv_bye",
      bleg_uuid: b.uuid,
      other_uuid: b.uuid,
      context: "context-1",
      realm: "agentbar.local",
      rtp_use_codec_name: "opus",
      network_addr: expect.stringMatching(/^(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1)$/),
      extn: "1001",
    });
    expect(b).toMatchObject({
      direction: "outbound",
      caller_id_number: "1001",
      destination_number: "1002",
      hangup_cause: "NORMAL_CLEARING",
      sip_hangup_disposition: "send_bye",
      other_uuid: a.uuid,
      sip_call_id: ringing.callId,
      rtp_use_codec_name: "opus",
    });
    for (const leg of [a, b]) {
      expect(leg.start_stamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(leg.answer_stamp >= leg.start_stamp).toBe(true);
      expect(leg.end_stamp >= leg.answer_stamp).toBe(true);
      expect(leg.duration).toBeGreaterThanOrEqual(leg.billsec);
    }
    expect(a.ring_stamp).not.toBe("");
  });

  it("rings every contact of the extension; the first answer wins and the others are cancelled as completed elsewhere", async () => {
    const alice = await f.phone("1001", 440);
    const desk = await f.phone("1002", 1000);
    const mobile = await f.phone("1002", 700);
    const call = alice.call("1002");
    const onDesk = await desk.incoming();
    const onMobile = await mobile.incoming();
    await onMobile.answer();
    await onDesk.waitEnded();
    expect(onDesk.endedBy).toBe("cancel");
    expect(onDesk.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    await call.waitHears(700, "alice hears the phone that answered");
    expect(call.silentOn(1000)).toBe(true);
    await call.hangup();
  });

  it("cancels the callee when the caller hangs up while it rings (ORIGINATOR_CANCEL)", async () => {
    const alice = await f.phone("1001", 440);
    const bob = await f.phone("1002", 1000);
    const call = alice.call("1002");
    const ringing = await bob.incoming();
    await call.hangup();
    await ringing.waitEnded();
    expect(ringing.endedBy).toBe("cancel");
    expect(ringing.endReason).toBe('SIP;cause=487;text="ORIGINATOR_CANCEL"');
    const { a, b } = await f.legsOfCall(call.callId);
    expect(a.hangup_cause).toBe("ORIGINATOR_CANCEL");
    expect(a.sip_hangup_disposition).toBe("recv_cancel");
    expect(b.hangup_cause).toBe("ORIGINATOR_CANCEL");
    expect(b.sip_hangup_disposition).toBe("send_cancel");
    expect(b.billsec).toBe(0);
  });
});

describe("failures map to the spec's hang-up causes", () => {
  const cases = [
    { reject: 486, status: 486, cause: "USER_BUSY" },
    { reject: 603, status: 603, cause: "CALL_REJECTED" },
    // FreeSWITCH answers a caller NO_USER_RESPONSE with 408 (hangup_cause_to_sip).
    { reject: 480, status: 408, cause: "NO_USER_RESPONSE" },
  ] as const;
  for (const c of cases) {
    it(`a callee answering ${c.reject} gives the caller ${c.status} and ${c.cause}`, async () => {
      const alice = await f.phone("1001", 440);
      const bob = await f.phone("1002", 1000);
      bob.incomingPolicy = { reject: c.reject };
      const call = alice.call("1002");
      await call.waitEnded();
      expect(call.finalStatus).toBe(c.status);
      const { a, b } = await f.legsOfCall(call.callId);
      expect(b.hangup_cause).toBe(c.cause);
      expect(b.sip_hangup_disposition).toBe("recv_refuse");
      expect(b.xui_hangup_cause).toBe(`sip:${c.reject}`);
      expect(a.hangup_cause).toBe(c.cause);
      expect(a.sip_hangup_disposition).toBe("send_refuse");
    });
  }

  it("a phone that never answers gives NO_ANSWER after the extension's ring time", async () => {
    f.platform.db.prepare("UPDATE extensions SET timeout = 1 WHERE extn = '1003'").run();
    try {
      const alice = await f.phone("1001", 440);
      const carol = await f.phone("1003", 1000);
      const call = alice.call("1003");
      const ringing = await carol.incoming();
      await call.waitEnded();
      expect(call.finalStatus).toBe(480);
      await ringing.waitEnded();
      expect(ringing.endReason).toBe('Q.850;cause=19;text="NO_ANSWER"');
      const { a, b } = await f.legsOfCall(call.callId);
      expect(b.hangup_cause).toBe("NO_ANSWER");
      expect(a.hangup_cause).toBe("NO_ANSWER");
    } finally {
      f.platform.db.prepare("UPDATE extensions SET timeout = 60 WHERE extn = '1003'").run();
    }
  });

  it("an extension with no registered phone gives 480 and USER_NOT_REGISTERED", async () => {
    const alice = await f.phone("1001", 440);
    const call = alice.call("1004");
    await call.waitEnded();
    expect(call.finalStatus).toBe(480);
    const { a, b } = await f.legsOfCall(call.callId);
    expect(b.hangup_cause).toBe("USER_NOT_REGISTERED");
    expect(a.hangup_cause).toBe("USER_NOT_REGISTERED");
  });

  it("a number that goes nowhere gives 404 and UNALLOCATED_NUMBER", async () => {
    const alice = await f.phone("1001", 440);
    const call = alice.call("123");
    await call.waitEnded();
    expect(call.finalStatus).toBe(404);
    let row: { hangup_cause: string } | undefined;
    await until("the caller's record is written", () => {
      row = f.platform.db.prepare("SELECT hangup_cause FROM cdrs WHERE sip_call_id = ?").get(call.callId) as typeof row;
      return row !== undefined;
    });
    expect(row!.hangup_cause).toBe("UNALLOCATED_NUMBER");
  });
});

describe("numbers the platform answers itself", () => {
  it("echoes the caller on 9196", async () => {
    const alice = await f.phone("1001", 523);
    const call = alice.call("9196");
    await call.waitState(SessionState.Established);
    await call.waitHears(523, "alice hears herself");
    await call.hangup();
  });

  it("plays music on hold on 9664", async () => {
    const alice = await f.phone("1001", 440);
    const call = alice.call("9664");
    await call.waitState(SessionState.Established);
    await until("alice hears hold music", () => recognizesHoldMusic(call.ears!.recent(2500)));
    await call.hangup();
  });
});
