import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../session";
import { createPlatformClock } from "../platform-clock";
import { breachesOf, createAlerts, DEFAULT_THRESHOLDS, ThresholdStorage, type QueueThresholds } from "./alerts";
import { QueueDay } from "./queue-day";
import { wallboardAgent } from "./testing/agent-records";
import { applyMembers, emptyWallboard, WallboardDraft, type WallboardAgent } from "./wallboard";

const NOW = new Date(2031, 4, 6, 10, 0).getTime();

const agent = (number: string, o: Partial<WallboardAgent> = {}) => wallboardAgent(number, { statusSince: NOW, ...o });

function board(agents: WallboardAgent[], waiting: { uuid: string; joinedAt: number }[]) {
  const d = new WallboardDraft(emptyWallboard(NOW));
  for (const a of agents) d.setAgent(a);
  applyMembers(d, "support", waiting);
  return d.finish();
}

describe("thresholds and alerts", () => {
  it("finds each breach: service level, longest wait, callers waiting, no agent ready, an agent too long on break or in a call", () => {
    const day = new QueueDay(NOW - 10 * 3600_000);
    day.addEvent(
      {
        "CC-Action": "member-queue-start",
        "CC-Member-Session-UUID": "c1",
        "CC-Member-Joined-Time": String((NOW - 100_000) / 1000),
      },
      0,
    );
    day.addEvent(
      {
        "CC-Action": "bridge-agent-start",
        "CC-Member-Session-UUID": "c1",
        "CC-Agent-Answered-Time": String((NOW - 40_000) / 1000),
      },
      0,
    );
    const b = board(
      [
        agent("1001", { status: "On Break", kind: "break", reason: "Lunch", statusSince: NOW - 45 * 60_000 }),
        agent("1002", {
          status: "On Break",
          kind: "break",
          call: {
            uuid: "l",
            number: "555",
            name: "",
            queue: "support",
            answeredAt: NOW - 25 * 60_000,
            kind: "queue",
            member: "m",
          },
        }),
      ],
      Array.from({ length: 6 }, (_, i) => ({ uuid: `w${i}`, joinedAt: NOW - (90 - i) * 1000 })),
    );
    const found = breachesOf(
      b,
      () => DEFAULT_THRESHOLDS,
      () => day,
      createPlatformClock(),
      NOW,
    );
    expect(found.map((x) => `${x.id} ${x.value}/${x.limit}`)).toEqual([
      "service-level:support 0/80",
      "longest-wait:support 90/60",
      "waiting:support 6/5",
      "no-agent-ready:support 6/0",
      "agent-break:1001 45/30",
      "agent-call:1002 25/20",
    ]);
    // A limit left empty raises nothing.
    const none: QueueThresholds = {
      serviceLevelSeconds: 20,
      serviceLevelTarget: null,
      longestWaitSeconds: null,
      waitingMax: null,
      noAgentReady: false,
      breakMinutes: null,
      wrapUpSeconds: null,
      callMinutes: null,
    };
    expect(
      breachesOf(
        b,
        () => none,
        () => day,
        createPlatformClock(),
        NOW,
      ),
    ).toEqual([]);
  });

  it("raises a breach once, keeps it while it lasts and clears it when it ends; the same breach later is raised anew", () => {
    const alerts = createAlerts();
    const breach = { id: "waiting:support", kind: "waiting" as const, queue: "support", value: 6, limit: 5 };
    alerts.update([breach], NOW);
    expect(alerts.store.getState()).toMatchObject({ raised: 1, active: [{ id: breach.id, since: NOW }] });
    alerts.update([{ ...breach, value: 7 }], NOW + 1000);
    expect(alerts.store.getState()).toMatchObject({ raised: 1, active: [{ value: 7, since: NOW }] });
    alerts.update([], NOW + 2000);
    expect(alerts.store.getState()).toMatchObject({ raised: 1, active: [] });
    alerts.update([breach], NOW + 3000);
    expect(alerts.store.getState()).toMatchObject({ raised: 2, active: [{ since: NOW + 3000 }] });
  });

  it("keeps the breaches on through a reload: one still on is neither raised again nor dated anew; one that ended since, another user's or one seen again only a minute on is new", () => {
    const tab = memoryStorage();
    const sam = "sam@https://pbx";
    const waiting = { id: "waiting:support", kind: "waiting" as const, queue: "support", value: 6, limit: 5 };
    const level = {
      id: "service-level:support",
      kind: "service-level" as const,
      queue: "support",
      value: 67,
      limit: 80,
    };
    const open = createAlerts(tab);
    open.update([waiting, level], NOW, sam);
    expect(open.store.getState()).toMatchObject({ raised: 1 });
    // The reload: the board's figures come back over a few seconds.
    const reloaded = createAlerts(tab);
    reloaded.update([], NOW + 2000, sam);
    reloaded.update([waiting], NOW + 3000, sam);
    reloaded.update([waiting, level], NOW + 5000, sam);
    expect(reloaded.store.getState()).toMatchObject({
      raised: 0,
      active: [
        { id: waiting.id, since: NOW },
        { id: level.id, since: NOW },
      ],
    });
    // Ended, then on again: a new breach.
    reloaded.update([level], NOW + 6000, sam);
    reloaded.update([waiting, level], NOW + 7000, sam);
    expect(reloaded.store.getState()).toMatchObject({
      raised: 1,
      lastRaised: [{ id: waiting.id }],
      active: [{ since: NOW + 7000 }, { since: NOW }],
    });
    // Another user in the same tab has breaches of its own.
    const other = createAlerts(tab);
    other.update([waiting], NOW + 8000, "ada@https://pbx");
    expect(other.store.getState()).toMatchObject({ raised: 1, active: [{ since: NOW + 8000 }] });
    // A breach that is there again only after the reload's first minute began anew.
    const late = createAlerts(tab);
    late.update([], NOW + 8000, sam);
    late.update([waiting], NOW + 69_000, sam);
    expect(late.store.getState()).toMatchObject({ raised: 1, active: [{ since: NOW + 69_000 }] });
  });

  it("keeps each queue's thresholds per supervisor and platform, and reads back only sound values", () => {
    const storage = memoryStorage();
    const mine = new ThresholdStorage(storage, "sam@https://pbx");
    mine.set("support", { ...DEFAULT_THRESHOLDS, waitingMax: 2, breakMinutes: null });
    expect(new ThresholdStorage(storage, "sam@https://pbx").of("support")).toMatchObject({
      waitingMax: 2,
      breakMinutes: null,
    });
    expect(new ThresholdStorage(storage, "sam@https://pbx").of("sales")).toEqual(DEFAULT_THRESHOLDS);
    expect(new ThresholdStorage(storage, "ada@https://pbx").of("support")).toEqual(DEFAULT_THRESHOLDS);
    storage.setItem(
      "agentbar.thresholds.x",
      JSON.stringify({ support: { waitingMax: -3, serviceLevelTarget: "high" } }),
    );
    expect(new ThresholdStorage(storage, "x").of("support")).toMatchObject({
      waitingMax: DEFAULT_THRESHOLDS.waitingMax,
      serviceLevelTarget: DEFAULT_THRESHOLDS.serviceLevelTarget,
    });
  });
});
