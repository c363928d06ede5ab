import { afterEach, describe, expect, it } from "vitest";
import { SessionState, type Web } from "sip.js";
import type { CallQuality } from "../../src/softphone/call-quality";
import { QualityWatchdog, type CallStatsTimeline } from "../../src/softphone/quality-watchdog";
import { sipFixture } from "./sip-fixture";
import { until } from "./sip-phone";

/**
 * The phone's call-quality watchdog over the statistics of a real libwebrtc (a test phone's
 * @roamhq/wrtc connection) while the platform makes the network worse (/sim/network): what the
 * browser's watchdog reads is what libwebrtc reports, so its rules must hold on them.
 */
const f = sipFixture({ simNetwork: true });

afterEach(async () => {
  await f.sim("DELETE", "/sim/network/1001");
});

async function watchedCall() {
  const alice = await f.phone("1001", 440);
  const call = alice.call("55510700");
  await call.waitState(SessionState.Established);
  await call.waitHears(700, "alice hears the simulated party");
  const pc = (call.session.sessionDescriptionHandler as Web.SessionDescriptionHandler).peerConnection!;
  const published: CallQuality[] = [];
  let restarts = 0;
  const timeline: CallStatsTimeline = {
    callId: "c",
    remote: "55510700",
    startedAt: Date.now(),
    dropped: 0,
    samples: [],
  };
  const watchdog = new QualityWatchdog(
    {
      id: "c",
      remote: "55510700",
      statsSource: () => pc,
      held: () => false,
      restartIce: () => {
        restarts++;
        return Promise.resolve(true);
      },
      publish: (q) => published.push(q),
    },
    timeline,
    Date.now,
  );
  const timer = setInterval(() => void watchdog.tick(), 1000);
  stops.push(() => clearInterval(timer));
  return { latest: () => published.at(-1), published, restarts: () => restarts, timeline };
}

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe("the call-quality watchdog on a real WebRTC stack", () => {
  it("marks a clean call good: figures present, no warning for 10 readings", async () => {
    const w = await watchedCall();
    await until("10 readings", () => w.timeline.samples.length >= 10, 20_000);
    expect(w.latest()).toMatchObject({ mark: "good", warnings: [] });
    expect(w.latest()?.rttMs).toBeTypeOf("number");
    expect(w.latest()?.jitterMs).toBeTypeOf("number");
    expect(w.published.some((q) => q.warnings.length > 0 || q.oneWayAudio)).toBe(false);
    expect(w.restarts()).toBe(0);
  });

  it("warns about loss and marks the call poor under 5 % loss toward the phone", async () => {
    const w = await watchedCall();
    await f.sim("PUT", "/sim/network/1001", { toPhone: { lossPercent: 5 } });
    await until("the loss warning", () => !!w.latest()?.warnings.includes("loss"), 20_000);
    expect(w.latest()?.mark).toBe("poor");
  });

  it("names jitter, not loss, under 60 ms of jitter toward the phone with nothing dropped", async () => {
    const w = await watchedCall();
    await f.sim("PUT", "/sim/network/1001", { toPhone: { jitterMs: 60 } });
    await until("the jitter warning", () => !!w.latest()?.warnings.includes("jitter"), 20_000);
    expect(w.latest()).toMatchObject({ mark: "poor", warnings: ["jitter"], lossPercent: 0 });
    expect(w.latest()!.jitterMs).toBeGreaterThan(40);
    expect(w.published.some((q) => q.warnings.includes("loss"))).toBe(false);
    expect(w.timeline.samples.every((s) => !s.receivedLossPercent)).toBe(true);
  });

  it("finds one-way audio when the platform's audio stops reaching the phone, and asks for an ICE restart", async () => {
    const w = await watchedCall();
    await f.sim("PUT", "/sim/network/1001", { toPhone: { silence: true } });
    await until("the restart is asked for", () => w.restarts() === 1, 20_000);
    expect(w.latest()?.oneWayAudio).toMatchObject({ reason: "no-packets", state: "restarting" });
    await until("the audio is said to be lost", () => w.latest()?.oneWayAudio?.state === "unresolved", 20_000);
    expect(w.latest()?.mark).toBe("poor");
    await f.sim("DELETE", "/sim/network/1001");
    await until("the audio is back", () => w.latest() !== undefined && !w.latest()!.oneWayAudio, 20_000);
  });
});
