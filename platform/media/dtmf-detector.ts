import { FRAME_SAMPLES, SAMPLE_RATE, amplitudeOfDbfs, type Frame } from "./frame";
import { DTMF_COLUMNS, DTMF_ROWS, dtmfDigitAt, type DtmfDigit } from "./dtmf-keypad";

export interface DtmfDetectorOptions {
  /** Quietest tone accepted (each of the two frequencies), dBFS. */
  minLevelDb?: number;
  /** How much louder the column tone may be than the row tone ("normal twist"), dB. */
  maxTwistDb?: number;
  /** How much louder the row tone may be than the column tone ("reverse twist"), dB. */
  maxReverseTwistDb?: number;
  /** Consecutive agreeing windows needed to accept a digit (each window 20 ms, 10 ms apart). */
  onWindows?: number;
  /** Consecutive quiet windows that end a digit; a repeated digit needs this pause. */
  offWindows?: number;
  /** Windows of other sound (not quiet, not the digit) that end a digit: a codec glitch inside
   * a tone is shorter than this and must not split the digit in two. */
  maxDropoutWindows?: number;
}

const FREQUENCIES = [...DTMF_ROWS, ...DTMF_COLUMNS];
/** Each window spans two frames (20 ms at 48 kHz, 50 Hz resolution), one window per frame. */
const WINDOW_SAMPLES = 2 * FRAME_SAMPLES;
/** Share of the window's power the two tones must carry: speech and music spread theirs. */
const MIN_TONE_SHARE = 0.6;
/** How far the strongest tone of a group must exceed the next one of the same group. */
const MIN_GROUP_MARGIN_DB = 6;

/**
 * In-band DTMF receiver. Every 10 ms it looks at the last 20 ms, measuring the eight keypad
 * frequencies with single-bin DFTs (a Goertzel bank, computed per frame and combined, so each
 * sample is visited once). A window shows a digit when one row and one column frequency stand out
 * in their groups, their levels are within the twist limits and together they carry most of the
 * window's power. A digit is accepted after `onWindows` agreeing windows (about 30 ms of tone).
 * It ends after `offWindows` quiet windows (15 dB below the digit: the pause between key
 * presses), or after `maxDropoutWindows` windows of anything else. The second rule is longer
 * because an Opus or jitter-buffer glitch inside a tone briefly distorts it without making it
 * quiet; ending the digit there would count one key press twice.
 */
export class DtmfDetector {
  private readonly cos: Float64Array[];
  private readonly sin: Float64Array[];
  /** e^{-jω·480} per frequency: shifts the second frame's DFT to the window's time origin. */
  private readonly shiftRe: Float64Array;
  private readonly shiftIm: Float64Array;
  private previous: { re: Float64Array; im: Float64Array; energy: number } | undefined;
  private readonly minPower: number;
  private readonly maxTwistDb: number;
  private readonly maxReverseTwistDb: number;
  private readonly onWindows: number;
  private readonly offWindows: number;
  private readonly maxDropoutWindows: number;
  private current: DtmfDigit | null = null;
  private currentPower = 0;
  private quietRun = 0;
  private missingRun = 0;
  private candidate: DtmfDigit | null = null;
  private candidateCount = 0;
  private heard = "";
  private readonly listeners = new Set<(digit: DtmfDigit) => void>();

  constructor(options: DtmfDetectorOptions = {}) {
    this.cos = FREQUENCIES.map((f) =>
      Float64Array.from({ length: FRAME_SAMPLES }, (_, n) => Math.cos((2 * Math.PI * f * n) / SAMPLE_RATE)),
    );
    this.sin = FREQUENCIES.map((f) =>
      Float64Array.from({ length: FRAME_SAMPLES }, (_, n) => Math.sin((2 * Math.PI * f * n) / SAMPLE_RATE)),
    );
    this.shiftRe = Float64Array.from(FREQUENCIES, (f) => Math.cos((2 * Math.PI * f * FRAME_SAMPLES) / SAMPLE_RATE));
    this.shiftIm = Float64Array.from(FREQUENCIES, (f) => -Math.sin((2 * Math.PI * f * FRAME_SAMPLES) / SAMPLE_RATE));
    const amplitude = amplitudeOfDbfs(options.minLevelDb ?? -40);
    this.minPower = (amplitude * amplitude) / 2;
    this.maxTwistDb = options.maxTwistDb ?? 8;
    this.maxReverseTwistDb = options.maxReverseTwistDb ?? 8;
    this.onWindows = options.onWindows ?? 2;
    this.offWindows = options.offWindows ?? 2;
    this.maxDropoutWindows = options.maxDropoutWindows ?? 5;
  }

