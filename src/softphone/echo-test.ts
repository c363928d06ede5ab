import { rmsDbfs, toneAmplitude, toneOnset } from "./audio-analysis";
import type { CallId } from "./call";
import type { CallsStore } from "./calls-store";

/** What an echo test found. */
export interface EchoTestResult {
  /** Mouth to ear and back through the echo service (network both ways, buffers, the service), ms; absent when no probe came back. */
  roundTripMs?: number;
  probesSent: number;
  probesHeard: number;
  /** How loud the microphone was while the test ran, as sent and as heard back (speech level: the loudest tenth), dBFS. */
  microphoneDbfs: number;
  heardBackDbfs: number;
}

/** What the echo test needs of the phone. */
export interface EchoTestPhone {
  readonly callsStore: CallsStore;
  call(number: string, options: { microphone: MediaStream; context: Record<string, string> }): Promise<CallId>;
  hangup(id: CallId): Promise<void>;
  remoteStream(id: CallId): MediaStream | undefined;
  microphoneStream(): Promise<MediaStream>;
}

export type EchoTestStage = "calling" | "measuring";

/**
 * The probes: short beeps, each of its own pitch so that its echo cannot be taken for another's
 * however late it comes back; clear of the usual test tones and of a 400 Hz beep's harmonics.
 */
export const PROBE_HZ = [1700, 2300, 3100] as const;
const PROBE_LEVEL = 0.3;
const PROBE_SECONDS = 0.08;
const PROBE_SPACING_S = 1.2;
/**
 * A probe's echo is heard from this amplitude (20 dB under the probe): the way back through two
 * codecs, a jitter buffer that conceals losses and the echo service can take 15 dB or more off it.
 */
const ECHO_THRESHOLD = PROBE_LEVEL / 10;
/** An echo later than this is not the probe's. */
const MAX_ROUND_TRIP_S = 2.5;
const ANSWER_TIMEOUT_MS = 15_000;

/**
 * Calls an echo service (the platform's echo number) with the microphone, and measures how long
 * a probe beep takes to come back and how loud the microphone is as heard back. The call is an
 * ordinary call of the phone (it shows in the calls store, labelled `purpose: echo-test`) and is
 * hung up at the end. Needs Web Audio (a browser).
 */
export async function runEchoTest(
  phone: EchoTestPhone,
  number: string,
  onStage: (stage: EchoTestStage) => void = () => {},
): Promise<EchoTestResult> {
  const microphone = await phone.microphoneStream();
  const ctx = new AudioContext();
  let id: CallId | undefined;
  try {
    await ctx.resume().catch(() => undefined);
    const mic = ctx.createMediaStreamSource(microphone);
    const out = ctx.createMediaStreamDestination();
    mic.connect(out);
    const micTap = analyser(ctx);
    mic.connect(micTap);
    const probe = ctx.createOscillator();
    const envelope = ctx.createGain();
    envelope.gain.value = 0;
    probe.connect(envelope).connect(out);
    probe.start();

    onStage("calling");
    id = await phone.call(number, { microphone: out.stream, context: { purpose: "echo-test" } });
    await answered(phone.callsStore, id);
    const remote = phone.remoteStream(id);
    if (!remote) throw new Error("the echo call has no audio");
    const heard = ctx.createMediaStreamSource(remote);
    const earTap = analyser(ctx);
    heard.connect(earTap);
    // The probe's echo is looked for in the last ~0.7 s heard: a page too busy to read for a
    // while still finds it.
    const probeTap = analyser(ctx, 32768);
    heard.connect(probeTap);

    onStage("measuring");
    const start = ctx.currentTime + 0.6;
    const times = PROBE_HZ.map((hz, k) => {
      const t = start + k * PROBE_SPACING_S;
      probe.frequency.setValueAtTime(hz, t);
      envelope.gain.setValueAtTime(PROBE_LEVEL, t);
      envelope.gain.setValueAtTime(0, t + PROBE_SECONDS);
      return t;
    });
    const found = await listen(ctx, { ear: earTap, probe: probeTap, mic: micTap }, times);
    return {
      ...(found.delays.length ? { roundTripMs: Math.round(median(found.delays) * 1000) } : {}),
      probesSent: PROBE_HZ.length,
      probesHeard: found.delays.length,
      microphoneDbfs: loudestTenth(found.micLevels),
      heardBackDbfs: loudestTenth(found.earLevels),
    };
  } finally {
    if (id) await phone.hangup(id).catch(() => undefined);
    microphone.getTracks().forEach((t) => t.stop());
    await ctx.close().catch(() => undefined);
  }
}

function analyser(ctx: AudioContext, size = 4096): AnalyserNode {
  const a = ctx.createAnalyser();
  a.fftSize = size;
  a.smoothingTimeConstant = 0;
  return a;
}

