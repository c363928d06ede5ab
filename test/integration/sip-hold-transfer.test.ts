import { describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { recognizesHoldMusic } from "../../platform/media";
import type { Channel } from "../../platform/switch/types";
import { sipFixture } from "./sip-fixture";
import type { TestCall, TestPhone } from "./sip-phone";
import { until } from "./sip-phone";

/**
 * Hold from the phone and from the platform (uuid_hold), and transfers asked for by a phone with
 * REFER (blind, and attended with Replaces), proved by who hears whom afterwards.
 */
const f = sipFixture();

const hearsMusic = (call: TestCall) => recognizesHoldMusic(call.ears!.recent(2500));

/** alice (440 Hz) calls bob (1000 Hz), bob answers, both hear each other. */
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

function legOf(call: TestCall): Channel {
  const ch = f.ctx.switch.channels().find((c) => c.sipCallId === call.callId);
  if (!ch) throw new Error(`no channel for ${call.callId}`);
  return ch;
}

describe("hold", () => {
  it("a phone's sendonly re-INVITE holds: the partner hears music and no longer the holder; resuming restores both ways", async () => {
    const { aliceCall, bobCall } = await connected();
    const holds: boolean[] = [];
    legOf(aliceCall).on("remote-hold", (held) => holds.push(held));
    await aliceCall.hold(true);
    await until("bob hears hold music", () => hearsMusic(bobCall));
    await bobCall.waitSilentOn(440, "bob no longer hears alice");
    await aliceCall.waitSilentOn(1000, "alice no longer hears bob");

    await aliceCall.hold(false);
    await bobCall.waitHears(440, "bob hears alice again");
    await aliceCall.waitHears(1000, "alice hears bob again");
    await until("the music has stopped", () => !hearsMusic(bobCall));
    expect(holds).toEqual([true, false]);
    await aliceCall.hangup();
  });

  it("the platform's hold (uuid_hold) re-INVITEs the phone with sendonly and plays music to its partner", async () => {
    const { aliceCall, bobCall } = await connected();
    const leg = legOf(aliceCall);
    await f.ctx.switch.hold(leg);
    await until("alice's phone got a sendonly offer", () => aliceCall.remoteOffers.includes("sendonly"));
    await until("bob hears hold music", () => hearsMusic(bobCall));
    await bobCall.waitSilentOn(440);

    await f.ctx.switch.unhold(leg);
    await until("alice's phone got a sendrecv offer", () => aliceCall.remoteOffers.at(-1) === "sendrecv");
    await bobCall.waitHears(440, "bob hears alice again");
    await aliceCall.waitHears(1000, "alice hears bob again");
    await aliceCall.hangup();
  });
});

describe("transfer", () => {
  it("blind: the REFER target ends up talking to the transferee, with sipfrag NOTIFYs to the transferor", async () => {
    const { aliceCall, bobCall } = await connected();
    const carol = await f.phone("1003", 700);
    const referred = bobCall.referTo("1003");
    const carolCall = await carol.incoming();
    expect(await referred).toBe(202);
    await until("bob is told carol rings", () => bobCall.notifies.some((n) => n.startsWith("SIP/2.0 180")));
    await carolCall.answer();
    await carolCall.waitHears(440, "carol hears alice");
    await aliceCall.waitHears(700, "alice hears carol");
    await bobCall.waitEnded();
    expect(bobCall.endedBy).toBe("bye");
    expect(bobCall.notifies.map((n) => n.split("\r\n")[0])).toEqual([
      "SIP/2.0 100 Trying",
      "SIP/2.0 180 Ringing",
      "SIP/2.0 200 OK",
    ]);
    // Carol sees alice as the caller, not bob.
    expect(carolCall.header("from")).toMatch(/<sip:1001@/);
    await aliceCall.hangup();
    await carolCall.waitEnded();
  });

  it("blind to a busy number: the NOTIFY says so and the transferee is back with the transferor", async () => {
    const { aliceCall, bobCall } = await connected();
    await bobCall.referTo("55520002");
    await until("bob is told the target is busy", () => bobCall.notifies.some((n) => n.startsWith("SIP/2.0 486")));
    await aliceCall.waitHears(1000, "alice hears bob again");
    await bobCall.waitHears(440, "bob hears alice again");
    expect(bobCall.state).toBe(SessionState.Established);
    await aliceCall.hangup();
  });

  it("attended: REFER with Replaces joins the held caller and the consulted party, and ends both calls of the transferor", async () => {
    const { aliceCall, bobCall } = await connected();
    const carol = await f.phone("1003", 700);
    await bobCall.hold(true);
    await until("alice hears hold music while bob consults", () => hearsMusic(aliceCall));
    const consult = bobCall.phone.call("1003");
    const carolCall = await carol.incoming();
    await carolCall.answer();
    await consult.waitState(SessionState.Established);
    await consult.waitHears(700, "bob hears carol");

    expect(await bobCall.referToCall(consult)).toBe(202);
    await aliceCall.waitHears(700, "alice hears carol");
    await carolCall.waitHears(440, "carol hears alice");
    await bobCall.waitEnded();
    await consult.waitEnded();
    expect(bobCall.notifies.at(-1)?.split("\r\n")[0]).toBe("SIP/2.0 200 OK");
    await aliceCall.hangup();
    await carolCall.waitEnded();
  });
});
