import { FRAME_SAMPLES, type Frame } from "./frame";

/**
 * Switches one direction of audio on and off without a click: the first frame after a switch is
 * ramped linearly over its 10 ms instead of jumping between full level and silence.
 */
export class FadeGate {
  private open = true;
  private ramp: "in" | "out" | undefined;

  get enabled(): boolean {
    return this.open;
  }

  set enabled(value: boolean) {
    if (value === this.open) return;
    this.open = value;
    this.ramp = value ? "in" : "out";
  }

  /** The frame as it passes the gate; null when the gate is closed and fully faded out. */
  pass(frame: Frame | null): Frame | null {
    const ramp = this.ramp;
    this.ramp = undefined;
    if (!ramp) return this.open ? frame : null;
    if (!frame) return null;
    const out = new Int16Array(FRAME_SAMPLES);
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const w = (i + 1) / FRAME_SAMPLES;
      out[i] = Math.round((frame[i] ?? 0) * (ramp === "in" ? w : 1 - w));
    }
    return out;
  }
}
