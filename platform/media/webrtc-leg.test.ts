import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BrowserStandIn } from "./browser-stand-in";
import type { DtmfDetector } from "./dtmf-detector";
import { DtmfGenerator } from "./dtmf-generator";
import { MediaPlane } from "./media-plane";
import { recognizesHoldMusic } from "./music-on-hold";
import { connectPeerConnectionPair, type PeerConnectionPair } from "./peer-connection-pair";
import type { Room } from "./room";
import { until, withNoise } from "./test-helpers";
import { sineTone } from "./tone-generator";
import { hasTone, type ToneAnalysis } from "./tone-detector";
import type { WebRtcLeg } from "./webrtc-leg";

/**
 * Two browsers stand in on two loopback peer-connection pairs, each answered by a WebRTC leg of
 * the plane; the legs are bridged by the mixer. Every sound crosses Opus twice (browser -> leg,
 * leg -> other browser). One set of connections serves all tests, as wrtc tolerates only so many
 * peer connections per process.
 *
 * This is real time on a shared machine: when the process is not scheduled for tens of
 * milliseconds, the receivers conceal the gap and a detector window or two is smeared. So "hears"
 * means "in at least 80 % of the windows of the last half second", while "does not hear" stays
 * absolute: a stall can blur a tone, never create another party's frequency.
 */
let plane: MediaPlane;
let legA: WebRtcLeg;
let legB: WebRtcLeg;
let browserA: BrowserStandIn;
let browserB: BrowserStandIn;
let pairs: PeerConnectionPair[] = [];
let call: Room;

const hears = (browser: BrowserStandIn, frequency: number) => browser.hears.presence(frequency, 500) >= 0.8;
const neverHeard = (browser: BrowserStandIn, frequency: number, ms = 1000) =>
  browser.hears.presence(frequency, ms) === 0;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How often the media path lost or bent audio while `action` ran: the plane's late or skipped
 * ticks and its jitter buffers' under- and overruns, and the times a receiving peer connection
 * (a browser's or a leg's) concealed missing audio, which a starved process also causes.
 */
async function glitchesDuring(action: () => Promise<void>): Promise<number> {
  const count = async () => {
    const clock = plane.clock.stats();
    const legs = plane.stats().legs.reduce((sum, leg) => sum + leg.jitter.underruns + leg.jitter.overruns, 0);
    let concealed = 0;
    for (const pc of pairs.flatMap((pair) => [pair.offerer, pair.answerer])) {
      (await pc.getStats()).forEach((s: { type: string; concealmentEvents?: number }) => {
        if (s.type === "inbound-rtp") concealed += s.concealmentEvents ?? 0;
      });
    }
    return clock.framesLate + clock.framesSkipped + legs + concealed;
  };
  const before = await count();
  await action();
  return (await count()) - before;
}

beforeAll(async () => {
  plane = new MediaPlane();
  legA = plane.createWebRtcLeg("A");
  legB = plane.createWebRtcLeg("B");
  browserA = new BrowserStandIn(sineTone(440));
  browserB = new BrowserStandIn(sineTone(1000));
  plane.clock.onTick(() => {
    browserA.speak();
    browserB.speak();
  });
  // A calls in (the browser offers); the platform calls B (the leg offers).
  pairs.push(
    await connectPeerConnectionPair((browser, platform) => (browserA.prepare(browser), legA.attach(platform))),
  );
  pairs.push(
    await connectPeerConnectionPair((platform, browser) => (legB.attach(platform), browserB.prepare(browser))),
  );
  call = plane.bridge(legA, legB);
}, 30_000);

afterAll(async () => {
  // Legs (sinks, tracks) first, then the connections they ran on.
  await plane?.close();
  browserA?.close();
  browserB?.close();
  for (const pair of pairs) pair.close();
  pairs = [];
});

afterEach(() => {
  // Each test starts from the plain call, even when the previous one failed half-way.
  browserA.voice = sineTone(440);
  browserB.voice = sineTone(1000);
  for (const member of call.members()) if (member !== legA && member !== legB) member.close();
  if (!legA.closed) call.add(legA);
  if (!legB.closed) call.add(legB);
  legA.inputEnabled = legA.outputEnabled = true;
});

