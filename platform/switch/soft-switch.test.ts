import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { CdrStore } from "../cdr/cdr-store";
import { MediaFileStore } from "../cdr/media-files";
import { defaultOptions } from "../config";
import type { MediaPlane } from "../media";
import { manualPlane, runTicks } from "../media/test-helpers";
import { SimChannel } from "../sim/sim-channel";
import { SimWorld } from "../sim/sim-world";
import { queueCallerWorld } from "../sim/queue-caller-world";
import { openDatabase, type Db } from "../store/db";
import { readDemoData, seedDemoData } from "../demo-data";
import { UserStore } from "../store/users";
import { SoftSwitch } from "./soft-switch";
import type { Channel, HangupCause } from "./types";

/**
 * The switch's logic with simulated parties only: no WebRTC, a media clock the test turns by
 * hand, so who hears whom after each operation is checked tick-exactly.
 */
let db: Db;
let plane: MediaPlane;
let sw: SoftSwitch;
let sim: SimWorld;
let cdrs: CdrStore;
let dir: string;

beforeEach(() => {
  db = openDatabase(":memory:", (fresh) => seedDemoData(fresh, readDemoData(defaultOptions.demoFile))).db;
  dir = mkdtempSync(join(tmpdir(), "agentbar-switch-"));
  plane = manualPlane();
  cdrs = new CdrStore(db);
  sw = new SoftSwitch({
    media: plane,
    users: new UserStore(db),
    cdrs,
    mediaFiles: new MediaFileStore(db, dir),
    log: silent,
    ringTimeoutSeconds: 60,
  });
  sim = new SimWorld(sw, plane, { ringMs: 0, historySize: 50 });
});

