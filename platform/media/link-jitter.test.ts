import { describe, expect, it } from "vitest";
import { LinkJitter } from "./link-jitter";

/** A repeatable random sequence (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `seconds` of audio, a packet every `intervalMs` (with an RTCP packet now and then), through the
 * link's jitter on a clock of its own; what a receiver makes of it, as libwebrtc's RTCP
 * statistician does (jitter in whole milliseconds of arrival, updated over in-order packets
 * only; every packet received takes one off the lost count, a gap in sequence adds to it), read
 * once a second as getStats would.
 */
function receive(jitterMs: number, intervalMs = 20, seconds = 120) {
  let now = 0;
  const queue: Array<{ at: number; order: number; run: () => void }> = [];
  let order = 0;
  // Kept in time order (then in the order scheduled): each new event goes after those due no later.
  const later = (ms: number, run: () => void) => {
    const event = { at: now + ms, order: order++, run };
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (queue[mid]!.at <= event.at) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, event);
  };
  const link = new LinkJitter(later, () => now, seeded(jitterMs * 7 + intervalMs));
  const arrivals: Array<{ seq: number; sentAt: number; at: number }> = [];
  const total = (seconds * 1000) / intervalMs;
  for (let seq = 0; seq < total; seq++) {
    const sentAt = seq * intervalMs;
    later(sentAt, () => {
      link.pass(jitterMs, true, () => arrivals.push({ seq, sentAt, at: now }));
      if (seq % 50 === 0) link.pass(jitterMs, false, () => {});
    });
  }
  while (queue.length) {
    const next = queue.shift()!;
    now = next.at;
    next.run();
  }
  let jitter = 0;
  let lost = 0;
  let highest = -1;
  let last: { sentAt: number; at: number } | undefined;
  let outOfOrder = 0;
  let delay = 0;
  const readings: Array<{ jitter: number; lost: number }> = [];
  let readAt = 1000;
  for (const p of arrivals) {
    while (p.at >= readAt) {
      readings.push({ jitter, lost });
      readAt += 1000;
    }
    delay += p.at - p.sentAt;
    lost--;
    if (p.seq <= highest) {
      outOfOrder++;
      continue;
    }
    lost += p.seq - highest;
    highest = p.seq;
    if (last) jitter += (Math.abs(Math.floor(p.at) - Math.floor(last.at) - (p.sentAt - last.sentAt)) - jitter) / 16;
    last = p;
  }
  const steady = readings.slice(5);
  return {
    meanJitter: steady.reduce((a, r) => a + r.jitter, 0) / steady.length,
    readingsWithLoss: steady.filter((r) => r.lost !== 0).length,
    finalLost: lost,
    outOfOrder: outOfOrder / arrivals.length,
    meanDelay: delay / arrivals.length,
    received: arrivals.length,
    sent: total,
  };
}

describe("LinkJitter", () => {
  it.each([30, 45, 60, 100, 200])(
    "makes a receiver's in-order RFC 3550 jitter about %i ms, losing nothing",
    (asked) => {
      const r = receive(asked);
      expect(r.meanJitter).toBeGreaterThan(asked * 0.85);
      expect(r.meanJitter).toBeLessThan(asked * 1.15);
      expect(r.received).toBe(r.sent);
      expect(r.finalLost).toBe(0);
      // The late ones of a burst come straight after it: a reading a second almost never sees them missing.
      expect(r.readingsWithLoss).toBeLessThan(3);
      // Delays of the order of the jitter, not the seconds independent delays would need.
      expect(r.meanDelay).toBeLessThan(asked);
    },
  );

  it.each([2, 5])(
    "keeps small jitter (%i ms, up to a third of a packet interval) in order, each packet on its own",
    (asked) => {
      const r = receive(asked);
      expect(r.outOfOrder).toBe(0);
      expect(r.meanJitter).toBeGreaterThan(asked * 0.75);
      expect(r.meanJitter).toBeLessThan(asked * 1.25 + 1);
    },
  );

  it.each([
    [10, 20],
    [15, 20],
    [60, 10],
  ])("makes %i ms of jitter with a packet every %i ms too", (asked, interval) => {
    const r = receive(asked, interval);
    expect(r.meanJitter).toBeGreaterThan(asked * 0.85);
    expect(r.meanJitter).toBeLessThan(asked * 1.15);
  });
});
