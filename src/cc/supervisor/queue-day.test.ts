import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../api/cdrs";
import { INTERVAL_MS, QueueDay } from "./queue-day";

const MIDNIGHT = new Date(2031, 4, 6).getTime();
const at = (h: number, m: number, s = 0) => MIDNIGHT + ((h * 60 + m) * 60 + s) * 1000;

const leg = (o: Partial<CallRecord> & Pick<CallRecord, "uuid">): CallRecord => ({
  bLegUuid: "",
  callerName: "",
  callerNumber: "",
  destination: "",
  direction: "inbound",
  startedAt: null,
  answeredAt: null,
  endedAt: null,
  duration: 0,
  billsec: 0,
  hangupCause: "NORMAL_CLEARING",
  recordingId: null,
  sipCallId: "",
  otherUuid: "",
  cc: {},
  ...o,
});

/** The legs of a queue's day as the spec's records show them: no call-center variables. */
function specRecords(): CallRecord[][] {
  return [
    // Page 1 (newest first): an abandoned caller, and a caller whose agent's leg is on page 2.
    [
      leg({ uuid: "c3", startedAt: at(9, 40), endedAt: at(9, 41) }),
      leg({ uuid: "c2", startedAt: at(9, 20), answeredAt: at(9, 20), endedAt: at(9, 30), otherUuid: "a2" }),
    ],
    [
      leg({
        uuid: "a2",
        direction: "outbound",
        destination: "1002",
        startedAt: at(9, 20, 5),
        answeredAt: at(9, 20, 50),
        endedAt: at(9, 30),
        otherUuid: "c2",
      }),
      leg({ uuid: "c1", startedAt: at(9, 0), answeredAt: at(9, 0), endedAt: at(9, 5), otherUuid: "a1" }),
      leg({
        uuid: "a1",
        direction: "outbound",
        destination: "1001",
        startedAt: at(9, 0, 2),
        answeredAt: at(9, 0, 10),
        endedAt: at(9, 5),
        otherUuid: "c1",
      }),
    ],
  ];
}

describe("a queue's day", () => {
  it("counts the spec's records by their legs: answered callers by the agent's leg they were bridged to, even across pages", () => {
    const day = new QueueDay(MIDNIGHT);
    for (const page of specRecords()) day.addRecords(page, 0);
    day.recordsRead();
    expect(day.figures(20)).toEqual({
      offered: 3,
      answered: 2,
      abandoned: 1,
      answeredWithin: 1,
      serviceLevel: 1 / 3,
      averageSpeedOfAnswer: (10_000 + 50_000) / 2,
      averageHandleTime: (290_000 + 550_000) / 2,
    });
    expect(day.callers.get("c2")!.agent).toBe("1002");
  });

  it("reads the call center's variables where the records carry them, and counts each caller once with the live events", () => {
    const day = new QueueDay(MIDNIGHT);
    const epoch = (ms: number) => String(ms / 1000);
    day.addRecords(
      [
        leg({
          uuid: "c1",
          startedAt: at(8, 59, 50),
          endedAt: at(9, 5),
          otherUuid: "a1",
          cc: {
            cc_side: "member",
            cc_queue_joined_epoch: epoch(at(9, 0)),
            cc_queue_answered_epoch: epoch(at(9, 0, 30)),
            cc_agent: "1001",
          },
        }),
        leg({
          uuid: "c2",
          startedAt: at(9, 10),
          endedAt: at(9, 12),
          cc: { cc_side: "member", cc_queue_joined_epoch: epoch(at(9, 10)), cc_queue_canceled_epoch: epoch(at(9, 12)) },
        }),
        // Yesterday's caller (joined before midnight) is not today's.
        leg({ uuid: "c0", cc: { cc_side: "member", cc_queue_joined_epoch: epoch(MIDNIGHT - 60_000) } }),
      ],
      0,
    );
    // The live events of the same first caller change nothing; a new caller joins and is answered.
    const member = (uuid: string) => ({ "CC-Queue": "support", "CC-Member-Session-UUID": uuid });
    expect(
      day.addEvent(
        { ...member("c1"), "CC-Action": "bridge-agent-start", "CC-Agent-Answered-Time": epoch(at(9, 0, 30)) },
        at(9, 0, 30),
      ),
    ).toBe(false);
    day.addEvent({ ...member("c3"), "CC-Action": "member-queue-start", "CC-Member-Joined-Time": epoch(at(9, 20)) }, 0);
    day.addEvent(
      {
        ...member("c3"),
        "CC-Action": "bridge-agent-start",
        "CC-Agent": "support.1002",
        "CC-Agent-Answered-Time": epoch(at(9, 20, 5)),
      },
      0,
    );
    expect(day.figures(20)).toMatchObject({ offered: 3, answered: 2, abandoned: 1, answeredWithin: 1 });
    expect(day.callers.get("c3")).toMatchObject({ agent: "1002", answeredAt: at(9, 20, 5) });

    const intervals = day.intervals(20, at(9, 20));
    expect(intervals).toHaveLength(38);
    expect(intervals[36]).toMatchObject({ from: MIDNIGHT + 36 * INTERVAL_MS, offered: 2, answered: 1, abandoned: 1 });
    expect(intervals[37]).toMatchObject({ offered: 1, answered: 1, serviceLevel: 1 });
  });

  it("counts a caller an agent talks to now as answered, its wait unknown until its events or record say", () => {
    const day = new QueueDay(MIDNIGHT);
    day.addInCall("c9", "1001");
    expect(day.figures(20)).toMatchObject({ offered: 1, answered: 1, averageSpeedOfAnswer: null });
    day.addRecords(
      [leg({ uuid: "c9", startedAt: at(10, 0), answeredAt: at(10, 0), endedAt: at(10, 4), otherUuid: "a9" })],
      0,
    );
    day.addRecords(
      [leg({ uuid: "a9", direction: "outbound", destination: "1001", answeredAt: at(10, 0, 4), endedAt: at(10, 4) })],
      0,
    );
    expect(day.figures(20)).toMatchObject({ offered: 1, answered: 1, averageSpeedOfAnswer: 4_000 });
  });

  it("counts its figures again only when a caller changed, or for another threshold", () => {
    const day = new QueueDay(MIDNIGHT);
    day.addWaiting([{ key: "c1", joinedAt: at(9, 0) }]);
    const first = day.figures(20);
    expect(day.figures(20)).toBe(first);
    expect(day.figures(30)).not.toBe(first);
    day.addInCall("c1", "1001");
    expect(day.figures(30)).toMatchObject({ offered: 1, answered: 1 });
  });
});