describe("WebRTC legs bridged by the mixer, through Opus", { timeout: 30_000 }, () => {
  it("carries 440 Hz from A to B and 1000 Hz from B to A, and nothing back to its sender", async () => {
    await until("A hears 1000 Hz and B hears 440 Hz", () => hears(browserA, 1000) && hears(browserB, 440));
    await wait(500);
    expect(neverHeard(browserA, 440)).toBe(true);
    expect(neverHeard(browserB, 1000)).toBe(true);
    // The loudest tone of a window, read when no stall of the process smears that window.
    const near = (browser: BrowserStandIn, frequency: number) =>
      Math.abs((browser.hears.dominant()?.frequency ?? 0) - frequency) < 2;
    await until(
      "A's loudest tone is 1000 Hz and B's 440 Hz, within 2 Hz",
      () => near(browserA, 1000) && near(browserB, 440),
    );
  });

  it("reports what the sink delivers and how the jitter buffer copes", () => {
    const stats = legA.stats();
    expect(stats.hasRemoteTrack).toBe(true);
    // Opus decodes to 48 kHz mono 10 ms chunks; only the first few (before any packet) differ.
    const chunks = Object.values(stats.sinkChunks).reduce((a, b) => a + b, 0);
    expect(stats.sinkChunks["48000/1/480"]).toBeGreaterThan(chunks * 0.8);
    expect(stats.framesSent).toBeGreaterThan(10);
    expect(stats.jitter.received).toBeGreaterThan(10);
    expect(plane.stats().legs.map((l) => l.id)).toEqual([legA.id, legB.id]);
  });

  it("three-way: each browser hears both other parties in one mix", async () => {
    const third = plane.createParty("C", sineTone(700));
    const c = plane.detectTones(third);
    call.add(third);
    await until(
      "A hears 700+1000, B hears 440+700, C hears 440+1000",
      () =>
        hears(browserA, 700) &&
        hears(browserA, 1000) &&
        hears(browserB, 440) &&
        hears(browserB, 700) &&
        c.presence(440, 300) === 1 &&
        c.presence(1000, 300) === 1,
    );
    expect(neverHeard(browserA, 440, 500)).toBe(true);
    expect(neverHeard(browserB, 1000, 500)).toBe(true);
    third.close();
    await until("A no longer hears 700", () => neverHeard(browserA, 700, 500));
  });

  it("finds the tone in noise after Opus, without inventing others", async () => {
    browserA.voice = withNoise(sineTone(440), -30);
    const noisySince = Date.now();
    // A whole second in which B hears it, all of it noisy (the path's half second included), and
    // no other tone in more than a fifth of it: a moment the process was not scheduled smears a
    // window or two (and Opus conceals a lost packet with what it can), so that second is awaited
    // rather than taken at a fixed time. Tones invented by the path would never leave it.
    const invented = () =>
      browserB.hears
        .recent(1000)
        .flatMap((a) => a.tones.filter((t) => Math.abs(t.frequency - 440) >= 3))
        .filter((t) => browserB.hears.presence(t.frequency, 1000) > 0.2);
    await until(
      "B hears 440 Hz in the noise for a whole second, and no other tone",
      () => Date.now() - noisySince >= 1500 && browserB.hears.presence(440, 1000) >= 0.8 && invented().length === 0,
    );
  });

  it("carries in-band DTMF both ways, repeated digits included", async () => {
    const fromBrowser = plane.detectDtmf(legA, "said");
    await expectDigitsOnACleanPath("1559#*0", fromBrowser, () => (browserA.voice = new DtmfGenerator("1559#*0")));

    // An IVR in the call plays digits to browser B while A stays silent.
    browserA.voice = null;
    await untilDrained(browserB.dtmf, "0");
    const ivr = plane.createParty("IVR");
    call.add(ivr);
    await expectDigitsOnACleanPath("24468", browserB.dtmf, () => ivr.sayDigits("24468", { toneMs: 80, gapMs: 80 }));
  });

  it("hold: the partner hears hold music instead of the held leg", async () => {
    // What B hears from the hold on, an analysis every 50 ms of its audio: counted in the audio's
    // own time, which a stall of the process delays but never shortens. (B's last 2.5 s read by
    // the clock could still hold A: A's tone counts as sound too, and three notes come in 1 s.)
    const sinceHold: ToneAnalysis[] = [];
    const stop = browserB.hears.onAnalysis((analysis) => sinceHold.push(analysis));
    call.hold(legA);
    try {
      await until("B hears 2.5 s of hold music", () => sinceHold.length >= 50 && recognizesHoldMusic(sinceHold));
      // A may reach B for as long as what was on its way drains (jitter buffers, the analysis's
      // 171 ms window): the first 0.5 s. After that, never.
      expect(sinceHold.slice(10).filter((analysis) => hasTone(analysis, 440))).toEqual([]);
    } finally {
      stop();
    }
    call.resume(legA);
    await until("B hears A again", () => hears(browserB, 440));
    await wait(700);
    expect(recognizesHoldMusic(browserB.hears.recent(500))).toBe(false);
  });

  it("mute per direction: a leg's input off silences it, its output off silences its browser", async () => {
    legA.inputEnabled = false;
    await until("B no longer hears A", () => neverHeard(browserB, 440, 500));
    legA.inputEnabled = true;
    legA.outputEnabled = false;
    await until("A hears nothing, B hears A again", () => neverHeard(browserA, 1000, 500) && hears(browserB, 440));
    legA.outputEnabled = true;
    await until("A hears B again", () => hears(browserA, 1000));
  });

  it("closing a leg stops its track and sink and takes it out of the mix", async () => {
    const received = () => legB.stats().jitter.received;
    const endpoints = plane.mixer.endpointCount;
    legB.close();
    expect(legB.localTrack.readyState).toBe("ended");
    expect(call.has(legB)).toBe(false);
    expect(plane.mixer.endpointCount).toBe(endpoints - 1);
    const after = received();
    await wait(200);
    expect(received()).toBe(after);
    await until("A hears silence", () => neverHeard(browserA, 1000, 500));
  });
});

