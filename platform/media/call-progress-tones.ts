import { ToneGenerator } from "./tone-generator";

/**
 * Call-progress tones of the Chinese network (YD/T 1186, FreeSWITCH's `cn-ring`), because the
 * real platform is sold mainly there: one 450 Hz tone, told apart by its cadence. A test that
 * wants to tell ringback from a party's tone should give the party a frequency at least 20 Hz
 * away from 450 Hz (the default test tones 440 Hz and 1000 Hz are read apart reliably when
 * they are heard alone, but not when mixed with ringback).
 */
export const CALL_PROGRESS_FREQUENCY = 450;

/** Ringback (early media to a caller): 450 Hz, 1 s on, 4 s off. */
export function ringbackTone(): ToneGenerator {
  return new ToneGenerator({
    frequencies: [CALL_PROGRESS_FREQUENCY],
    levelDb: -14,
    cadenceMs: [1000, 4000],
    label: "ringback",
  });
}

/** Busy: 450 Hz, 350 ms on, 350 ms off. */
export function busyTone(): ToneGenerator {
  return new ToneGenerator({
    frequencies: [CALL_PROGRESS_FREQUENCY],
    levelDb: -14,
    cadenceMs: [350, 350],
    label: "busy",
  });
}

/**
 * A short cue (recording starts, a supervisor joins): one 1400 Hz beep of 200 ms, then nothing.
 * 1400 Hz is clear of the call-progress tone, of the hold-music notes and of the DTMF
 * acceptance bands (±3.5 % around 1336 and 1477 Hz).
 */
export const CUE_FREQUENCY = 1400;

export function cueTone(): ToneGenerator {
  return new ToneGenerator({
    frequencies: [CUE_FREQUENCY],
    levelDb: -12,
    cadenceMs: [200],
    repeat: false,
    label: "cue",
  });
}