function answered(store: CallsStore, id: CallId): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const call = store.getState().calls.find((c) => c.id === id);
      if (call?.state === "active") done();
      else if (!call || call.state === "ended") done(new Error(`the echo call ended: ${call?.end?.kind ?? "gone"}`));
    };
    const timer = setTimeout(() => done(new Error("the echo service did not answer")), ANSWER_TIMEOUT_MS);
    const unsubscribe = store.subscribe(check);
    function done(error?: Error) {
      clearTimeout(timer);
      unsubscribe();
      if (error) reject(error);
      else resolve();
    }
    check();
  });
}

/**
 * Reads the taps every 50 ms until every probe's echo came back or is overdue: finds each probe's
 * echo (the first onset of its pitch after it was sent, in what the long probe tap holds that was
 * not looked at yet) and takes the levels of what was said and heard, without the probes.
 */
function listen(
  ctx: AudioContext,
  taps: { ear: AnalyserNode; probe: AnalyserNode; mic: AnalyserNode },
  times: number[],
): Promise<{ delays: number[]; micLevels: number[]; earLevels: number[] }> {
  const rate = ctx.sampleRate;
  const { ear, probe, mic } = taps;
  const earBuf = new Float32Array(ear.fftSize);
  const probeBuf = new Float32Array(probe.fftSize);
  const micBuf = new Float32Array(mic.fftSize);
  const micLevels: number[] = [];
  const earLevels: number[] = [];
  /** Per probe: its round trip once heard, null once overdue, undefined while awaited. */
  const found: Array<number | null | undefined> = times.map(() => undefined);
  /** Up to when the probe tap has been looked at (a window's length is looked at again: a beep may straddle two reads). */
  let lookedAt = times[0]!;
  let lastLevelAt = 0;
  const end = times.at(-1)! + MAX_ROUND_TRIP_S + 0.2;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = ctx.currentTime;
      if (now > times[0]!) {
        probe.getFloatTimeDomainData(probeBuf);
        const bufferStart = now - probeBuf.length / rate;
        times.forEach((sent, k) => {
          if (found[k] !== undefined || now <= sent) return;
          // Only what arrived after the probe was sent can be its echo.
          const from = Math.max(0, Math.floor((Math.max(sent, lookedAt - 0.03) - bufferStart) * rate));
          const onset = toneOnset(probeBuf.subarray(from), PROBE_HZ[k]!, rate, ECHO_THRESHOLD);
          if (onset !== undefined) found[k] = bufferStart + (from + onset) / rate - sent;
          else if (now - sent > MAX_ROUND_TRIP_S) found[k] = null;
        });
        lookedAt = now;
      }
      // Levels over whole buffers that do not overlap (one every 85 ms).
      if (now - lastLevelAt >= earBuf.length / rate) {
        lastLevelAt = now;
        ear.getFloatTimeDomainData(earBuf);
        mic.getFloatTimeDomainData(micBuf);
        micLevels.push(rmsDbfs(micBuf));
        earLevels.push(withoutProbe(earBuf, rate));
      }
      if (now > end || found.every((f) => f !== undefined)) {
        clearInterval(timer);
        const delays = found.filter((f): f is number => typeof f === "number");
        resolve({ delays, micLevels, earLevels });
      }
    }, 50);
  });
}

/** The level of the samples with the probes' share taken out, dBFS. */
function withoutProbe(samples: Float32Array, rate: number): number {
  const meanSquare = 10 ** (rmsDbfs(samples) / 10);
  const probes = PROBE_HZ.reduce((sum, hz) => sum + toneAmplitude(samples, 0, samples.length, hz, rate) ** 2 / 2, 0);
  const rest = Math.max(0, meanSquare - probes);
  return rest > 0 ? Math.max(-90, 10 * Math.log10(rest)) : -90;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The level the loudest tenth of the readings reach: speech, not the pauses between words. */
export function loudestTenth(levels: number[]): number {
  if (!levels.length) return -90;
  const s = [...levels].sort((a, b) => b - a);
  return Math.round(s[Math.max(0, Math.ceil(s.length / 10) - 1)]!);
}

/** How the result reads: the delay and the level, each judged. */
export interface EchoVerdict {
  /** good < 300 ms (ITU-T G.114's comfortable one-way 150 ms, twice), fair < 500 ms, poor above; none: nothing came back. */
  delay: "good" | "fair" | "poor" | "none";
  /** silent < −60 dBFS, quiet < −40 dBFS, loud > −6 dBFS (clipping near), good otherwise. */
  level: "silent" | "quiet" | "good" | "loud";
}

export function echoVerdict(result: EchoTestResult): EchoVerdict {
  const ms = result.roundTripMs;
  const delay = ms === undefined ? "none" : ms < 300 ? "good" : ms < 500 ? "fair" : "poor";
  const db = result.heardBackDbfs;
  const level = db < -60 ? "silent" : db < -40 ? "quiet" : db > -6 ? "loud" : "good";
  return { delay, level };
}