  /** Digits received so far. */
  get digits(): string {
    return this.heard;
  }

  /** Returns the digits received so far and forgets them. */
  take(): string {
    const out = this.heard;
    this.heard = "";
    return out;
  }

  onDigit(listener: (digit: DtmfDigit) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  push(frame: Frame): void {
    const re = new Float64Array(FREQUENCIES.length);
    const im = new Float64Array(FREQUENCIES.length);
    let energy = 0;
    for (let n = 0; n < FRAME_SAMPLES; n++) energy += frame[n]! * frame[n]!;
    // A frame too quiet to hold even one tone at the minimum level adds nothing a window could
    // accept; skipping its DFTs makes listening to silence nearly free.
    const audible = energy / FRAME_SAMPLES >= this.minPower / 2;
    for (let k = 0; audible && k < FREQUENCIES.length; k++) {
      const c = this.cos[k]!;
      const s = this.sin[k]!;
      let sr = 0;
      let si = 0;
      for (let n = 0; n < FRAME_SAMPLES; n++) {
        const x = frame[n]!;
        sr += x * c[n]!;
        si -= x * s[n]!;
      }
      re[k] = sr;
      im[k] = si;
    }
    const previous = this.previous;
    this.previous = { re, im, energy };
    if (!previous) return;
    const windowPower = (previous.energy + energy) / WINDOW_SAMPLES;
    this.step(this.classify(previous, { re, im, energy }), windowPower);
  }

  private classify(
    first: { re: Float64Array; im: Float64Array; energy: number },
    second: { re: Float64Array; im: Float64Array; energy: number },
  ): DtmfDigit | null {
    const totalPower = (first.energy + second.energy) / WINDOW_SAMPLES;
    if (totalPower < 2 * this.minPower) return null;
    const power = new Float64Array(FREQUENCIES.length);
    for (let k = 0; k < FREQUENCIES.length; k++) {
      const r = first.re[k]! + second.re[k]! * this.shiftRe[k]! - second.im[k]! * this.shiftIm[k]!;
      const i = first.im[k]! + second.re[k]! * this.shiftIm[k]! + second.im[k]! * this.shiftRe[k]!;
      // A sine of amplitude A on the bin gives |X| = A·N/2; its power is A²/2.
      power[k] = (2 * (r * r + i * i)) / (WINDOW_SAMPLES * WINDOW_SAMPLES);
    }
    const row = strongest(power, 0, 4);
    const column = strongest(power, 4, 8);
    const rowPower = power[row.index]!;
    const columnPower = power[column.index]!;
    if (rowPower < this.minPower || columnPower < this.minPower) return null;
    if (row.marginDb < MIN_GROUP_MARGIN_DB || column.marginDb < MIN_GROUP_MARGIN_DB) return null;
    const twistDb = 10 * Math.log10(columnPower / rowPower);
    if (twistDb > this.maxTwistDb || -twistDb > this.maxReverseTwistDb) return null;
    if (rowPower + columnPower < MIN_TONE_SHARE * totalPower) return null;
    return dtmfDigitAt(row.index, column.index - 4);
  }

  private step(seen: DtmfDigit | null, windowPower: number): void {
    if (this.current !== null) {
      if (seen === this.current) {
        this.quietRun = 0;
        this.missingRun = 0;
      } else {
        this.missingRun++;
        this.quietRun = windowPower < this.currentPower / 30 ? this.quietRun + 1 : 0;
        if (this.quietRun >= this.offWindows || this.missingRun >= this.maxDropoutWindows) this.current = null;
      }
    }
    if (seen !== null && seen === this.candidate) this.candidateCount++;
    else {
      this.candidate = seen;
      this.candidateCount = seen === null ? 0 : 1;
    }
    // A different digit that holds for `onWindows` replaces the current one without a pause.
    if (this.candidate !== null && this.candidate !== this.current && this.candidateCount >= this.onWindows) {
      this.current = this.candidate;
      this.currentPower = windowPower;
      this.quietRun = 0;
      this.missingRun = 0;
      this.heard += this.candidate;
      for (const listener of this.listeners) listener(this.candidate);
    }
  }
}

function strongest(power: Float64Array, from: number, to: number): { index: number; marginDb: number } {
  let best = from;
  for (let k = from + 1; k < to; k++) if (power[k]! > power[best]!) best = k;
  let second = 0;
  for (let k = from; k < to; k++) if (k !== best && power[k]! > second) second = power[k]!;
  const marginDb = second > 0 ? 10 * Math.log10(power[best]! / second) : Infinity;
  return { index: best, marginDb };
}
