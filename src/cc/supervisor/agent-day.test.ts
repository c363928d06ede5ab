import { describe, expect, it } from "vitest";
import { AgentDays } from "./agent-day";
import { wallboardAgent } from "./testing/agent-records";
import type { WallboardAgent } from "./wallboard";

const MIDNIGHT = new Date(2026, 10, 28).getTime();
const row = (o: Partial<WallboardAgent> = {}) => wallboardAgent("1001", { name: "Alice", noAnswerCount: null, ...o });
const onBreak = (reason: string) => row({ status: "On Break", kind: "break", reason });
const inCall = row({
  call: { uuid: "c1", number: "5550100", name: "", queue: "support", answeredAt: 1, kind: "queue", member: "" },
});

describe("an agent's day on the board", () => {
  it("keeps a status timeline from the start of the first status seen, and the time in each status and the occupancy up to now", () => {
    const days = new AgentDays(MIDNIGHT);
    const t = MIDNIGHT + 9 * 3_600_000;
    days.note(row(), t, t - 60_000);
    // Its state alone changed: the same segment.
    days.note(row({ state: "Idle" }), t + 10_000, t - 60_000);
    days.note(inCall, t + 60_000, t - 60_000);
    days.note(row(), t + 180_000, t + 180_000);
    days.note(onBreak("lunch"), t + 240_000, t + 240_000);
    const view = days.view("1001", t + 300_000)!;
    expect(view.knownSince).toBe(t - 60_000);
    expect(view.segments.map((s) => [s.from - t, s.status, s.reason, s.busy])).toEqual([
      [-60_000, "Available", "", false],
      [60_000, "Available", "", true],
      [180_000, "Available", "", false],
      [240_000, "On Break", "lunch", false],
    ]);
    expect(Object.fromEntries(view.timePerStatus)).toEqual({ Available: 300_000, "On Break · lunch": 60_000 });
    // 120 s in a call of 300 s signed in and not on break.
    expect(view.occupancy).toBeCloseTo(120 / 300);
    expect(days.view("1002", t)).toBeNull();
  });

  it("shows the calls of the day's records in the first status, begun before the board saw the agent, in the timeline and the occupancy", () => {
    const days = new AgentDays(MIDNIGHT);
    const t = MIDNIGHT + 9 * 3_600_000;
    const min = 60_000;
    // Seen at t, Available since 10 minutes before; the records tell two calls it took meanwhile
    // (an agent in a call stays Available), one of yesterday's end and one of another agent's.
    days.note(row(), t, t - 10 * min);
    const calls = [
      { from: t - 8 * min, to: t - 6 * min },
      { from: t - 4 * min, to: t - 3 * min },
      { from: MIDNIGHT - 5 * min, to: MIDNIGHT - min },
    ];
    days.note(onBreak("lunch"), t + min, t + min);
    const view = days.view("1001", t + 2 * min, calls)!;
    expect(view.knownSince).toBe(t - 10 * min);
    expect(view.segments.map((s) => [(s.from - t) / min, s.status, s.busy])).toEqual([
      [-10, "Available", false],
      [-8, "Available", true],
      [-6, "Available", false],
      [-4, "Available", true],
      [-3, "Available", false],
      [1, "On Break", false],
    ]);
    expect(Object.fromEntries(view.timePerStatus)).toEqual({ Available: 11 * min, "On Break · lunch": min });
    // 3 minutes in calls of 11 signed in and not on break; the records alone did not count (0).
    expect(view.occupancy).toBeCloseTo(3 / 11);
    expect(days.view("1001", t + 2 * min)!.occupancy).toBe(0);
    // What the board saw itself is not cut: a call the records tell after the first sight is the board's to show.
    expect(days.view("1001", t + 2 * min, [{ from: t + 10_000, to: t + 20_000 }])!.segments).toHaveLength(2);
  });

  it("folds the oldest segments into the totals beyond 400, whatever the day's length, and starts again at a new day", () => {
    const days = new AgentDays(MIDNIGHT);
    const t = MIDNIGHT + 3_600_000;
    const reasons = ["lunch", "training", "meeting"];
    let expected = { ready: 0, lunch: 0, training: 0, meeting: 0 };
    for (let i = 0; i < 1000; i++) {
      const at = t + i * 30_000;
      days.note(i % 2 ? onBreak(reasons[i % 3]!) : row(), at, at);
      const key = i % 2 ? (reasons[i % 3] as "lunch") : "ready";
      expected = { ...expected, [key]: expected[key] + 30_000 };
    }
    const now = t + 1000 * 30_000;
    const view = days.view("1001", now)!;
    expect(view.segments).toHaveLength(400);
    expect(view.segments[0]!.from).toBe(t + 600 * 30_000);
    expect(Object.fromEntries(view.timePerStatus)).toEqual({
      Available: expected.ready,
      "On Break · lunch": expected.lunch,
      "On Break · training": expected.training,
      "On Break · meeting": expected.meeting,
    });
    expect(view.occupancy).toBe(0);
    const tomorrow = MIDNIGHT + 24 * 3_600_000;
    days.reset(tomorrow);
    const next = days.view("1001", tomorrow + 1_000)!;
    expect(next.segments).toEqual([
      { from: tomorrow, kind: "break", status: "On Break", reason: "lunch", busy: false },
    ]);
    expect(Object.fromEntries(next.timePerStatus)).toEqual({ "On Break · lunch": 1_000 });
  });
});
