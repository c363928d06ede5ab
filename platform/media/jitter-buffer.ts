import type { Frame } from "./frame";

export interface JitterBufferStats {
  /** Frames currently queued. */
  depth: number;
  received: number;
  played: number;
  /** Ticks after the first frame that found the buffer empty and played silence instead. */
  underruns: number;
  /** Frames dropped because the buffer was full (oldest first). */
  overruns: number;
  /** Frames dropped to bring a persistently deep buffer back to its target latency. */
  trimmed: number;
}

export interface JitterBufferOptions {
  /** Frames held at most; beyond it the oldest are dropped. */
  capacity?: number;
  /** Depth the buffer settles back to when it has stayed deeper for a whole trim window. */
  targetDepth?: number;
  /** Number of reads over which the minimum depth is watched before trimming. */
  trimWindow?: number;
}

/**
 * Decouples the sink's delivery from the media clock. The sink and the clock run off the same
 * machine clock, so there is no long-term drift, but wrtc delivers in bursts (measured: median
 * 10 ms apart, p99 33 ms, max 46 ms), so a few frames of slack are needed. A burst that never
 * drains would keep its latency for the rest of the call; the trim drops the excess once the
 * buffer has not gone below the target for a whole window.
 *
 * The buffer starts with the first frame that has sound in it. Before its first packet a decoder
 * hands over digital silence (wrtc's sink: zeros every 10 ms from the moment the answer is set,
 * often two or three at once), and queued, those frames stood in front of the call's first words
 * for the rest of the call. Nothing has arrived yet, so nothing is queued: a switch's RTP path
 * likewise has nothing to play before the first packet.
 */
export class JitterBuffer {
  private readonly queue: Frame[] = [];
  private readonly capacity: number;
  private readonly targetDepth: number;
  private readonly trimWindow: number;
  private minDepthInWindow = Infinity;
  private readsInWindow = 0;
  private counts = { received: 0, played: 0, underruns: 0, overruns: 0, trimmed: 0 };

  constructor(options: JitterBufferOptions = {}) {
    this.capacity = options.capacity ?? 10;
    this.targetDepth = options.targetDepth ?? 3;
    this.trimWindow = options.trimWindow ?? 200;
  }

  push(frame: Frame): void {
    if (this.counts.received === 0 && isDigitalSilence(frame)) return;
    this.counts.received++;
    this.queue.push(frame);
    while (this.queue.length > this.capacity) {
      this.queue.shift();
      this.counts.overruns++;
    }
  }

  /** The next frame to play, or null (an underrun) when none has arrived. */
  pull(): Frame | null {
    this.minDepthInWindow = Math.min(this.minDepthInWindow, this.queue.length);
    if (++this.readsInWindow >= this.trimWindow) {
      const excess = this.minDepthInWindow - this.targetDepth;
      for (let i = 0; i < excess; i++) {
        this.queue.shift();
        this.counts.trimmed++;
      }
      this.readsInWindow = 0;
      this.minDepthInWindow = Infinity;
    }
    const frame = this.queue.shift();
    if (!frame) {
      // Before the first frame the call is still being set up; that silence is not a fault.
      if (this.counts.received > 0) this.counts.underruns++;
      return null;
    }
    this.counts.played++;
    return frame;
  }

  /** Forgets queued audio, e.g. when the input is muted, so that unmuting does not replay it. */
  clear(): void {
    this.queue.length = 0;
  }

  stats(): JitterBufferStats {
    return { depth: this.queue.length, ...this.counts };
  }
}

function isDigitalSilence(frame: Frame): boolean {
  for (let i = 0; i < frame.length; i++) if (frame[i] !== 0) return false;
  return true;
}
