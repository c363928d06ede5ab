import { describe, expect, it } from "vitest";
import type { Call, IncomingCall } from "../softphone";
import { testCall } from "../softphone/testing/test-call";
import { CC, ccLabelsOf, decideIncomingCall, type Offering } from "./queue-calls";

const base: Call = testCall({
  id: "c1",
  remote: { number: "5550100", name: "Carla", uri: "sip:5550100@agentbar.local", withheld: false },
});

function invite(headers: Record<string, string>): IncomingCall {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    call: base,
    requestUri: "sip:1001@agentbar.local",
    header: (name) => lower[name.toLowerCase()],
    headers: (name) => (lower[name.toLowerCase()] ? [lower[name.toLowerCase()]!] : []),
    headerNames: () => Object.keys(headers),
    autoAnswer: { answer: false, reason: "no-marker" },
  };
}

const offering: Offering = {
  queue: "sales",
  memberUuid: "m7",
  customerUuid: "c7",
  cidName: "Carla",
  cidNumber: "5550100",
  joinedAt: 1_000_000,
  at: 50_000,
};

describe("labelling incoming calls", () => {
  it("reads the queue, the callID and the customer from the platform's headers", () => {
    const d = decideIncomingCall(
      invite({
        "X-CC-Action": "queue",
        "X-CC-Agent-UUID": "leg-1",
        "X-CC-Queue": "support",
        "X-CC-Member-UUID": "m1",
        "X-CC-Member-Session-UUID": "cust-1",
        "X-CC-Member-Joined": "1772442000",
      }),
      { offering: undefined, now: 0, queueAutoAnswerSec: null },
    );
    expect(d).toEqual({
      context: {
        [CC.action]: "queue",
        [CC.callId]: "leg-1",
        [CC.queue]: "support",
        [CC.memberUuid]: "m1",
        [CC.customerUuid]: "cust-1",
        [CC.joinedAt]: "1772442000000",
      },
    });
    expect(ccLabelsOf({ ...base, context: d!.context! })).toEqual({
      action: "queue",
      callId: "leg-1",
      queue: "support",
      joinedAt: 1772442000000,
    });
  });

  it("without headers, takes the queue from the agent-offering event just before, for the same caller", () => {
    expect(decideIncomingCall(invite({}), { offering, now: 55_000, queueAutoAnswerSec: null })?.context).toEqual({
      [CC.action]: "queue",
      [CC.queue]: "sales",
      [CC.memberUuid]: "m7",
      [CC.customerUuid]: "c7",
      [CC.joinedAt]: "1000000",
    });
    // Too old, or another caller: a call of the phone alone.
    expect(decideIncomingCall(invite({}), { offering, now: 61_000, queueAutoAnswerSec: null })).toBeUndefined();
    expect(
      decideIncomingCall(invite({}), {
        offering: { ...offering, cidNumber: "5550199" },
        now: 55_000,
        queueAutoAnswerSec: null,
      }),
    ).toBeUndefined();
  });

  it("answers queue offers by themselves only when the agent asked for it", () => {
    const queue = invite({ "X-CC-Action": "queue", "X-CC-Queue": "support" });
    expect(decideIncomingCall(queue, { offering: undefined, now: 0, queueAutoAnswerSec: 2 })?.autoAnswer).toEqual({
      afterSec: 2,
    });
    expect(
      decideIncomingCall(queue, { offering: undefined, now: 0, queueAutoAnswerSec: null })?.autoAnswer,
    ).toBeUndefined();
    // A consultation is a colleague calling: it rings.
    expect(
      decideIncomingCall(invite({ "X-CC-Action": "consult" }), { offering: undefined, now: 0, queueAutoAnswerSec: 0 })
        ?.autoAnswer,
    ).toBeUndefined();
  });
});