afterEach(async () => {
  await sw.shutdown();
  await plane.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const silent = { error() {}, warn() {}, info() {}, debug() {} } as never;

/** An answered simulated party saying `hz` (5551FFFF). */
async function party(hz: number): Promise<SimChannel> {
  const ch = sw.originateLeg(
    { number: `5551${String(hz).padStart(4, "0")}` },
    { callerIdName: "Test", callerIdNumber: "100" },
  ) as SimChannel;
  await new Promise<void>((resolve) => ch.once("answer", () => resolve()));
  return ch;
}

const hears = (ch: Channel, hz: number) => (ch as SimChannel).hearing.some((h) => Math.abs(h - hz) < 5);
const ended = (ch: Channel) => new Promise<HangupCause>((resolve) => ch.once("hangup", resolve));

describe("bridges", () => {
  it("connects two channels both ways and ends the partner when one hangs up", async () => {
    const a = await party(440);
    const b = await party(1000);
    const events: string[] = [];
    sw.on("channel-bridge", (x, y) => events.push(`bridge ${x.destinationNumber} ${y.destinationNumber}`));
    sw.on("channel-hangup", (x, cause) => events.push(`hangup ${x.destinationNumber} ${cause}`));
    sw.bridge(a, b);
    runTicks(plane, 400);
    expect(hears(a, 1000) && hears(b, 440)).toBe(true);
    expect(sw.partnerOf(a)).toBe(b);

    const bEnded = ended(b);
    a.farEndHangup();
    expect(await bEnded).toBe("NORMAL_CLEARING");
    expect(events).toEqual([
      "bridge 55510440 55511000",
      "hangup 55510440 NORMAL_CLEARING",
      "hangup 55511000 NORMAL_CLEARING",
    ]);
    const rowA = cdrs.byUuid(a.uuid)!;
    const rowB = cdrs.byUuid(b.uuid)!;
    expect(rowA.other_uuid).toBe(b.uuid);
    expect(rowB.other_uuid).toBe(a.uuid);
    expect(rowA.sip_hangup_disposition).toBe("recv_bye");
    expect(rowB.sip_hangup_disposition).toBe("send_bye");
  });

  it("keeps a parked channel up, and hangs up the former partner of a channel bridged elsewhere unless parked", async () => {
    const a = await party(440);
    const b = await party(1000);
    const c = await party(700);
    sw.bridge(a, b, { parkAfterBridge: "a" });
    b.farEndHangup();
    expect(a.state).toBe("answered");
    sw.bridge(a, c);
    const d = await party(900);
    const cEnded = ended(c);
    sw.bridge(a, d);
    expect(await cEnded).toBe("NORMAL_CLEARING");
    runTicks(plane, 400);
    expect(hears(a, 900) && hears(d, 440)).toBe(true);
  });

  it("keeps the latest heard tones in a long call's report, not the first ones", async () => {
    const kept = SimChannel.maxSegments;
    SimChannel.maxSegments = 5;
    onTestFinished(() => {
      SimChannel.maxSegments = kept;
    });
    const a = await party(440);
    const b = await party(1000);
    sw.bridge(a, b);
    for (let i = 0; i < 8; i++) {
      b.say(1000);
      runTicks(plane, 200);
      b.say(0);
      runTicks(plane, 1000);
    }
    b.say(600);
    runTicks(plane, 400);
    const heard = a.heard.map((t) => Math.round(t.frequency));
    expect(heard.length).toBe(5);
    expect(heard.at(-1)).toBeCloseTo(600, -1);
    expect(heard.slice(0, -1).every((hz) => Math.abs(hz - 1000) < 10)).toBe(true);
  });

  it("starts a new heard segment when a party is bridged to someone else, even without a gap", async () => {
    const a = await party(440);
    const b = await party(1000);
    const c = await party(1000);
    sw.bridge(a, b);
    runTicks(plane, 400);
    sw.bridge(a, c);
    runTicks(plane, 400);
    expect(a.heard.map((t) => Math.round(t.frequency / 10) * 10)).toEqual([1000, 1000]);
  });

  it("unbridges without hanging up; both hear silence", async () => {
    const a = await party(440);
    const b = await party(1000);
    sw.bridge(a, b);
    expect(sw.unbridge(a)).toBe(b);
    runTicks(plane, 400);
    expect(a.isUp && b.isUp).toBe(true);
    expect(hears(a, 1000) || hears(b, 440)).toBe(false);
  });
});

describe("hold and music", () => {
  it("holds like uuid_hold: the held leg is silent both ways and its partner hears music", async () => {
    const a = await party(440);
    const b = await party(1000);
    sw.bridge(a, b);
    await sw.hold(a);
    runTicks(plane, 2600);
    expect(b.hearsMusic).toBe(true);
    expect(hears(b, 440)).toBe(false);
    expect(a.hearing).toEqual([]);
    await sw.unhold(a);
    runTicks(plane, 400);
    expect(hears(b, 440) && hears(a, 1000)).toBe(true);
  });

  it("plays music and tones to a channel alone", async () => {
    const a = await party(440);
    sw.playMusic(a);
    runTicks(plane, 2600);
    expect(a.hearsMusic).toBe(true);
    sw.playTone(a, { frequency: 1234 });
    runTicks(plane, 400);
    expect(hears(a, 1234)).toBe(true);
    sw.playTone(a, "silence");
    runTicks(plane, 400);
    expect(a.hearing).toEqual([]);
  });
});

describe("consult, as the call-center engine does it", () => {
  async function consulting() {
    const customer = await party(1000);
    const agent = await party(440);
    const target = await party(700);
    sw.bridge(customer, agent);
    sw.unbridge(agent);
    sw.playMusic(customer);
    sw.playTone(agent, "ringback");
    sw.bridge(agent, target, { parkAfterBridge: "both" });
    runTicks(plane, 2600);
    expect(customer.hearsMusic).toBe(true);
    expect(hears(agent, 700) && hears(target, 440)).toBe(true);
    return { customer, agent, target };
  }

  it("the target hangs up: the agent stays up and goes back to the customer", async () => {
    const { customer, agent, target } = await consulting();
    target.farEndHangup();
    expect(agent.state).toBe("answered");
    sw.bridge(agent, customer);
    runTicks(plane, 400);
    expect(hears(agent, 1000) && hears(customer, 440)).toBe(true);
  });

  it("the agent hangs up: the target stays up and takes the customer", async () => {
    const { customer, agent, target } = await consulting();
    agent.farEndHangup();
    expect(target.state).toBe("answered");
    expect(customer.state).toBe("answered");
    sw.bridge(target, customer);
    runTicks(plane, 400);
    expect(hears(target, 1000) && hears(customer, 700)).toBe(true);
  });
});

describe("eavesdropping", () => {
  it("monitor, whisper, whisper to the customer and barge", async () => {
    const agent = await party(440);
    const customer = await party(1000);
    const supervisor = await party(1300);
    sw.bridge(agent, customer);

    sw.eavesdrop(supervisor, agent, "monitor");
    runTicks(plane, 400);
    expect(hears(supervisor, 440) && hears(supervisor, 1000)).toBe(true);
    expect(hears(agent, 1300) || hears(customer, 1300)).toBe(false);

    sw.eavesdrop(supervisor, agent, "whisper");
    runTicks(plane, 400);
    expect(hears(agent, 1300)).toBe(true);
    expect(hears(customer, 1300)).toBe(false);

    sw.eavesdrop(supervisor, agent, "whisper-customer");
    runTicks(plane, 400);
    expect(hears(customer, 1300)).toBe(true);
    expect(hears(agent, 1300)).toBe(false);

    sw.eavesdrop(supervisor, agent, "barge");
    runTicks(plane, 400);
    expect(hears(agent, 1300) && hears(customer, 1300)).toBe(true);

    const supervisorEnded = ended(supervisor);
    agent.farEndHangup();
    expect(await supervisorEnded).toBe("NORMAL_CLEARING");
  });
});

describe("dialplan", () => {
  it("routes claimed destinations, echoes on 9196 and refuses unknown short numbers", async () => {
    const claimed: string[] = [];
    sw.addRoute(
      (d) => d === "support",
      (caller, d) => {
        claimed.push(`${caller.callerIdNumber}->${d}`);
      },
    );
    sim.placeCall({ destination: "support", callerIdNumber: "5550001", callerIdName: "C", frequency: 440 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(claimed).toEqual(["5550001->support"]);

    const echo = sim.placeCall({ destination: "9196", callerIdNumber: "5550002", callerIdName: "C", frequency: 523 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(echo.state).toBe("answered");
    runTicks(plane, 800);
    expect(hears(echo, 523)).toBe(true);

    const lost = sim.placeCall({ destination: "12", callerIdNumber: "5550003", callerIdName: "C", frequency: 0 });
    expect(lost.hangupCause).toBe("UNALLOCATED_NUMBER");
  });

  it("connects a caller to a simulated number with ringback, and gives up with NO_ANSWER after the originate timeout", async () => {
    const caller = sim.placeCall({
      destination: "55510700",
      callerIdNumber: "5550004",
      callerIdName: "C",
      frequency: 440,
    });
    await new Promise<void>((resolve) => caller.once("bridge", () => resolve()));
    runTicks(plane, 400);
    expect(hears(caller, 700)).toBe(true);
    const callee = sw.partnerOf(caller)!;
    expect(cdrs.byUuid(caller.uuid)).toBeUndefined();
    caller.farEndHangup();
    expect(cdrs.byUuid(caller.uuid)!.bleg_uuid).toBe(callee.uuid);

    const never = sw.originateLeg(
      { number: "55530000" },
      { callerIdName: "x", callerIdNumber: "1", timeoutSeconds: 0.05 },
    );
    expect(await ended(never)).toBe("NO_ANSWER");
  });

  it("transfers a channel: its partner is hung up and it is routed anew", async () => {
    const caller = sim.placeCall({
      destination: "55510700",
      callerIdNumber: "5550005",
      callerIdName: "C",
      frequency: 440,
    });
    await new Promise<void>((resolve) => caller.once("bridge", () => resolve()));
    const first = sw.partnerOf(caller)!;
    const firstEnded = ended(first);
    sw.transfer(caller, "55510900");
    expect(await firstEnded).toBe("NORMAL_CLEARING");
    await new Promise<void>((resolve) => caller.once("bridge", () => resolve()));
    runTicks(plane, 400);
    expect(hears(caller, 900)).toBe(true);
    expect(caller.variables.get("transfer_destination")).toBe("blind:55510900");
  });
});

describe("the simulated world for the call-center engine's queue callers", () => {
  it("calls a destination, reports music apart from steady tones, presses keys and hangs up", async () => {
    const agent = await party(440);
    sw.addRoute(
      (d) => d === "support",
      async (caller) => {
        await caller.answer();
        sw.playMusic(caller);
      },
    );
    const world = queueCallerWorld(sim);
    const caller = await world.call({
      destination: "support",
      callerIdName: "Jane",
      callerIdNumber: "5550009",
      toneHz: 660,
    });
    expect(caller.channel.state).toBe("answered");
    // The route's handler finishes (music on) before the hand-turned clock moves.
    await new Promise((resolve) => setTimeout(resolve, 0));
    runTicks(plane, 3000);
    sw.bridge(caller.channel, agent);
    runTicks(plane, 600);
    caller.pressDtmf("7");
    runTicks(plane, 400);
    const heard = caller.heard();
    expect(heard.music).toBe(true);
    expect(heard.tones).toHaveLength(1);
    expect(heard.tones[0]!.frequency).toBeCloseTo(440, 0);
    expect(agent.report().digits.inband).toBe("7");
    caller.hangup();
    expect(caller.channel.state).toBe("hungup");
  });
});
