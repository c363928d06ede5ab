import { FadeGate } from "./fade-gate";
import type { Frame, FrameSource } from "./frame";

/** Sees, once per tick, what an endpoint said into the mix (null: nothing) and what it heard. */
export type FrameTap = (said: Frame | null, heard: Frame) => void;

let nextId = 1;

/**
 * One party of the media plane: a WebRTC leg of a browser, or a simulated party. Its input is
 * what it says, its output is what it hears; the mixer pulls the first and pushes the second
 * exactly once per tick. Both directions can be switched off (mute, hold) without clicks.
 */
export abstract class MediaEndpoint implements FrameSource {
  readonly id: string;
  private readonly inputGate = new FadeGate();
  private readonly outputGate = new FadeGate();
  private readonly taps = new Set<FrameTap>();
  private readonly closeListeners = new Set<() => void>();
  private lastSaid: Frame | null = null;
  private isClosed = false;

  protected constructor(readonly label: string) {
    this.id = `${label}#${nextId++}`;
  }

  /** What the endpoint produced this tick, before muting. Called every tick, muted or not. */
  protected abstract readInput(): Frame | null;
  /** Hands what the endpoint hears to its far end. Called every tick with a frame. */
  protected abstract writeOutput(frame: Frame): void;
  /** Releases what the concrete endpoint holds (tracks, sinks). */
  protected abstract release(): void;

  get closed(): boolean {
    return this.isClosed;
  }

  /** Whether what this endpoint says reaches the mix (false: muted, or held). */
  get inputEnabled(): boolean {
    return this.inputGate.enabled;
  }

  set inputEnabled(value: boolean) {
    this.inputGate.enabled = value;
  }

  /** Whether this endpoint's far end receives what it hears (false: it gets silence). */
  get outputEnabled(): boolean {
    return this.outputGate.enabled;
  }

  set outputEnabled(value: boolean) {
    this.outputGate.enabled = value;
  }

  nextFrame(): Frame | null {
    // Read even when muted, so that a muted leg's buffers keep draining and unmuting does not
    // replay stale audio.
    const raw = this.isClosed ? null : this.readInput();
    this.lastSaid = this.inputGate.pass(raw);
    return this.lastSaid;
  }

  /** Called by the mixer once per tick, after `nextFrame`, with what this endpoint hears. */
  deliver(heard: Frame): void {
    if (this.isClosed) return;
    const out = this.outputGate.pass(heard) ?? new Int16Array(heard.length);
    this.writeOutput(out);
    for (const tap of this.taps) tap(this.lastSaid, out);
  }

  /** Observes the audio exchanged each tick: recorders and detectors hang here. */
  tap(tap: FrameTap): () => void {
    this.taps.add(tap);
    return () => this.taps.delete(tap);
  }

  onHeard(listener: (frame: Frame) => void): () => void {
    return this.tap((_said, heard) => listener(heard));
  }

  /** What this endpoint says into the mix; silence while it is muted or has nothing to say. */
  onSaid(listener: (frame: Frame) => void): () => void {
    return this.tap((said, heard) => listener(said ?? new Int16Array(heard.length)));
  }

  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.taps.clear();
    try {
      this.release();
    } finally {
      for (const listener of this.closeListeners) listener();
      this.closeListeners.clear();
    }
  }
}