/**
 * Digits must arrive exactly. Only when the media path itself stalled during a playing (the
 * process was not scheduled, see above) may a stall that cut a tone for 30 ms or more have split
 * one key press in two, and then the digits must still match once such doubles are merged; or
 * have lost one, and then they are played again (at most five playings): a stall says nothing
 * of the path.
 */
async function expectDigitsOnACleanPath(
  sent: string,
  received: DtmfDetector,
  play: () => DtmfGenerator,
): Promise<void> {
  const merge = (digits: string) => digits.replace(/(.)\1+/g, "$1");
  for (let playing = 1; playing <= 5; playing++) {
    received.take();
    const glitches = await glitchesDuring(async () => {
      const generator = play();
      await until("the digits are played", () => generator.finished);
      await untilDrained(received, sent.at(-1)!);
    });
    const digits = received.take();
    if (glitches === 0) {
      expect(digits).toBe(sent);
      return;
    }
    if (merge(digits) === merge(sent)) {
      expect(digits.length).toBeLessThanOrEqual(sent.length + glitches);
      return;
    }
    // A stall may lose digits, never invent one: what arrived is what was sent, with gaps.
    let next = 0;
    for (const digit of merge(digits)) next = merge(sent).indexOf(digit, next) + 1 || Infinity;
    expect(next, `${digits} is not ${sent} with digits lost`).toBeLessThan(Infinity);
  }
  throw new Error(`the media path never carried ${sent} without losing a digit in five playings`);
}

/** Until the last digit played has crossed the path, or had a second to (a lost one never does). */
async function untilDrained(received: DtmfDetector, last: string): Promise<void> {
  const since = Date.now();
  await until(`${last} arrived, or had a second to`, () => received.digits.endsWith(last) || Date.now() - since > 1000);
}
