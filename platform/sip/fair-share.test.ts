import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { FairShare, SourceShare, type FairShareOptions, type Lane } from "./fair-share";

/**
 * The scheduler on a clock whose work costs what a test says: `now` is real time plus the cost
 * of every frame run so far, so a frame "takes" its cost without the test spending it.
 */
let spent = 0;
const now = () => performance.now() + spent;
const options: FairShareOptions = { sourceShare: 0.25, sourceBurstMs: 50, turnMs: 20, maxWaiting: 4, now };
const shares: FairShare[] = [];
afterEach(() => {
  for (const s of shares.splice(0)) s.close();
});

/** Frames are "<name> <cost ms>"; `log` gets each name as it runs. */
function lane(share: FairShare, source: SourceShare, log: string[], events: string[] = []): Lane {
  return share.lane(source, {
    run: (frame) => {
      const [name, cost] = frame.split(" ");
      spent += Number(cost);
      log.push(name!);
    },
    pause: () => events.push("pause"),
    resume: () => events.push("resume"),
  });
}

function fairShare(): FairShare {
  const share = new FairShare(options);
  shares.push(share);
  return share;
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("FairShare", () => {
  it("runs a frame at once when its source has time left, keeping each connection's order", async () => {
    const share = fairShare();
    const log: string[] = [];
    const a = lane(share, new SourceShare(options), log);
    a.push("a1 1");
    expect(log).toEqual(["a1"]);
    for (let i = 2; i <= 6; i++) a.push(`a${i} 1`);
    await until(() => log.length === 6);
    expect(log).toEqual(["a1", "a2", "a3", "a4", "a5", "a6"]);
  });

  it("serves another source between the frames of a source that has used its time", async () => {
    const share = fairShare();
    const log: string[] = [];
    const flooder = new SourceShare(options);
    const flood = [lane(share, flooder, log), lane(share, flooder, log)];
    for (let i = 0; i < 10; i++) flood[i % 2]!.push(`flood 30`);
    const phone = lane(share, new SourceShare(options), log);
    phone.push("phone 1");
    phone.push("phone 1");
    await until(() => log.length === 12);
    // The flood had its first frame at once; the phone's frames came before most of the flood.
    expect(log.indexOf("phone")).toBeLessThanOrEqual(2);
    expect(log.lastIndexOf("phone")).toBeLessThanOrEqual(4);
    expect(share.waitingFrames).toBe(0);
  });

  it("holds a source to its share of the time", async () => {
    const share = fairShare();
    const log: string[] = [];
    const source = new SourceShare(options);
    const started = now();
    const a = lane(share, source, log);
    for (let i = 0; i < 8; i++) a.push("a 25");
    await until(() => log.length === 8);
    // The last frame may start only once the time earned (50 ms saved up, then 25 % of the clock)
    // pays for the seven before it: 175 ms of work, so after 500 ms of the clock.
    expect(now() - started).toBeGreaterThanOrEqual((175 - options.sourceBurstMs) / options.sourceShare);
  });

  it("stops reading a connection with too many frames waiting, and reads it again when half are served", async () => {
    const share = fairShare();
    const log: string[] = [];
    const events: string[] = [];
    const a = lane(share, new SourceShare(options), log, events);
    a.push("first 60");
    for (let i = 0; i < 4; i++) a.push("next 1");
    expect(events).toEqual(["pause"]);
    await until(() => log.length === 5);
    expect(events).toEqual(["pause", "resume"]);
  });

  it("drops what a closed connection left waiting", async () => {
    const share = fairShare();
    const log: string[] = [];
    const a = lane(share, new SourceShare(options), log);
    a.push("first 60");
    a.push("second 1");
    a.close();
    const b = lane(share, new SourceShare(options), log);
    b.push("other 1");
    await until(() => log.includes("other"));
    expect(log).toEqual(["first", "other"]);
    expect(share.waitingFrames).toBe(0);
  });
});
