import type { FrameSource } from "./frame";
import type { MediaEndpoint } from "./media-endpoint";

/**
 * How a member takes part in a room.
 * - `talker`: hears the room and is heard by everyone in it (bridge, conference, three-way, barge).
 * - `listener`: hears the room, heard by nobody (monitor, eavesdrop).
 * - `whisper`: hears the room, heard only by the members listed (a supervisor coaching an agent).
 * - `held`: hears nothing and is heard by nobody; the others hear the room's hold music in its
 *   place, as FreeSWITCH plays hold music to the partner of the channel that is put on hold.
 *   The hold outlasts a move: a held member that goes to another room (to consult someone)
 *   keeps the music playing here until it comes back, is removed, or closes.
 */
export type RoomRole = "talker" | "listener" | "held" | { whisperTo: readonly MediaEndpoint[] };

/** The part of the mixer a room needs: membership is exclusive across rooms. */
export interface RoomHost {
  claim(endpoint: MediaEndpoint, room: Room): void;
  release(endpoint: MediaEndpoint, room: Room): void;
  /** Something in the room changed: who is in it, a role, what it plays. */
  roomChanged(room: Room): void;
}

/**
 * A set of endpoints that hear each other according to their roles, plus sources played to the
 * whole room (ringback, announcements). A two-party bridge is a room of two talkers. An endpoint
 * is in at most one room: adding it to another moves it, within one tick, which is how hold,
 * transfer and consult re-wire a leg.
 */
export class Room {
  private readonly roles = new Map<MediaEndpoint, RoomRole>();
  private readonly players = new Set<FrameSource>();
  /** Members that were held when they moved to another room. */
  private readonly heldAway = new Set<MediaEndpoint>();
  private holdMusicSource: FrameSource | undefined;
  private isClosed = false;

  constructor(
    private readonly host: RoomHost,
    readonly label: string,
    private readonly makeHoldMusic: () => FrameSource,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  get size(): number {
    return this.roles.size;
  }

  /** Nobody in it, nothing playing, nobody on hold elsewhere: the mixer may forget it. */
  get idle(): boolean {
    for (const away of this.heldAway) if (away.closed) this.heldAway.delete(away);
    return this.roles.size === 0 && this.players.size === 0 && this.heldAway.size === 0;
  }

  members(): MediaEndpoint[] {
    return [...this.roles.keys()];
  }

  has(endpoint: MediaEndpoint): boolean {
    return this.roles.has(endpoint);
  }

  roleOf(endpoint: MediaEndpoint): RoomRole | undefined {
    return this.roles.get(endpoint);
  }

  /** Adds (or moves here) an endpoint; if it is already a member, only its role changes. */
  add(endpoint: MediaEndpoint, role: RoomRole = "talker"): this {
    if (this.isClosed) throw new Error(`room ${this.label} is closed`);
    if (endpoint.closed) throw new Error(`endpoint ${endpoint.id} is closed`);
    if (!this.roles.has(endpoint)) this.host.claim(endpoint, this);
    this.heldAway.delete(endpoint);
    this.roles.set(endpoint, role);
    this.host.roomChanged(this);
    return this;
  }

  setRole(endpoint: MediaEndpoint, role: RoomRole): this {
    if (!this.roles.has(endpoint)) throw new Error(`${endpoint.id} is not in room ${this.label}`);
    return this.add(endpoint, role);
  }

  /** The endpoint leaves; it hears silence until it joins another room. */
  remove(endpoint: MediaEndpoint): void {
    if (this.heldAway.delete(endpoint)) this.host.roomChanged(this);
    if (!this.roles.delete(endpoint)) return;
    this.host.release(endpoint, this);
    this.host.roomChanged(this);
  }

  /** Called by the mixer when the endpoint joined another room. */
  forget(endpoint: MediaEndpoint): void {
    if (this.roles.get(endpoint) === "held") this.heldAway.add(endpoint);
    this.roles.delete(endpoint);
  }

  hold(endpoint: MediaEndpoint): this {
    return this.setRole(endpoint, "held");
  }

  /** Back to talking; a held member that went to another room is brought back here. */
  resume(endpoint: MediaEndpoint): this {
    return this.add(endpoint, "talker");
  }

  /** Plays a source to every member that hears the room, until the returned function is called. */
  play(source: FrameSource): () => void {
    this.players.add(source);
    this.host.roomChanged(this);
    return () => {
      if (this.players.delete(source)) this.host.roomChanged(this);
    };
  }

  /** The sources this room pulls every tick, whether or not anyone hears them right now. */
  sources(): FrameSource[] {
    const out = [...this.players];
    if (this.anyoneHeld()) out.push(this.holdMusic());
    return out;
  }

  /** What a member hears: the members it may hear and the room's players, in a stable order. */
  hearingOf(endpoint: MediaEndpoint): FrameSource[] {
    const role = this.roles.get(endpoint);
    if (role === undefined || role === "held") return [];
    const heard: FrameSource[] = [];
    for (const [other, otherRole] of this.roles) {
      if (other === endpoint) continue;
      if (otherRole === "talker") heard.push(other);
      else if (typeof otherRole === "object" && otherRole.whisperTo.includes(endpoint)) heard.push(other);
    }
    heard.push(...this.players);
    if (this.anyoneHeld()) heard.push(this.holdMusic());
    return heard;
  }

  /** Everyone leaves; the room can no longer be used. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const endpoint of [...this.roles.keys()]) this.remove(endpoint);
    this.players.clear();
    this.heldAway.clear();
    this.host.roomChanged(this);
  }

  private anyoneHeld(): boolean {
    for (const role of this.roles.values()) if (role === "held") return true;
    for (const away of this.heldAway) if (!away.closed) return true;
    return false;
  }

  private holdMusic(): FrameSource {
    // One stream per room, started at the first hold, so that everyone on hold in this room
    // hears the same music and a later hold continues the tune rather than restarting it.
    this.holdMusicSource ??= this.makeHoldMusic();
    return this.holdMusicSource;
  }
}
