import { FRAME_SAMPLES, SAMPLE_RATE, dbfsOfAmplitude, type Frame } from "./frame";
import { Fft } from "./fft";

export interface DetectedTone {
  frequency: number;
  /** Peak level of the sinusoid, dBFS. */
  levelDb: number;
}

export interface ToneAnalysis {
  /** Tones present in the window, strongest first. */
  tones: DetectedTone[];
  /** RMS level of the whole window, dBFS (a full-scale sine reads -3 dBFS). */
  levelDb: number;
  /** Samples seen by the detector when the window ended. */
  endSample: number;
}

export interface ToneDetectorOptions {
  /** Window length in samples, a power of two: 8192 = 171 ms, 5.9 Hz per bin. */
  windowSamples?: number;
  /** Frames between two analyses: 5 = a new analysis every 50 ms. */
  hopFrames?: number;
  /** Quietest tone reported, dBFS. */
  minLevelDb?: number;
  /** How far a tone's peak must stand above the median of the spectrum (noise, codec hiss). */
  minSnrDb?: number;
  /** Tones weaker than the strongest by more than this are ignored (overtones, side lobes). */
  maxBelowStrongestDb?: number;
  minHz?: number;
  maxHz?: number;
  /** Analyses kept for `history`. */
  historyLength?: number;
}

/** Tolerance used when a caller asks about a frequency without giving one. */
export function defaultToleranceHz(frequency: number): number {
  return Math.max(3, frequency * 0.01);
}

/**
 * Finds the tones in what an endpoint hears: a Hann-windowed FFT over the last 171 ms, redone
 * every 50 ms, whose spectral peaks are reported with an interpolated frequency (about ±1 Hz)
 * and a level. Because it returns every peak that stands out, it tells "hears 440 Hz and not
 * 1000 Hz" apart from "hears both" (a three-way mix). Thresholds are relative to the noise floor
 * and to the strongest tone, so Opus coding noise and added noise do not create tones. Two tones
 * closer than about 18 Hz are read as one.
 */
export class ToneDetector {
  private readonly size: number;
  private readonly hopFrames: number;
  private readonly minLevelDb: number;
  private readonly minSnrDb: number;
  private readonly maxBelowStrongestDb: number;
  private readonly minBin: number;
  private readonly maxBin: number;
  private readonly historyLength: number;
  private readonly fft: Fft;
  private readonly window: Float64Array;
  private readonly windowEnergy: number;
  private readonly ring: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly power: Float64Array;
  private written = 0;
  private framesSinceAnalysis = 0;
  private readonly analyses: ToneAnalysis[] = [];
  private readonly listeners = new Set<(analysis: ToneAnalysis) => void>();

