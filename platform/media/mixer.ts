import { FRAME_SAMPLES, type Frame, type FrameSource } from "./frame";
import type { MediaEndpoint } from "./media-endpoint";
import { Room, type RoomHost } from "./room";

export interface MixerOptions {
  /** Makes the hold music of a room; called at most once per room, at its first hold. */
  holdMusic: () => FrameSource;
}

/**
 * Computes, every tick, what each endpoint hears: the clipped sum of the frames of the sources
 * it listens to. Who listens to whom comes from the rooms (bridge, conference, monitor, whisper,
 * hold, early media); an endpoint in no room hears silence. Changes made between two ticks take
 * effect together at the next one, and a listener whose sources changed gets one frame that
 * cross-fades from the old mix to the new, so hold, resume, transfer and consult switch within
 * one 10 ms frame and without a click.
 */
export class Mixer implements RoomHost {
  private readonly endpoints = new Set<MediaEndpoint>();
  private readonly rooms = new Set<Room>();
  private readonly roomOf = new Map<MediaEndpoint, Room>();
  private readonly unsubscribe = new Map<MediaEndpoint, () => void>();
  private hearing = new Map<MediaEndpoint, FrameSource[]>();
  private previousHearing = new Map<MediaEndpoint, FrameSource[]>();
  private pulledSources: FrameSource[] = [];
  private stale = true;
  private readonly accumulator = new Int32Array(FRAME_SAMPLES);

  constructor(private readonly options: MixerOptions) {}

  /** Registers an endpoint: from the next tick it is read and hears silence until it joins a room. */
  add(endpoint: MediaEndpoint): void {
    if (this.endpoints.has(endpoint)) return;
    if (endpoint.closed) throw new Error(`endpoint ${endpoint.id} is closed`);
    this.endpoints.add(endpoint);
    this.unsubscribe.set(
      endpoint,
      endpoint.onClose(() => this.remove(endpoint)),
    );
    this.stale = true;
  }

  remove(endpoint: MediaEndpoint): void {
    if (!this.endpoints.delete(endpoint)) return;
    this.unsubscribe.get(endpoint)?.();
    this.unsubscribe.delete(endpoint);
    const room = this.roomOf.get(endpoint);
    if (room) room.remove(endpoint);
    this.previousHearing.delete(endpoint);
    this.stale = true;
  }

  createRoom(label: string): Room {
    return new Room(this, label, this.options.holdMusic);
  }

  /** The room an endpoint is in, if any. */
  roomFor(endpoint: MediaEndpoint): Room | undefined {
    return this.roomOf.get(endpoint);
  }

  /** Labels of what an endpoint hears right now, for logs and diagnostics. */
  hearingOf(endpoint: MediaEndpoint): string[] {
    this.rebuildIfStale();
    return (this.hearing.get(endpoint) ?? []).map((s) => s.label);
  }

  get endpointCount(): number {
    return this.endpoints.size;
  }

  /** Rooms with someone or something in them. */
  get roomCount(): number {
    this.rebuildIfStale();
    return this.rooms.size;
  }

  claim(endpoint: MediaEndpoint, room: Room): void {
    this.add(endpoint);
    const previous = this.roomOf.get(endpoint);
    if (previous && previous !== room) previous.forget(endpoint);
    this.roomOf.set(endpoint, room);
    this.stale = true;
  }

  release(endpoint: MediaEndpoint, room: Room): void {
    if (this.roomOf.get(endpoint) === room) this.roomOf.delete(endpoint);
    this.stale = true;
  }

  roomChanged(room: Room): void {
    // Rooms are tracked only while they have something in them, so that a room the caller
    // forgot to close costs nothing once its call has moved on.
    if (!room.closed) this.rooms.add(room);
    this.stale = true;
  }

  /** One media tick: read everything that speaks, mix, deliver to everything that hears. */
  tick(): void {
    this.rebuildIfStale();

    const frames = new Map<FrameSource, Frame | null>();
    const pull = (source: FrameSource) => {
      if (!frames.has(source)) frames.set(source, source.nextFrame());
    };
    for (const endpoint of this.endpoints) pull(endpoint);
    for (const source of this.pulledSources) pull(source);

    const changed = new Map<MediaEndpoint, FrameSource[]>();
    for (const endpoint of this.endpoints) {
      const before = this.previousHearing.get(endpoint) ?? [];
      if (!sameSources(before, this.hearing.get(endpoint) ?? [])) {
        changed.set(endpoint, before);
        // A source that just left (a stopped ringback) is read once more so it can fade out.
        for (const source of before) pull(source);
      }
    }

    for (const endpoint of [...this.endpoints]) {
      const now = this.hearing.get(endpoint) ?? [];
      const mixed = this.mix(now, frames);
      const before = changed.get(endpoint);
      endpoint.deliver(before ? crossfade(this.mix(before, frames), mixed) : mixed);
    }
    this.previousHearing = this.hearing;
  }

  private rebuildIfStale(): void {
    if (!this.stale) return;
    this.stale = false;
    const hearing = new Map<MediaEndpoint, FrameSource[]>();
    for (const endpoint of this.endpoints) hearing.set(endpoint, this.roomOf.get(endpoint)?.hearingOf(endpoint) ?? []);
    const sources = new Set<FrameSource>();
    for (const room of this.rooms) {
      if (room.closed || room.idle) this.rooms.delete(room);
      else for (const source of room.sources()) sources.add(source);
    }
    this.hearing = hearing;
    this.pulledSources = [...sources];
  }

  private mix(sources: readonly FrameSource[], frames: Map<FrameSource, Frame | null>): Frame {
    const out = new Int16Array(FRAME_SAMPLES);
    const present: Frame[] = [];
    for (const source of sources) {
      const frame = frames.get(source);
      if (frame) present.push(frame);
    }
    if (present.length === 0) return out;
    if (present.length === 1) {
      out.set(present[0]!);
      return out;
    }
    const acc = this.accumulator;
    acc.fill(0);
    for (const frame of present) for (let i = 0; i < FRAME_SAMPLES; i++) acc[i]! += frame[i]!;
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const v = acc[i]!;
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    return out;
  }
}

function sameSources(a: readonly FrameSource[], b: readonly FrameSource[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function crossfade(from: Frame, to: Frame): Frame {
  const out = new Int16Array(FRAME_SAMPLES);
  for (let i = 0; i < FRAME_SAMPLES; i++) {
    const w = (i + 1) / FRAME_SAMPLES;
    out[i] = Math.round(from[i]! * (1 - w) + to[i]! * w);
  }
  return out;
}
