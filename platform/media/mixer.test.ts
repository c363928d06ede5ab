import { afterEach, describe, expect, it } from "vitest";
import { CALL_PROGRESS_FREQUENCY, ringbackTone } from "./call-progress-tones";
import { FRAME_SAMPLES, type Frame } from "./frame";
import type { MediaPlane } from "./media-plane";
import { recognizesHoldMusic } from "./music-on-hold";
import type { SimulatedParty } from "./simulated-party";
import { largestStep, manualPlane, runTicks } from "./test-helpers";
import type { ToneDetector } from "./tone-detector";
import { sineTone } from "./tone-generator";

let plane: MediaPlane;
afterEach(async () => {
  await plane?.close();
});

/** A party saying a tone, with a detector on what it hears. */
function party(label: string, frequency: number | null): { party: SimulatedParty; hears: ToneDetector } {
  const p = plane.createParty(label, frequency === null ? null : sineTone(frequency));
  return { party: p, hears: plane.detectTones(p) };
}

/** Frequencies heard throughout the last 300 ms, rounded. */
function heard(detector: ToneDetector): number[] {
  const windows = detector.recent(300);
  const first = windows[0]?.tones.map((t) => Math.round(t.frequency)) ?? [];
  return first
    .filter((f) => windows.every((w) => w.tones.some((t) => Math.abs(t.frequency - f) <= 3)))
    .sort((a, b) => a - b);
}

function silent(detector: ToneDetector): boolean {
  return detector.recent(300).every((a) => a.levelDb === -Infinity);
}