  constructor(options: ToneDetectorOptions = {}) {
    this.size = options.windowSamples ?? 8192;
    this.hopFrames = options.hopFrames ?? 5;
    this.minLevelDb = options.minLevelDb ?? -50;
    this.minSnrDb = options.minSnrDb ?? 15;
    this.maxBelowStrongestDb = options.maxBelowStrongestDb ?? 30;
    this.historyLength = options.historyLength ?? 100;
    const binHz = SAMPLE_RATE / this.size;
    this.minBin = Math.max(4, Math.floor((options.minHz ?? 60) / binHz));
    this.maxBin = Math.min(this.size / 2 - 4, Math.ceil((options.maxHz ?? 8000) / binHz));
    this.fft = new Fft(this.size);
    this.window = new Float64Array(this.size);
    let energy = 0;
    for (let i = 0; i < this.size; i++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / this.size);
      this.window[i] = w;
      energy += w * w;
    }
    this.windowEnergy = energy;
    this.ring = new Float64Array(this.size);
    this.re = new Float64Array(this.size);
    this.im = new Float64Array(this.size);
    this.power = new Float64Array(this.size / 2);
  }

  push(frame: Frame): void {
    for (let i = 0; i < frame.length; i++) this.ring[(this.written + i) % this.size] = frame[i]!;
    this.written += frame.length;
    if (++this.framesSinceAnalysis < this.hopFrames || this.written < this.size) return;
    this.framesSinceAnalysis = 0;
    const analysis = this.analyse();
    this.analyses.push(analysis);
    if (this.analyses.length > this.historyLength) this.analyses.shift();
    for (const listener of this.listeners) listener(analysis);
  }

  get latest(): ToneAnalysis | undefined {
    return this.analyses.at(-1);
  }

  get history(): readonly ToneAnalysis[] {
    return this.analyses;
  }

  /** Analyses covering about the last `ms` milliseconds. */
  recent(ms: number): ToneAnalysis[] {
    const count = Math.max(1, Math.round(ms / ((this.hopFrames * FRAME_SAMPLES * 1000) / SAMPLE_RATE)));
    return this.analyses.slice(-count);
  }

  /** Whether the latest window holds a tone at this frequency. */
  hears(frequency: number, toleranceHz = defaultToleranceHz(frequency)): boolean {
    const latest = this.latest;
    return latest !== undefined && hasTone(latest, frequency, toleranceHz);
  }

  /** Share of the analyses of the last `ms` that hold a tone at this frequency (0..1). */
  presence(frequency: number, ms: number, toleranceHz = defaultToleranceHz(frequency)): number {
    const windows = this.recent(ms);
    if (windows.length === 0) return 0;
    return windows.filter((a) => hasTone(a, frequency, toleranceHz)).length / windows.length;
  }

  /** The strongest tone of the latest window. */
  dominant(): DetectedTone | undefined {
    return this.latest?.tones[0];
  }

  onAnalysis(listener: (analysis: ToneAnalysis) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  reset(): void {
    this.analyses.length = 0;
    this.ring.fill(0);
    this.written = 0;
    this.framesSinceAnalysis = 0;
  }

  private analyse(): ToneAnalysis {
    const n = this.size;
    const start = this.written % n;
    let sumSquares = 0;
    for (let i = 0; i < n; i++) {
      const s = this.ring[(start + i) % n]!;
      sumSquares += s * s;
      this.re[i] = s * this.window[i]!;
      this.im[i] = 0;
    }
    this.fft.transform(this.re, this.im);
    const p = this.power;
    for (let k = 0; k < n / 2; k++) p[k] = this.re[k]! * this.re[k]! + this.im[k]! * this.im[k]!;

    const band = Array.from(p.subarray(this.minBin, this.maxBin + 1)).sort((a, b) => a - b);
    const floor = band[band.length >> 1] ?? 0;

    const candidates: DetectedTone[] = [];
    for (let k = this.minBin; k <= this.maxBin; k++) {
      const peak = p[k]!;
      if (peak <= 0 || !isLocalMaximum(p, k, 3)) continue;
      if (floor > 0 && 10 * Math.log10(peak / floor) < this.minSnrDb) continue;
      let lobe = 0;
      for (let j = -2; j <= 2; j++) lobe += p[k + j]!;
      // Parseval: the positive-frequency main lobe of a Hann-windowed sine of amplitude A holds
      // N·A²·Σw²/4, whatever the tone's offset from the bin centre.
      const amplitude = Math.sqrt((4 * lobe) / (n * this.windowEnergy));
      const levelDb = dbfsOfAmplitude(amplitude);
      if (levelDb < this.minLevelDb) continue;
      candidates.push({ frequency: this.interpolate(k), levelDb });
    }
    candidates.sort((a, b) => b.levelDb - a.levelDb);
    const strongest = candidates[0]?.levelDb ?? -Infinity;
    const tones = candidates.filter((t) => t.levelDb >= strongest - this.maxBelowStrongestDb);
    return { tones, levelDb: dbfsOfAmplitude(Math.sqrt(sumSquares / n)), endSample: this.written };
  }

  /** Peak position between bins by a parabola through the log power (exact for a Gaussian lobe). */
  private interpolate(k: number): number {
    const a = Math.log(this.power[k - 1]! + 1e-12);
    const b = Math.log(this.power[k]! + 1e-12);
    const c = Math.log(this.power[k + 1]! + 1e-12);
    const denominator = a - 2 * b + c;
    const offset = denominator === 0 ? 0 : (0.5 * (a - c)) / denominator;
    return ((k + offset) * SAMPLE_RATE) / this.size;
  }
}

export function hasTone(
  analysis: ToneAnalysis,
  frequency: number,
  toleranceHz = defaultToleranceHz(frequency),
): boolean {
  return analysis.tones.some((t) => Math.abs(t.frequency - frequency) <= toleranceHz);
}

function isLocalMaximum(p: Float64Array, k: number, reach: number): boolean {
  const v = p[k]!;
  for (let j = 1; j <= reach; j++) {
    if (p[k - j]! > v || p[k + j]! >= v) return false;
  }
  return true;
}
