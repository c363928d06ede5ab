import { describe, expect, it } from "vitest";
import { testCall } from "../softphone/testing/test-call";
import { activityOf } from "./agent-activity";
import type { WrapUp } from "./agent-state";
import { CC } from "./queue-calls";

const idle = { wrapUp: null, dialling: null };
const labelled = (action: string, state: "ringing" | "active" | "ended") =>
  testCall({ id: action, state, context: { [CC.action]: action, [CC.callId]: `leg-${action}` } });

describe("what the agent is doing, whatever the platform's status", () => {
  it("names the call: a queue call offered, then talking; the agent's own call out; a call of the phone alone", () => {
    expect(activityOf(idle, [])).toBeNull();
    expect(activityOf(idle, [labelled("queue", "ringing")])).toBe("offered");
    expect(activityOf(idle, [labelled("queue", "active")])).toBe("queue-call");
    // A customer handed over by a colleague is a queue call too.
    expect(activityOf(idle, [labelled("transfer", "active")])).toBe("queue-call");
    // A click-to-dial is outbound from before the phone rings (the platform calls the phone first).
    expect(activityOf({ ...idle, dialling: { number: "555", callId: "", at: 0, failed: null } }, [])).toBe(
      "outbound-call",
    );
    expect(activityOf(idle, [labelled("dial", "ringing")])).toBe("outbound-call");
    expect(activityOf(idle, [testCall({ state: "active" })])).toBe("call");
    expect(activityOf(idle, [labelled("queue", "ended")])).toBeNull();
  });

  it("after-call work once the call is over, until Done; a call answered meanwhile comes first", () => {
    const wrapUp = { id: "leg-1" } as WrapUp;
    expect(activityOf({ ...idle, wrapUp }, [labelled("queue", "ended")])).toBe("after-call-work");
    expect(activityOf({ ...idle, wrapUp }, [testCall({ state: "active" })])).toBe("call");
  });
});
