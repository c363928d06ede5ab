import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../api/cdrs";
import type { SupervisorLogEntry } from "./action-log";
import { supervisionLegOf } from "./supervision-legs";

const at = (s: number) => Date.UTC(2026, 10, 25, 9, 0, s);

/** The supervisor's leg: the platform shows the agent (1001) as its caller. */
const leg: CallRecord = {
  uuid: "leg-7",
  bLegUuid: "",
  callerName: "Alice Agent",
  callerNumber: "1001",
  destination: "1010",
  direction: "outbound",
  startedAt: at(0),
  answeredAt: at(0),
  endedAt: at(60),
  duration: 60,
  billsec: 60,
  hangupCause: "NORMAL_CLEARING",
  recordingId: null,
  sipCallId: "x@y",
  otherUuid: "",
  cc: {},
};

const entry = (
  command: SupervisorLogEntry["command"],
  s: number,
  extra: Partial<SupervisorLogEntry> = {},
): SupervisorLogEntry => ({
  at: at(s),
  by: "supervisor",
  agent: "1001",
  agentName: "Alice Agent",
  command,
  detail: "5550100",
  outcome: "done",
  ...extra,
});

describe("supervision legs in the call history", () => {
  it("are what the record says (cc_side), with the modes the action log adds for the same leg, in order", () => {
    const log = [
      entry("intercept", 40, { leg: "leg-7" }),
      entry("whisper", 20, { leg: "leg-7" }),
      entry("monitor", 1, { leg: "leg-7" }),
      entry("barge", 30, { leg: "leg-other" }),
    ];
    expect(supervisionLegOf({ ...leg, ccSide: "monitor", ccTargetAgent: "1001" }, log)).toEqual({
      modes: ["monitor", "whisper", "intercept"],
      agent: "1001",
      agentName: "Alice Agent",
    });
    expect(supervisionLegOf({ ...leg, ccSide: "three-way", ccTargetAgent: "1001" }, [])).toEqual({
      modes: ["barge"],
      agent: "1001",
      agentName: "Alice Agent",
    });
  });

  it("on a platform whose records cannot tell, come from the log: entries within the leg's time naming its caller", () => {
    const log = [
      entry("monitor", 1),
      entry("whisper", 10),
      entry("stop", 59),
      entry("monitor", 90),
      entry("barge", 20, { agent: "1002" }),
      entry("whisper", 30, { outcome: "failed" }),
    ];
    expect(supervisionLegOf(leg, log)).toEqual({
      modes: ["monitor", "whisper"],
      agent: "1001",
      agentName: "Alice Agent",
    });
  });

  it("leave plain calls plain", () => {
    expect(supervisionLegOf({ ...leg, ccSide: "agent" }, [entry("monitor", 120)])).toBeNull();
    expect(supervisionLegOf({ ...leg, callerNumber: "5550100" }, [entry("monitor", 1)])).toBeNull();
  });
});
