import { TokenBucket } from "../token-bucket";

/**
 * Shares the platform's event loop between the sources (network addresses) that send it SIP, so
 * that one of them, however much it sends, cannot hold up the others, HTTP or the event channel.
 *
 * Every frame is work on the one JavaScript thread. Each source has a budget of that thread's
 * time (`sourceShare` of every second, at most `sourceBurstMs` saved up), charged with what its
 * frames really took; and all SIP work in one turn of the event loop stops after `turnMs`. A
 * frame runs at once when its source has time left and the turn has not used its share, and
 * nothing of its connection is waiting; otherwise it waits in its connection's queue, and the
 * queues are served in later turns (after the HTTP requests and other sockets that arrived
 * meanwhile), one frame per source in turn and, within a source, per connection in turn. A
 * connection with `maxWaiting` frames waiting is no longer read (TCP then holds its sender back)
 * until half of them have been served, so waiting frames cost bounded memory.
 */
export interface FairShareOptions {
  /** Share of the thread's time one source may take, 0-1. */
  sourceShare: number;
  /** Time a source may take at once, ms. */
  sourceBurstMs: number;
  /** SIP work in one turn of the event loop before the rest waits for the next, ms. */
  turnMs: number;
  /** Frames a connection may have waiting before it is no longer read. */
  maxWaiting: number;
  now: () => number;
}

export const DEFAULT_FAIR_SHARE: Omit<FairShareOptions, "now"> = {
  sourceShare: 0.25,
  sourceBurstMs: 50,
  turnMs: 20,
  maxWaiting: 32,
};

/** A source's budget of the thread's time. */
export class SourceShare {
  readonly time: TokenBucket;
  /** Its connections that have frames waiting, served in turn. */
  readonly waiting = new Set<Lane>();

  constructor(options: FairShareOptions) {
    this.time = new TokenBucket(options.sourceBurstMs, options.sourceShare * 1000, options.now);
  }
}

/** What a connection's frames need: how to run one, and how to stop and start reading the socket. */
export interface LaneHandlers {
  run(frame: string): void;
  pause(): void;
  resume(): void;
}

/** One connection's frames, in order. */
export class Lane {
  readonly frames: string[] = [];
  paused = false;
  closed = false;

  constructor(
    private readonly share: FairShare,
    readonly source: SourceShare,
    readonly handlers: LaneHandlers,
  ) {}

  /** A frame arrived: it runs now or waits its turn. */
  push(frame: string): void {
    if (!this.closed) this.share.push(this, frame);
  }

  /** The connection closed: what waits is dropped. */
  close(): void {
    this.closed = true;
    this.frames.length = 0;
    this.source.waiting.delete(this);
  }
}

export class FairShare {
  /** Sources with frames waiting, served in turn. */
  private readonly waiting = new Set<SourceShare>();
  private turnUsed = 0;
  private turnEnds = false;
  private drainAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: FairShareOptions) {}

  lane(source: SourceShare, handlers: LaneHandlers): Lane {
    return new Lane(this, source, handlers);
  }

  /** Frames waiting, all connections together. */
  get waitingFrames(): number {
    let n = 0;
    for (const source of this.waiting) for (const lane of source.waiting) n += lane.frames.length;
    return n;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.waiting.clear();
  }

  push(lane: Lane, frame: string): void {
    if (lane.frames.length === 0 && this.mayRun(lane.source)) {
      this.run(lane, frame);
      return;
    }
    lane.frames.push(frame);
    lane.source.waiting.add(lane);
    this.waiting.add(lane.source);
    if (!lane.paused && lane.frames.length >= this.options.maxWaiting) {
      lane.paused = true;
      lane.handlers.pause();
    }
    this.schedule();
  }

  private mayRun(source: SourceShare): boolean {
    return this.turnUsed < this.options.turnMs && source.time.level() > 0;
  }

  private run(lane: Lane, frame: string): void {
    const started = this.options.now();
    try {
      lane.handlers.run(frame);
    } finally {
      const took = this.options.now() - started;
      lane.source.time.charge(took);
      this.turnUsed += took;
      if (!this.turnEnds) {
        // The turn ends once the loop has gone round: then SIP work may start again.
        this.turnEnds = true;
        setImmediate(() => {
          this.turnEnds = false;
          this.turnUsed = 0;
        });
      }
    }
  }

  /** Serves waiting frames: one per source in turn, each source's connections in turn. */
  private drain(): void {
    this.drainAt = undefined;
    this.timer = undefined;
    let served = true;
    while (served && this.turnUsed < this.options.turnMs) {
      served = false;
      for (const source of [...this.waiting]) {
        if (this.turnUsed >= this.options.turnMs) break;
        if (source.time.level() <= 0) continue;
        const [lane] = source.waiting;
        if (!lane) {
          this.waiting.delete(source);
          continue;
        }
        const frame = lane.frames.shift()!;
        // This connection and this source go to the back of their lines.
        source.waiting.delete(lane);
        if (lane.frames.length) source.waiting.add(lane);
        this.waiting.delete(source);
        if (source.waiting.size) this.waiting.add(source);
        if (lane.paused && lane.frames.length <= this.options.maxWaiting / 2) {
          lane.paused = false;
          lane.handlers.resume();
        }
        this.run(lane, frame);
        served = true;
      }
    }
    if (this.waiting.size) this.schedule();
  }

  /** Drains in the next turn, or when the first waiting source has time again. */
  private schedule(): void {
    let wait = Infinity;
    for (const source of this.waiting) wait = Math.min(wait, source.time.msUntil());
    if (wait === Infinity) return;
    const at = this.options.now() + wait;
    if (this.drainAt !== undefined && this.drainAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.drainAt = at;
    // setTimeout(0) runs after the I/O that is ready, as setImmediate would, once the turn is over.
    this.timer = setTimeout(() => this.drain(), Math.ceil(wait));
  }
}
