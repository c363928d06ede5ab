import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QueueCallers } from "./queue-callers";
import type { SimulatedWorld } from "./simulated-world";
import { CallCenterFixture, settle } from "./testing/fixture";
import type { FakeChannel } from "./testing/fake-switch";

let f: CallCenterFixture;
let callers: QueueCallers;
const pressed: string[] = [];

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T09:00:00Z") });
  f = new CallCenterFixture();
  pressed.length = 0;
  // The simulated world of the fake switch: a caller is a channel routed like any call.
  const world: SimulatedWorld = {
    async call(o) {
      const ch: FakeChannel = await f.sw.dial(o.destination, { name: o.callerIdName, number: o.callerIdNumber });
      return {
        channel: ch,
        pressDtmf: (digits) => pressed.push(digits),
        hangup: () => ch.hangup("NORMAL_CLEARING"),
        heard: () => ({ tones: [], music: f.sw.hears(ch).includes("music"), dtmf: "" }),
      };
    },
  };
  callers = new QueueCallers(world);
});
afterEach(() => {
  callers.close();
  f.close();
  vi.useRealTimers();
});

describe("simulated queue callers", () => {
  it("wait with music, report the agent that answered and press their keys after the answer", async () => {
    f.ready("1001");
    const c = await callers.start({
      queue: "support",
      callerIdNumber: "5550100",
      callerIdName: "Carla",
      toneHz: 660,
      dtmf: "12",
      dtmfDelaySeconds: 2,
    });
    await settle();
    expect(callers.get(c.id)).toMatchObject({ state: "waiting", agent: "", toneHz: 660, heard: { music: true } });
    f.ringingAt("1001").remoteAnswer();
    await settle();
    expect(callers.get(c.id)).toMatchObject({
      state: "talking",
      agent: "1001",
      answeredAt: expect.stringMatching(/\d{4}-/),
    });
    expect(pressed).toEqual([]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(pressed).toEqual(["12"]);
  });

  it("give up after their patience: an abandoned member", async () => {
    const c = await callers.start({
      queue: "support",
      callerIdNumber: "5550100",
      callerIdName: "Carla",
      patienceSeconds: 30,
    });
    await vi.advanceTimersByTimeAsync(29_000);
    expect(callers.get(c.id)!.state).toBe("waiting");
    await vi.advanceTimersByTimeAsync(1000);
    expect(callers.get(c.id)).toMatchObject({ state: "abandoned", endedAt: expect.stringMatching(/\d{4}-/) });
    expect(f.take()).toContain("member-queue-end support Cancel BREAK_OUT");
  });

  it("do not give up once an agent has answered; end when hung up", async () => {
    f.ready("1001");
    const c = await callers.start({
      queue: "support",
      callerIdNumber: "5550100",
      callerIdName: "Carla",
      patienceSeconds: 5,
    });
    await settle();
    f.ringingAt("1001").remoteAnswer();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(callers.get(c.id)!.state).toBe("talking");
    expect(callers.hangup(c.id)).toMatchObject({ state: "ended" });
    expect(callers.hangup("nope")).toBeUndefined();
  });
});
