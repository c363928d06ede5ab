import { FRAME_SAMPLES, SAMPLE_RATE, amplitudeOfDbfs, type Frame, type FrameSource } from "./frame";
import { Oscillator, toPcm } from "./oscillator";
import type { ToneAnalysis } from "./tone-detector";

/**
 * The notes of the hold melody (F4, G4, C5, D5). Chosen so that hold music cannot be mistaken for
 * a test tone or a signal: none is within 5 % of 440 Hz, 1000 Hz, the 450 Hz call-progress tone
 * or a DTMF frequency, and their overtones never form a DTMF pair.
 */
export const HOLD_MUSIC_NOTES = [349.23, 392.0, 523.25, 587.33] as const;

const [F4, G4, C5, D5] = HOLD_MUSIC_NOTES;
/** A two-second loop of eighth notes at 120 bpm. */
const MELODY = [C5, D5, C5, G4, F4, G4, C5, G4];
const NOTE_SAMPLES = SAMPLE_RATE / 4;
const ATTACK_SAMPLES = Math.round(SAMPLE_RATE * 0.01);
const RELEASE_SAMPLES = Math.round(SAMPLE_RATE * 0.02);
/** Relative levels of the fundamental and its overtones: a soft, organ-like timbre. */
const PARTIALS = [1, 0.35, 0.12];

/**
 * Generated hold music: a looping eight-note melody with a plucked envelope and two overtones.
 * It sounds like a tune, and its spectrum moves between four known notes, which is how a test
 * recognises it (see `recognizesHoldMusic`).
 */
export class HoldMusic implements FrameSource {
  readonly label = "hold music";
  private position = 0;
  private readonly amplitude: number;
  private oscillators: Oscillator[] = [];
  private noteIndex = -1;
  private readonly mix = new Float32Array(FRAME_SAMPLES);
  private readonly gain = new Float32Array(FRAME_SAMPLES);

  constructor(levelDb = -14) {
    this.amplitude = amplitudeOfDbfs(levelDb);
  }

  nextFrame(): Frame {
    this.mix.fill(0);
    let from = 0;
    while (from < FRAME_SAMPLES) {
      const inNote = this.position % NOTE_SAMPLES;
      const to = Math.min(FRAME_SAMPLES, from + NOTE_SAMPLES - inNote);
      const index = Math.floor(this.position / NOTE_SAMPLES) % MELODY.length;
      if (index !== this.noteIndex) {
        this.noteIndex = index;
        const note = MELODY[index]!;
        this.oscillators = PARTIALS.map((_, k) => new Oscillator(note * (k + 1)));
      }
      for (let i = from; i < to; i++) this.gain[i] = envelope(inNote + i - from);
      this.oscillators.forEach((o, k) => o.addTo(this.mix, this.amplitude * PARTIALS[k]!, this.gain, from, to));
      this.position += to - from;
      from = to;
    }
    return toPcm(this.mix);
  }
}

function envelope(sampleInNote: number): number {
  const attack = Math.min(1, sampleInNote / ATTACK_SAMPLES);
  const decay = Math.exp((-1.5 * sampleInNote) / NOTE_SAMPLES);
  const release = Math.min(1, (NOTE_SAMPLES - sampleInNote) / RELEASE_SAMPLES);
  return attack * decay * release;
}

/**
 * Whether a run of tone analyses (at least two seconds of listening) is hold music: sound is
 * present in most windows, and the tones heard step through at least three different notes of
 * the hold melody. A steady test tone, ringback, silence or speech-like noise fails: they hit no
 * melody note, or only one.
 */
export function recognizesHoldMusic(analyses: readonly ToneAnalysis[], toleranceRatio = 0.015): boolean {
  if (analyses.length === 0) return false;
  const voiced = analyses.filter((a) => a.levelDb > -50).length;
  if (voiced < analyses.length * 0.8) return false;
  const notesHeard = new Set<number>();
  for (const analysis of analyses) {
    for (const tone of analysis.tones) {
      const note = HOLD_MUSIC_NOTES.find((n) => Math.abs(tone.frequency - n) <= n * toleranceRatio);
      if (note !== undefined) notesHeard.add(note);
    }
  }
  return notesHeard.size >= 3;
}
