import { describe, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { recognizesHoldMusic } from "../../platform/media";
import type { SimChannel } from "../../platform/sim/sim-channel";
import type { Channel, HangupCause } from "../../platform/switch/types";
import { sipFixture } from "./sip-fixture";
import type { TestCall, TestPhone } from "./sip-phone";
import { until } from "./sip-phone";

/**
 * The switch's primitives used the way the call-center engine uses them (as mod_callcenter uses
 * FreeSWITCH): a route claims a queue, the customer waits with music, an agent leg is originated
 * with auto-answer and X- headers and bridged; then hold, eavesdrop (monitor, whisper, barge),
 * intercept, transfer through the dialplan and park-after-bridge.
 *
 * Tones: customer 660 Hz (simulated), agent 1001 440 Hz, agent 1002 1000 Hz, supervisor 1010 1300 Hz.
 */
const f = sipFixture();
const sw = () => f.ctx.switch;

function customer(uuid: string): SimChannel {
  const ch = f.ctx.sim.get(uuid);
  if (!ch) throw new Error("no simulated customer");
  return ch;
}
const customerHears = (uuid: string, hz: number) => customer(uuid).hearing.some((h) => Math.abs(h - hz) < 8);

/** A customer calls a queue of this test (not one of the call center's, which it claims first); the route answers and plays music; resolves the customer's channel. */
async function customerInQueue(queue: string): Promise<Channel> {
  const entered: Channel[] = [];
  sw().addRoute(
    (d) => d === queue,
    async (caller) => {
      await caller.answer();
      sw().playMusic(caller);
      entered.push(caller);
    },
  );
  await f.sim("POST", "/sim/calls", {
    destination: queue,
    callerIdNumber: "+15550001111",
    callerIdName: "Jane Customer",
    frequency: 660,
  });
  await until("the customer is in the queue", () => entered.length === 1);
  return entered[0]!;
}

/** Originates an auto-answered agent leg to `extension` with the customer as caller id. */
async function agentLeg(
  extension: string,
  phone: TestPhone,
  member: Channel,
  queue: string,
): Promise<{ leg: Channel; call: TestCall }> {
  phone.incomingPolicy = "answer";
  const leg = sw().originate(
    { extension },
    {
      callerIdName: member.callerIdName,
      callerIdNumber: member.callerIdNumber,
      autoAnswer: true,
      headers: [`X-CC-Queue: ${queue}`, `X-CC-Member-UUID: ${member.uuid}`],
      variables: { cc_queue: queue, cc_side: "agent" },
    },
  );
  await new Promise<void>((resolve, reject) => {
    leg.once("answer", () => resolve());
    leg.once("hangup", (cause) => reject(new Error(`agent leg failed: ${cause}`)));
  });
  return { leg, call: await phone.incoming() };
}

describe("a queue call, the way the call-center engine makes it", () => {
  it("originates an auto-answered agent leg with X- headers and the customer's caller id, and bridges it", async () => {
    const agent = await f.phone("1001", 440);
    const events: string[] = [];
    const log = (name: string) => (ch: Channel) => events.push(`${name}:${ch.destinationNumber}`);
    sw().on("channel-create", log("create")).on("channel-answer", log("answer"));
    const member = await customerInQueue("switch-queue");
    await until("the waiting customer hears hold music", () => customer(member.uuid).hearsMusic);

    const { leg, call } = await agentLeg("1001", agent, member, "switch-queue");
    expect(call.header("call-info")).toBe("<sip:agentbar.local>;answer-after=0");
    expect(call.requestUri).toContain(";intercom=true");
    expect(call.header("x-cc-queue")).toBe("switch-queue");
    expect(call.header("x-cc-member-uuid")).toBe(member.uuid);
    expect(call.header("from")).toMatch(/^"Jane Customer" <sip:\+15550001111@/);
    expect(leg.variables.get("cc_queue")).toBe("switch-queue");

    sw().bridge(member, leg);
    expect(sw().partnerOf(member)).toBe(leg);
    await call.waitHears(660, "the agent hears the customer");
    await until("the customer hears the agent", () => customerHears(member.uuid, 440));
    expect(events).toEqual(
      expect.arrayContaining(["create:switch-queue", "create:1001", "answer:switch-queue", "answer:1001"]),
    );

    // ccHold on the agent's leg: the phone is told (sendonly), the customer hears music.
    await sw().hold(leg);
    await until("the agent's phone got sendonly", () => call.remoteOffers.includes("sendonly"));
    await until("the customer no longer hears the agent", () => !customerHears(member.uuid, 440));
    await sw().unhold(leg);
    await until("the customer hears the agent again", () => customerHears(member.uuid, 440));

    await call.hangup();
    await until("the customer's call ends with the agent's", () => member.state === "hungup");
    const cdr = await f.cdr(leg.uuid);
    expect(cdr.variables).toMatchObject({ cc_queue: "switch-queue", cc_side: "agent" });
    expect(cdr.other_uuid).toBe(member.uuid);
  });
});

describe("routes", () => {
  it("a phone calling a destination claimed with addRoute is answered by the route's handler", async () => {
    const caller = await f.phone("1002", 1000);
    const seen: string[] = [];
    sw().addRoute(
      (d) => d === "sales-line",
      async (ch, d) => {
        seen.push(`${ch.callerIdNumber} ${ch.kind} ${d}`);
        await ch.answer();
        sw().playMusic(ch);
      },
    );
    const call = caller.call("sales-line");
    await call.waitState(SessionState.Established);
    await until("the caller hears hold music", () => recognizesHoldMusic(call.ears!.recent(2500)));
    expect(seen).toEqual(["1002 sip sales-line"]);
    await call.hangup();
  });
});

describe("supervision", () => {
  it("listen, whisper and three-way decide who hears the supervisor", async () => {
    const agent = await f.phone("1001", 440);
    const supervisor = await f.phone("1010", 1300);
    const member = await customerInQueue("sales-listen");
    const { leg, call } = await agentLeg("1001", agent, member, "sales-listen");
    sw().bridge(member, leg);
    await call.waitHears(660);

    supervisor.incomingPolicy = "answer";
    const monitor = sw().originate(
      { extension: "1010" },
      { callerIdName: "Monitor", callerIdNumber: "1001", autoAnswer: true },
    );
    await new Promise<void>((resolve) => monitor.once("answer", () => resolve()));
    const supCall = await supervisor.incoming();

    sw().eavesdrop(monitor, leg, "monitor");
    await supCall.waitHears(660, "the supervisor hears the customer");
    await supCall.waitHears(440, "the supervisor hears the agent");
    await call.waitSilentOn(1300, "the agent does not hear a listening supervisor");
    expect(customerHears(member.uuid, 1300)).toBe(false);

    sw().eavesdrop(monitor, leg, "whisper");
    await call.waitHears(1300, "the agent hears the whispering supervisor");
    await until(
      "the customer does not hear the whisper",
      () => !customerHears(member.uuid, 1300) && customerHears(member.uuid, 440),
    );

    sw().eavesdrop(monitor, leg, "barge");
    await until("the customer hears the supervisor barging in", () => customerHears(member.uuid, 1300));
    await call.waitHears(1300);

    // The agent leaves: the supervisor's listening leg goes with the call it listened to.
    await call.hangup();
    await supCall.waitEnded();
  });

  it("intercept: the supervisor takes the customer and the agent gets a BYE as completed elsewhere", async () => {
    const agent = await f.phone("1001", 440);
    const supervisor = await f.phone("1010", 1300);
    const member = await customerInQueue("intercept-q");
    const { leg, call } = await agentLeg("1001", agent, member, "intercept-q");
    sw().bridge(member, leg);
    supervisor.incomingPolicy = "answer";
    const sup = sw().originate(
      { extension: "1010" },
      { callerIdName: "Intercept", callerIdNumber: "1001", autoAnswer: true },
    );
    await new Promise<void>((resolve) => sup.once("answer", () => resolve()));
    const supCall = await supervisor.incoming();

    // FreeSWITCH's intercept: unbridge, bridge the interceptor, hang up the old partner PICKED_OFF.
    sw().unbridge(member);
    sw().bridge(sup, member);
    leg.hangup("PICKED_OFF");
    await call.waitEnded();
    expect(call.endedBy).toBe("bye");
    expect(call.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    await supCall.waitHears(660, "the supervisor hears the customer");
    await until("the customer hears the supervisor", () => customerHears(member.uuid, 1300));
    expect(member.state).toBe("answered");
    expect((await f.cdr(leg.uuid)).hangup_cause).toBe("PICKED_OFF");
    await supCall.hangup();
  });

  it("uuid_phone_event: a ringing phone is sent NOTIFY Event: talk in its early dialog", async () => {
    const agent = await f.phone("1002", 1000);
    const leg = sw().originate({ extension: "1002" }, { callerIdName: "Queue", callerIdNumber: "5550100" });
    await new Promise<void>((resolve) => leg.once("progress", () => resolve()));
    const ringing = await agent.incoming();
    expect(f.ctx.switch.phoneEvent?.(leg, "talk")).toBe(true);
    await until("the phone received NOTIFY Event: talk", () =>
      agent.wire.some((m) => m.startsWith("NOTIFY ") && /\r\nEvent: talk\r\n/i.test(m) && m.includes(ringing.callId)),
    );
    leg.hangup("ORIGINATOR_CANCEL");
    await ringing.waitEnded();
  });

  it("a ringing leg hung up as PICKED_OFF gets CANCEL as completed elsewhere", async () => {
    const agent = await f.phone("1002", 1000);
    const leg = sw().originate({ extension: "1002" }, { callerIdName: "Queue", callerIdNumber: "5550100" });
    const ringing = await agent.incoming();
    const causes: HangupCause[] = [];
    leg.on("hangup", (c) => causes.push(c));
    leg.hangup("PICKED_OFF");
    await ringing.waitEnded();
    expect(ringing.endedBy).toBe("cancel");
    expect(ringing.endReason).toBe('SIP;cause=200;text="Call completed elsewhere"');
    expect(causes).toEqual(["PICKED_OFF"]);
  });
});

describe("transfers and parking", () => {
  it("transfer through the dialplan: the agent leg is hung up and the customer rings the new destination", async () => {
    const agent = await f.phone("1001", 440);
    const other = await f.phone("1002", 1000);
    const member = await customerInQueue("transfer-q");
    const { leg, call } = await agentLeg("1001", agent, member, "transfer-q");
    sw().bridge(member, leg);
    await call.waitHears(660);

    sw().transfer(member, "1002");
    await call.waitEnded();
    expect(call.endedBy).toBe("bye");
    const ringing = await other.incoming();
    expect(ringing.header("from")).toMatch(/<sip:\+15550001111@/);
    await until("the customer hears ringback while 1002 rings", () => customerHears(member.uuid, 450));
    await ringing.answer();
    await ringing.waitHears(660, "1002 hears the customer");
    await until("the customer hears 1002", () => customerHears(member.uuid, 1000));
    expect(member.variables.get("transfer_destination")).toBe("blind:1002");
    await ringing.hangup();
  });

  it("a parked channel stays up when its partner hangs up", async () => {
    const agent = await f.phone("1001", 440);
    const member = await customerInQueue("park-q");
    const { leg, call } = await agentLeg("1001", agent, member, "park-q");
    sw().bridge(member, leg, { parkAfterBridge: "a" });
    await call.waitHears(660);
    await call.hangup();
    await until("the agent leg has ended", () => leg.state === "hungup");
    expect(member.state).toBe("answered");
    expect(sw().partnerOf(member)).toBeUndefined();
    // Parked: the engine can give it music (or another agent) now.
    sw().playMusic(member);
    member.hangup("NORMAL_CLEARING");
    expect((await f.cdr(member.uuid)).hangup_cause).toBe("NORMAL_CLEARING");
  });

  it("sendDtmf plays digits to the far end of a leg", async () => {
    const agent = await f.phone("1001", 440);
    const member = await customerInQueue("dtmf-q");
    const { leg, call } = await agentLeg("1001", agent, member, "dtmf-q");
    sw().bridge(member, leg);
    // Digits played before the leg's audio flows would be lost on the way, not misplayed.
    await until("the agent's phone hears the customer", () => call.hears(660));
    leg.sendDtmf("42");
    await until("the agent's phone hears 4 and 2", () => call.dtmfEars!.digits === "42");
    // Only the leg it was played to hears it.
    expect(customer(member.uuid).report().digits.inband).toBe("");
    await call.hangup();
  });
});