describe("mixer", () => {
  it("bridges two parties: each hears the other, not itself", () => {
    plane = manualPlane();
    const a = party("A", 440);
    const b = party("B", 1000);
    plane.bridge(a.party, b.party);
    runTicks(plane, 500);
    expect(heard(a.hears)).toEqual([1000]);
    expect(heard(b.hears)).toEqual([440]);
  });

  it("gives silence to an endpoint in no room", () => {
    plane = manualPlane();
    const a = party("A", 440);
    party("B", 1000);
    runTicks(plane, 500);
    expect(silent(a.hears)).toBe(true);
  });

  it("conference: each of three hears the two others", () => {
    plane = manualPlane();
    const a = party("A", 440);
    const b = party("B", 1000);
    const c = party("C", 700);
    plane.createRoom("conference").add(a.party).add(b.party).add(c.party);
    runTicks(plane, 500);
    expect(heard(a.hears)).toEqual([700, 1000]);
    expect(heard(b.hears)).toEqual([440, 700]);
    expect(heard(c.hears)).toEqual([440, 1000]);
  });

  it("monitor: the supervisor hears both sides, nobody hears the supervisor", () => {
    plane = manualPlane();
    const agent = party("agent", 440);
    const customer = party("customer", 1000);
    const supervisor = party("supervisor", 700);
    const room = plane.bridge(agent.party, customer.party);
    room.add(supervisor.party, "listener");
    runTicks(plane, 500);
    expect(heard(supervisor.hears)).toEqual([440, 1000]);
    expect(heard(agent.hears)).toEqual([1000]);
    expect(heard(customer.hears)).toEqual([440]);
  });

  it("whisper: only the agent hears the supervisor; barge: everyone does", () => {
    plane = manualPlane();
    const agent = party("agent", 440);
    const customer = party("customer", 1000);
    const supervisor = party("supervisor", 700);
    const room = plane.bridge(agent.party, customer.party);
    room.add(supervisor.party, { whisperTo: [agent.party] });
    runTicks(plane, 500);
    expect(heard(agent.hears)).toEqual([700, 1000]);
    expect(heard(customer.hears)).toEqual([440]);
    expect(heard(supervisor.hears)).toEqual([440, 1000]);

    room.setRole(supervisor.party, "talker");
    runTicks(plane, 500);
    expect(heard(customer.hears)).toEqual([440, 700]);
  });

  it("hold: the partner hears hold music instead of the held leg; resume restores the call", () => {
    plane = manualPlane();
    const agent = party("agent", 440);
    const customer = party("customer", 1000);
    const room = plane.bridge(agent.party, customer.party);
    runTicks(plane, 500);
    expect(heard(customer.hears)).toEqual([440]);

    room.hold(agent.party);
    runTicks(plane, 3000);
    expect(recognizesHoldMusic(customer.hears.recent(2500))).toBe(true);
    expect(customer.hears.presence(440, 2500)).toBe(0);
    expect(silent(agent.hears)).toBe(true);

    room.resume(agent.party);
    runTicks(plane, 500);
    expect(heard(customer.hears)).toEqual([440]);
    expect(heard(agent.hears)).toEqual([1000]);
    expect(recognizesHoldMusic(customer.hears.recent(300))).toBe(false);
  });

  it("early media: the caller hears ringback until answered, then the callee", () => {
    plane = manualPlane();
    const caller = party("caller", 700);
    const callee = party("callee", 1000);
    const early = plane.playTo(caller.party, ringbackTone());
    runTicks(plane, 500);
    expect(heard(caller.hears)).toEqual([CALL_PROGRESS_FREQUENCY]);
    expect(silent(callee.hears)).toBe(true);

    plane.bridge(caller.party, callee.party);
    early.close();
    runTicks(plane, 500);
    expect(heard(caller.hears)).toEqual([1000]);
    expect(heard(callee.hears)).toEqual([700]);
  });

  it("consult: the agent holds the customer and talks to an expert, then returns", () => {
    plane = manualPlane();
    const customer = party("customer", 1000);
    const agent = party("agent", 440);
    // 1300 Hz: clear of the hold melody's notes and overtones (F4's second overtone is 698 Hz).
    const expert = party("expert", 1300);
    const call = plane.bridge(agent.party, customer.party);
    runTicks(plane, 300);

    call.hold(agent.party);
    const consult = plane.bridge(agent.party, expert.party);
    runTicks(plane, 2500);
    expect(call.has(agent.party)).toBe(false);
    expect(heard(agent.hears)).toEqual([1300]);
    expect(heard(expert.hears)).toEqual([440]);
    expect(recognizesHoldMusic(customer.hears.recent(2000))).toBe(true);
    expect(customer.hears.presence(1300, 2000)).toBe(0);

    call.resume(agent.party);
    consult.close();
    runTicks(plane, 500);
    expect(heard(agent.hears)).toEqual([1000]);
    expect(heard(customer.hears)).toEqual([440]);
    expect(silent(expert.hears)).toBe(true);
  });

  it("transfer: a leg moves to another room within one frame, without a gap or a click", () => {
    plane = manualPlane();
    const customer = party("customer", 1000);
    const agent = party("agent", 440);
    const expert = party("expert", 700);
    const customerHeard: Frame[] = [];
    const agentSaid: Frame[] = [];
    const expertSaid: Frame[] = [];
    customer.party.onHeard((f) => customerHeard.push(f));
    agent.party.onSaid((f) => agentSaid.push(f));
    expert.party.onSaid((f) => expertSaid.push(f));
    plane.bridge(agent.party, customer.party);
    const other = plane.bridge(expert.party, plane.createParty("expert's caller"));
    runTicks(plane, 300);

    const switchAt = customerHeard.length;
    other.add(customer.party);
    runTicks(plane, 500);
    expect(heard(customer.hears)).toEqual([700]);
    expect(silent(agent.hears)).toBe(true);

    // Before the switch the customer hears exactly the agent, from the frame after it exactly the
    // expert; the one frame between cross-fades, so there is no silent frame and no jump.
    expect(customerHeard[switchAt - 1]).toEqual(agentSaid[switchAt - 1]);
    expect(customerHeard[switchAt + 1]).toEqual(expertSaid[switchAt + 1]);
    const around = customerHeard.slice(switchAt - 2, switchAt + 3);
    expect(around.every((f) => f.some((s) => Math.abs(s) > 4000))).toBe(true);
    // Tones at -12 dBFS move at most ~750 per sample (700 Hz); a hard cut can jump up to 16 000.
    expect(largestStep(around)).toBeLessThan(1200);
  });

  it("switches within one frame, cross-fading so that the switch cannot click", () => {
    plane = manualPlane();
    const constant = (label: string, value: number) => ({
      label,
      nextFrame: () => new Int16Array(FRAME_SAMPLES).fill(value),
    });
    const listener = plane.createParty("listener");
    const high = plane.createParty("high", constant("high", 8000));
    const low = plane.createParty("low", constant("low", -8000));
    const frames: Frame[] = [];
    listener.onHeard((f) => frames.push(f));
    plane.bridge(listener, high);
    runTicks(plane, 50);
    plane.bridge(listener, low);
    runTicks(plane, 50);
    expect(frames[4]!.every((s) => s === 8000)).toBe(true);
    const fade = frames[5]!;
    expect(fade[0]).toBeGreaterThan(7900);
    expect(fade[479]).toBe(-8000);
    expect(frames[6]!.every((s) => s === -8000)).toBe(true);
    // A hard switch would jump by 16 000; the fade moves by 16 000 / 480 per sample.
    expect(largestStep(frames)).toBeLessThanOrEqual(34);

    // Muting fades out the same way, and unmuting fades back in.
    low.inputEnabled = false;
    runTicks(plane, 30);
    low.inputEnabled = true;
    runTicks(plane, 30);
    expect(frames[10]![0]).toBeLessThan(-7900);
    expect(frames[10]![479]).toBe(0);
    expect(frames[11]!.every((s) => s === 0)).toBe(true);
    expect(frames[13]![479]).toBe(-8000);
    expect(largestStep(frames)).toBeLessThanOrEqual(34);
  });

  it("clips a loud mix instead of wrapping around", () => {
    plane = manualPlane();
    const listener = plane.createParty("listener");
    const loud = () => ({ label: "full scale", nextFrame: () => new Int16Array(FRAME_SAMPLES).fill(30000) });
    const room = plane.createRoom("loud").add(listener, "listener");
    room.play(loud());
    room.play(loud());
    const frames: Frame[] = [];
    listener.onHeard((f) => frames.push(f));
    runTicks(plane, 30);
    expect(frames.at(-1)!.every((s) => s === 32767)).toBe(true);
  });

  it("mute: a leg whose input is off is not heard, and is heard again when on", () => {
    plane = manualPlane();
    const a = party("A", 440);
    const b = party("B", 1000);
    plane.bridge(a.party, b.party);
    a.party.inputEnabled = false;
    runTicks(plane, 500);
    expect(silent(b.hears)).toBe(true);
    expect(heard(a.hears)).toEqual([1000]);
    a.party.inputEnabled = true;
    runTicks(plane, 500);
    expect(heard(b.hears)).toEqual([440]);
  });

  it("a closed endpoint leaves its room; the partner hears silence", () => {
    plane = manualPlane();
    const a = party("A", 440);
    const b = party("B", 1000);
    const room = plane.bridge(a.party, b.party);
    runTicks(plane, 300);
    a.party.close();
    runTicks(plane, 500);
    expect(room.members()).toEqual([b.party]);
    expect(silent(b.hears)).toBe(true);
    expect(plane.mixer.endpointCount).toBe(1);
  });

  it("forgets rooms that calls have left, and takes them back when used again", () => {
    plane = manualPlane();
    const a = party("A", 440);
    const b = party("B", 1000);
    const first = plane.bridge(a.party, b.party);
    const second = plane.bridge(a.party, b.party);
    runTicks(plane, 20);
    expect(first.size).toBe(0);
    expect(plane.mixer.roomCount).toBe(1);
    first.add(a.party);
    runTicks(plane, 20);
    expect(plane.mixer.roomCount).toBe(2);
    second.close();
    first.close();
    expect(plane.mixer.roomCount).toBe(0);
  });

  it("echo: a party says back what it hears", () => {
    plane = manualPlane();
    const caller = party("caller", 700);
    const echo = plane.createParty("echo line");
    echo.echo(100);
    plane.bridge(caller.party, echo);
    runTicks(plane, 600);
    expect(heard(caller.hears)).toEqual([700]);
  });
});
