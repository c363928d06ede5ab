/**
 * Jitter on one direction of an impaired link, shaped so that the receiver's jitter figure comes
 * out at the figure asked for.
 *
 * What a browser reports as jitter (getStats' `jitter`, libwebrtc's RTCP statistician) is RFC
 * 3550's interarrival jitter, J += (|D| − J) / 16, where D is the change in transit time between
 * two packets, taken only over packets that arrive in order: a packet older than one already
 * received is counted as received (the lost count goes down again) but leaves J alone. Two
 * consequences decide the shape:
 * - On a path that keeps packets in order, D ≥ −(the interval between packets) and D averages 0,
 *   so J averages at most twice the packet interval: 40 ms for 20 ms audio, whatever the delays.
 * - Independent random delays reorder packets, and the late ones, which carry the long delays, are
 *   left out: delays spread over 3 × 60 ms measure about 28 ms (the figure the old link gave), and
 *   no spread of them reaches 60 ms short of second-long delays.
 * So beyond a third of a packet interval the link delivers in bursts, as a path that stalls and then
 * delivers what it held (Wi-Fi, a busy uplink) does: it holds what arrives for about J plus half
 * an interval, then sends the first and the last packet it held and, right after, those between
 * them. The receiver sees two in-order packets per burst, whose transit differs by the burst's
 * length each way, so |D| ≈ J every time; the others arrive a fraction of a millisecond late, out
 * of order, so its lost count rises and falls back at once. Bursts vary from half to one and a
 * half times their length, so the figure wanders around J as a real one does. Up to a third of a
 * packet interval, each packet waits independently up to 3J, which keeps them in order (no delay
 * differs from another by more than the interval) and makes the mean |D| (a third of the spread) J.
 */
interface Burst {
  /** What is not audio, and the first audio packet. */
  first: Array<() => void>;
  hasAudio: boolean;
  /** The audio packets after the first, the last one last. */
  rest: Array<() => void>;
}

export class LinkJitter {
  private burst: Burst | undefined;
  /** ms between audio packets, as last seen (20 ms until seen). */
  private interval = 20;
  private lastAudioAt: number | undefined;

  constructor(
    private readonly later: (ms: number, run: () => void) => void,
    private readonly now: () => number,
    private readonly random: () => number,
  ) {}

  /** Lets a packet through with `jitterMs` of jitter: `send` runs when it leaves. */
  pass(jitterMs: number, audio: boolean, send: () => void): void {
    if (audio) this.noteAudio();
    if (jitterMs * 3 <= this.interval) {
      const wait = this.random() * 3 * jitterMs;
      return wait < 1 ? send() : this.later(wait, send);
    }
    let burst = this.burst;
    if (!burst) {
      const started: Burst = { first: [], hasAudio: false, rest: [] };
      this.burst = burst = started;
      const length = jitterMs + (this.interval / 2) * Math.sqrt(Math.min(1, jitterMs / this.interval));
      this.later(length * (0.5 + this.random()), () => this.release(started));
    }
    if (audio && burst.hasAudio) return void burst.rest.push(send);
    burst.hasAudio ||= audio;
    burst.first.push(send);
  }

  private release(burst: Burst): void {
    if (this.burst === burst) this.burst = undefined;
    for (const send of burst.first) send();
    const last = burst.rest.pop();
    last?.();
    for (const send of burst.rest) send();
  }

  private noteAudio(): void {
    const now = this.now();
    const gap = this.lastAudioAt === undefined ? undefined : now - this.lastAudioAt;
    this.lastAudioAt = now;
    // A gap longer than 120 ms is a pause (hold, silence suppression), not the packet interval.
    if (gap !== undefined && gap >= 5 && gap <= 120) this.interval += (gap - this.interval) / 8;
  }
}
