import { EventEmitter } from "node:events";
import {
  HoldMusic,
  ToneGenerator,
  busyTone,
  ringbackTone,
  type CallRecorder,
  type FrameSource,
  type MediaEndpoint,
  type MediaPlane,
  type Room,
  type RoomRole,
  type SimulatedParty,
} from "../media";
import type { CdrStore, NewCdr } from "../cdr/cdr-store";
import type { MediaFileStore } from "../cdr/media-files";
import type { Log } from "../log";
import { timestamp } from "../store/db";
import type { ExtensionRow, UserStore } from "../store/users";
import { supervisionWordOf, type SupervisionMode } from "../../shared/supervision-mode";
import { sipHeaderVariablesOf } from "./sip-header-variables";
import type { ChannelBase } from "./channel";
import { type ChannelHost, type ChannelInit } from "./channel";
import type {
  Channel,
  HangupCause,
  OriginateOptions,
  OriginateTarget,
  RouteHandler,
  Switch,
  SwitchEvents,
} from "./types";

/** Numbers the switch itself serves (as FreeSWITCH's default dialplan does). */
export const ECHO_NUMBER = "9196";
export const MUSIC_NUMBER = "9664";

/** Makes outbound legs to registered phones (the SIP side registers itself here). */
export interface PhoneLegs {
  outbound(host: ChannelHost, init: ChannelInit, extension: ExtensionRow, options: OriginateOptions): ChannelBase;
}

/** Makes outbound legs to the simulated outside world (the simulator registers itself here). */
export interface SimulatedLegs {
  /** Whether a number reaches a simulated party. */
  handles(number: string): boolean;
  outbound(host: ChannelHost, init: ChannelInit, number: string): ChannelBase;
  /** A leg that fails at once with `cause` (numbers that go nowhere). */
  failing(host: ChannelHost, init: ChannelInit, cause: HangupCause): ChannelBase;
  /** A silent internal party (echo line, DTMF injector) that is no channel of its own. */
  party(label: string): SimulatedParty;
}

export interface SoftSwitchOptions {
  media: MediaPlane;
  users: UserStore;
  cdrs: CdrStore;
  mediaFiles: MediaFileStore;
  log: Log;
  /** How long an outbound leg rings before NO_ANSWER when neither the caller nor the extension says. */
  ringTimeoutSeconds: number;
}

/** What a caller of `connect` is told about the leg it is being connected to. */
export interface ConnectHooks {
  onProgress?(callee: ChannelBase): void;
  onAnswer?(callee: ChannelBase): void;
  /** The callee failed before answering; return true to keep the caller up (the default hangs it up). */
  onFail?(cause: HangupCause, callee: ChannelBase): boolean | void;
}

interface Placement {
  room: Room;
  role: RoomRole;
}

/**
 * The soft-switch: channels, the dialplan, bridges, hold, music, tones, eavesdropping,
 * transfers, recordings and call records, in the manner of FreeSWITCH's core. Channels are SIP
 * legs of phones (platform/sip) or simulated parties (platform/sim); their audio meets in rooms
 * of the media plane, one room per bridge or announcement, so every operation here is a move of
 * endpoints between rooms plus the signalling the phones must see.
 */
export class SoftSwitch implements Switch, ChannelHost {
  phones?: PhoneLegs;
  sims?: SimulatedLegs;

  private readonly all = new Map<string, ChannelBase>();
  private readonly partners = new Map<ChannelBase, ChannelBase>();
  private readonly parked = new Set<ChannelBase>();
  private readonly eavesdrops = new Map<ChannelBase, ChannelBase>();
  private readonly routes: { matches: (destination: string) => boolean; handler: RouteHandler }[] = [];
  private readonly placements = new Map<ChannelBase, Placement>();
  private readonly roomChannels = new Map<Room, Set<ChannelBase>>();
  private readonly roomExtras = new Map<Room, MediaEndpoint[]>();
  private readonly recorders = new Map<ChannelBase, { recorder?: CallRecorder; mediaFileId: number }>();
  private readonly timers = new Map<ChannelBase, NodeJS.Timeout>();
  private readonly emitter = new EventEmitter();
  private readonly finishing = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: SoftSwitchOptions) {
    this.emitter.setMaxListeners(100);
  }

  get media(): MediaPlane {
    return this.options.media;
  }

  get log(): Log {
    return this.options.log;
  }

  defaultDomain(): string {
    return this.options.users.defaultDomain();
  }

  // ---------------------------------------------------------------- Switch: events and lookup

  on<E extends keyof SwitchEvents>(event: E, listener: SwitchEvents[E]): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends keyof SwitchEvents>(event: E, listener: SwitchEvents[E]): this {
    this.emitter.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  channel(uuid: string): Channel | undefined {
    return this.all.get(uuid);
  }

  channels(): Channel[] {
    return [...this.all.values()];
  }

  partnerOf(ch: Channel): Channel | undefined {
    return this.partners.get(ch as ChannelBase);
  }

  /** Adds a channel made by the SIP side or the simulator (inbound calls, originated legs). */
  add(ch: ChannelBase): void {
    if (this.closed) throw new Error("the switch is shut down");
    this.all.set(ch.uuid, ch);
    ch.on("answer", () => {
      this.clearTimer(ch);
      this.fire("channel-answer", ch);
    });
    ch.on("progress", () => this.fire("channel-progress", ch));
    this.fire("channel-create", ch);
  }

  // ---------------------------------------------------------------- Switch: making calls

  originate(target: OriginateTarget, options: OriginateOptions): Channel {
    return this.originateLeg(target, options);
  }

  /** originate() with the concrete channel type, for the switch's own parts. */
  originateLeg(target: OriginateTarget, options: OriginateOptions): ChannelBase {
    const destination = "extension" in target ? target.extension : target.number;
    const domain = this.defaultDomain();
    const init: ChannelInit = {
      direction: "outbound",
      callerIdName: options.callerIdName,
      callerIdNumber: options.callerIdNumber,
      destinationNumber: destination,
      domain,
      ...(options.uuid ? { uuid: options.uuid } : {}),
      ...(options.variables ? { variables: options.variables } : {}),
    };
    const extension = this.options.users.extension(destination, domain);
    let ch: ChannelBase;
    if (extension && this.phones) {
      ch = this.phones.outbound(
        this,
        { ...init, extension: extension.extn, context: extension.context },
        extension,
        options,
      );
      ch.userId = extension.user_id;
    } else if ("number" in target && this.sims?.handles(destination)) {
      ch = this.sims.outbound(this, init, destination);
    } else if (this.sims) {
      ch = this.sims.failing(this, init, "UNALLOCATED_NUMBER");
    } else {
      throw new Error(`cannot reach ${destination}: no simulator`);
    }
    this.add(ch);
    const seconds = options.timeoutSeconds ?? extension?.timeout ?? this.options.ringTimeoutSeconds;
    if (ch.isUp && seconds > 0) {
      this.timers.set(
        ch,
        setTimeout(() => {
          this.timers.delete(ch);
          if (ch.state !== "answered" && ch.isUp) ch.hangup("NO_ANSWER");
        }, seconds * 1000),
      );
    }
    return ch;
  }

  addRoute(matches: (destination: string) => boolean, handler: RouteHandler): void {
    this.routes.push({ matches, handler });
  }

  /**
   * The dialplan: where a call from `caller` to `destination` goes. In order: destinations
   * claimed with addRoute (queues), the echo test (9196) and music on hold (9664), extensions,
   * the simulated outside world (see platform/sim), otherwise UNALLOCATED_NUMBER.
   */
  route(caller: ChannelBase, destination: string, hooks: ConnectHooks = {}): void {
    if (!caller.isUp) return;
    caller.variables.set("last_dialed", destination);
    const claimed = this.routes.find((r) => r.matches(destination));
    if (claimed) {
      Promise.resolve()
        .then(() => claimed.handler(caller, destination))
        .catch((error: unknown) => {
          this.log.error({ err: error }, `route handler for ${destination} failed`);
          if (caller.isUp) caller.hangup("NORMAL_TEMPORARY_FAILURE");
        });
      hooks.onAnswer?.(caller);
      return;
    }
    if (destination === ECHO_NUMBER || destination === MUSIC_NUMBER) {
      void this.serve(caller, destination).then(
        () => hooks.onAnswer?.(caller),
        () => undefined,
      );
      return;
    }
    const domain = this.defaultDomain();
    const known = this.options.users.extension(destination, domain) !== undefined;
    if (!known && !this.sims?.handles(destination)) {
      if (!hooks.onFail?.("UNALLOCATED_NUMBER", caller)) caller.hangup("UNALLOCATED_NUMBER");
      return;
    }
    // The caller's SIP headers go on with the call (mod_sofia hands on the `sip_h_` variables).
    const callee = this.originateLeg(known ? { extension: destination } : { number: destination }, {
      callerIdName: caller.callerIdName,
      callerIdNumber: caller.callerIdNumber,
      variables: sipHeaderVariablesOf(caller),
    });
    this.connect(caller, callee, hooks);
  }

  /**
   * Connects `caller` to `callee` once the callee answers: the caller hears ringback (early
   * media for a phone) while the callee rings, is answered and bridged when the callee answers,
   * and gets the callee's cause when it fails. If the caller goes first, the callee is cancelled.
   */
  connect(caller: ChannelBase, callee: ChannelBase, hooks: ConnectHooks = {}): void {
    caller.bLegUuid = callee.uuid;
    callee.otherUuid = caller.uuid;
    let settled = false;
    const onCallerGone = () => {
      if (!settled && callee.isUp) callee.hangup("ORIGINATOR_CANCEL");
    };
    caller.once("hangup", onCallerGone);
    const ringback = () => {
      if (settled || !caller.isUp) return;
      if (caller.state !== "answered") void this.earlyMediaOf(caller);
      this.playTone(caller, "ringback");
    };
    callee.on("progress", () => {
      ringback();
      hooks.onProgress?.(callee);
    });
    if (callee.state === "early" || callee.progressAt) ringback();
    callee.once("answer", () => {
      if (settled) return;
      settled = true;
      caller.off("hangup", onCallerGone);
      if (!caller.isUp) {
        callee.hangup("ORIGINATOR_CANCEL");
        return;
      }
      this.bridge(caller, callee);
      if (caller.state !== "answered") {
        caller.answer().catch((error: unknown) => {
          this.log.warn({ err: error }, `answering ${caller.toString()} failed`);
          if (caller.isUp) caller.hangup("NORMAL_TEMPORARY_FAILURE");
        });
      }
      hooks.onAnswer?.(callee);
    });
    callee.once("hangup", (cause) => {
      if (settled) return;
      settled = true;
      caller.off("hangup", onCallerGone);
      if (!caller.isUp) return;
      if (hooks.onFail?.(cause, callee)) return;
      caller.hangup(cause);
    });
  }

  // ---------------------------------------------------------------- Switch: bridges

  bridge(a: Channel, b: Channel, options: { parkAfterBridge?: "a" | "b" | "both" } = {}): void {
    const x = a as ChannelBase;
    const y = b as ChannelBase;
    if (x === y) throw new Error("cannot bridge a channel with itself");
    if (!x.isUp || !y.isUp) throw new Error("cannot bridge a channel that has hung up");
    for (const [ch, other] of [
      [x, y],
      [y, x],
    ] as const) {
      const former = this.partners.get(ch);
      if (former && former !== other) {
        this.separate(ch, former);
        if (!this.parked.has(former)) former.hangup("NORMAL_CLEARING");
      }
      this.eavesdrops.delete(ch);
    }
    this.partners.set(x, y);
    this.partners.set(y, x);
    const park = options.parkAfterBridge;
    if (park === "a" || park === "both") this.parked.add(x);
    else this.parked.delete(x);
    if (park === "b" || park === "both") this.parked.add(y);
    else this.parked.delete(y);
    x.otherUuid = y.uuid;
    y.otherUuid = x.uuid;
    if (x.direction === "inbound" && !x.bLegUuid) x.bLegUuid = y.uuid;
    if (y.direction === "inbound" && !y.bLegUuid) y.bLegUuid = x.uuid;
    const room = this.media.createRoom(`bridge ${x.uuid.slice(0, 8)}-${y.uuid.slice(0, 8)}`);
    this.place(x, room);
    this.place(y, room);
    for (const ch of [x, y]) if (this.autoRecords(ch) && !this.recorders.has(ch)) this.record(ch);
    this.fire("channel-bridge", x, y);
    x.emit("bridge", y);
    y.emit("bridge", x);
  }

  unbridge(ch: Channel): Channel | undefined {
    const x = ch as ChannelBase;
    const partner = this.partners.get(x);
    if (!partner) return undefined;
    this.separate(x, partner);
    return partner;
  }

  // ---------------------------------------------------------------- Switch: hold, music, tones

  async hold(ch: Channel): Promise<void> {
    const x = ch as ChannelBase;
    if (!x.isUp || x.heldByPlatform) return;
    x.heldByPlatform = true;
    this.refreshRole(x);
    this.fire("channel-hold", x, true);
    await x.signalHold(true);
  }

  async unhold(ch: Channel): Promise<void> {
    const x = ch as ChannelBase;
    if (!x.isUp || !x.heldByPlatform) return;
    x.heldByPlatform = false;
    this.refreshRole(x);
    this.fire("channel-hold", x, x.isHeld);
    await x.signalHold(false);
  }

  /**
   * The phone of a leg lost its connection (`away`), or got it back: meanwhile the leg counts as
   * held, so its partner hears music on hold rather than silence (FreeSWITCH plays music to a
   * partner whose media stopped only with a hold; a customer should not think the line is dead).
   */
  phoneAway(ch: Channel, away: boolean): void {
    const x = ch as ChannelBase;
    if (!x.isUp || x.phoneAway === away) return;
    x.phoneAway = away;
    this.refreshRole(x);
    this.fire("channel-hold", x, x.isHeld);
  }

  playMusic(ch: Channel): void {
    this.playTo(ch as ChannelBase, new HoldMusic(), "music on hold");
  }

  playTone(ch: Channel, tone: "ringback" | "busy" | "silence" | { frequency: number }): void {
    const x = ch as ChannelBase;
    if (tone === "silence") {
      this.playTo(x, null, "silence");
      return;
    }
    const source =
      tone === "ringback"
        ? ringbackTone()
        : tone === "busy"
          ? busyTone()
          : new ToneGenerator({ frequencies: [tone.frequency], levelDb: -12 });
    this.playTo(x, source, source.label);
  }

  // ---------------------------------------------------------------- Switch: eavesdrop, transfer

  eavesdrop(listener: Channel, target: Channel, mode: SupervisionMode): void {
    const l = listener as ChannelBase;
    const t = target as ChannelBase;
    if (l === t) throw new Error("a channel cannot eavesdrop on itself");
    if (!l.isUp || !t.isUp) throw new Error("cannot eavesdrop with or on a channel that has hung up");
    const former = this.partners.get(l);
    if (former) {
      this.separate(l, former);
      if (!this.parked.has(former)) former.hangup("NORMAL_CLEARING");
    }
    let placement = this.placements.get(t);
    if (!placement) {
      this.place(t, this.media.createRoom(`call of ${t.uuid.slice(0, 8)}`));
      placement = this.placements.get(t)!;
    }
    const whispered = mode === "whisper" ? t : mode === "whisper-customer" ? this.partners.get(t) : undefined;
    const role: RoomRole =
      mode === "barge" ? "talker" : whispered?.endpoint ? { whisperTo: [whispered.endpoint] } : "listener";
    this.place(l, placement.room, role);
    this.eavesdrops.set(l, t);
    l.variables.set("eavesdrop_target", t.uuid);
    l.variables.set("eavesdrop_mode", supervisionWordOf(mode));
  }

  transfer(ch: Channel, destination: string): void {
    this.transferTo(ch as ChannelBase, destination);
  }

  /** transfer() with progress hooks (a REFER reports them to the phone that asked). */
  transferTo(x: ChannelBase, destination: string, hooks: ConnectHooks = {}): void {
    if (!x.isUp) return;
    const partner = this.partners.get(x);
    if (partner) {
      this.separate(x, partner);
      if (!this.parked.has(partner)) partner.hangup("NORMAL_CLEARING");
    }
    this.eavesdrops.delete(x);
    this.unplace(x);
    x.variables.set("transfer_destination", `blind:${destination}`);
    this.route(x, destination, hooks);
  }

  /**
   * uuid_phone_event: a NOTIFY with `Event: talk` (answer) or `Event: hold` to a phone leg, in its
   * early dialog while it rings. False when the leg has no phone (or no dialog yet) to tell.
   */
  phoneEvent(ch: Channel, event: "talk" | "hold"): boolean {
    return (ch as ChannelBase).phoneEvent?.(event) ?? false;
  }

  // ---------------------------------------------------------------- Switch: recording

  record(ch: Channel): void {
    const x = ch as ChannelBase;
    if (!x.isUp || this.recorders.has(x)) return;
    const place = this.options.mediaFiles.placeRecording(x.uuid);
    const owner = x.userId ?? this.partners.get(x)?.userId ?? null;
    const mediaFileId = this.options.mediaFiles.addRecording(x.uuid, place, {
      userId: owner,
      domain: x.domain,
      name: `${x.callerIdNumber}-${x.destinationNumber}-${timestamp(x.createdAt).replace(/[: ]/g, "")}.wav`,
    });
    const recording = { absPath: place.absPath, relPath: place.relPath, mediaFileId };
    x.recording = recording;
    const partner = this.partners.get(x);
    if (partner && !partner.recording) partner.recording = recording;
    const entry: { recorder?: CallRecorder; mediaFileId: number } = { mediaFileId };
    this.recorders.set(x, entry);
    x.variables.set("record_path", place.absPath);
    if (x.endpoint) this.startRecorder(x);
  }

  // ---------------------------------------------------------------- ChannelHost

  endpointReady(ch: ChannelBase): void {
    const placement = this.placements.get(ch);
    if (placement && ch.endpoint) placement.room.add(ch.endpoint, this.effectiveRole(ch, placement.role));
    const rec = this.recorders.get(ch);
    if (rec && !rec.recorder) this.startRecorder(ch);
  }

  remoteHold(ch: ChannelBase, held: boolean): void {
    if (ch.heldByRemote === held) return;
    ch.heldByRemote = held;
    this.refreshRole(ch);
    ch.emit("remote-hold", held);
    this.fire("channel-hold", ch, ch.isHeld);
  }

  dtmfFrom(ch: ChannelBase, digit: string, method: "info" | "inband"): void {
    ch.digits += digit;
    ch.emit("dtmf", digit, method);
    // Audio carries in-band digits across the bridge by itself; SIP INFO digits are relayed.
    const partner = this.partners.get(ch);
    if (partner && method === "info") partner.deliverDtmf(digit, method);
  }

  injectDtmf(ch: ChannelBase, digits: string): void {
    if (!this.sims || !ch.endpoint) return;
    let placement = this.placements.get(ch);
    if (!placement) {
      this.place(ch, this.media.createRoom(`dtmf to ${ch.uuid.slice(0, 8)}`));
      placement = this.placements.get(ch)!;
    }
    const injector = this.sims.party(`dtmf to ${ch.uuid.slice(0, 8)}`);
    const generator = injector.sayDigits(digits);
    placement.room.add(injector, { whisperTo: [ch.endpoint] });
    const extras = this.roomExtras.get(placement.room) ?? [];
    extras.push(injector);
    this.roomExtras.set(placement.room, extras);
    const done = setInterval(() => {
      if (generator.finished || injector.closed || !ch.isUp) {
        clearInterval(done);
        injector.close();
      }
    }, 50);
    done.unref();
  }

  ended(ch: ChannelBase): void {
    this.clearTimer(ch);
    // Who goes with it: its partner and its listeners, unless parked. They are hung up after this
    // channel's own record and event, so events come in the order the call ended.
    const followers: ChannelBase[] = [];
    const partner = this.partners.get(ch);
    if (partner) {
      this.separate(ch, partner);
      if (!this.parked.has(partner)) followers.push(partner);
    }
    for (const [listener, target] of [...this.eavesdrops]) {
      if (target === ch) {
        this.eavesdrops.delete(listener);
        if (!this.parked.has(listener) && !this.partners.has(listener)) followers.push(listener);
      }
    }
    this.eavesdrops.delete(ch);
    this.parked.delete(ch);
    this.unplace(ch);
    this.all.delete(ch.uuid);
    const rec = this.recorders.get(ch);
    this.recorders.delete(ch);
    if (rec) {
      const stopped = rec.recorder ? rec.recorder.stop() : Promise.resolve({ durationMs: 0 });
      const finished = stopped
        .then((r) => this.options.mediaFiles.completeRecording(rec.mediaFileId, r.durationMs))
        .catch((error: unknown) => this.log.error({ err: error }, `recording of ${ch.uuid} failed`))
        .finally(() => this.finishing.delete(finished));
      this.finishing.add(finished);
    }
    try {
      this.options.cdrs.insert(cdrOf(ch));
    } catch (error) {
      this.log.error({ err: error }, `call record of ${ch.uuid} not written`);
    }
    this.fire("channel-hangup", ch, ch.hangupCause ?? "NORMAL_CLEARING");
    for (const follower of followers) follower.hangup("NORMAL_CLEARING");
  }

  /** Hangs up every channel (platform shutdown); resolves when their recordings are complete. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const ch of [...this.all.values()]) if (ch.isUp) ch.hangup("SYSTEM_SHUTDOWN");
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.finishing]);
  }

  // ---------------------------------------------------------------- internals

  private async serve(caller: ChannelBase, service: string): Promise<void> {
    await caller.answer();
    if (!caller.isUp) return;
    if (service === MUSIC_NUMBER) {
      this.playMusic(caller);
      return;
    }
    const room = this.media.createRoom(`echo ${caller.uuid.slice(0, 8)}`);
    this.place(caller, room);
    if (this.sims) {
      const echo = this.sims.party("echo");
      echo.echo(100);
      room.add(echo);
      this.roomExtras.set(room, [echo]);
    }
  }

  private async earlyMediaOf(ch: ChannelBase): Promise<void> {
    const early = (ch as ChannelBase & { earlyMedia?: () => Promise<void> }).earlyMedia;
    if (early) await early.call(ch).catch((error: unknown) => this.log.debug({ err: error }, "early media failed"));
  }

  private playTo(ch: ChannelBase, source: FrameSource | null, label: string): void {
    if (!ch.isUp) return;
    const partner = this.partners.get(ch);
    if (partner) this.separate(ch, partner);
    const room = this.media.createRoom(`${label} to ${ch.uuid.slice(0, 8)}`);
    if (source) room.play(source);
    this.place(ch, room, "listener");
  }

  /** Ends the partnership of two channels; both stay up, each in no room (silent). */
  private separate(x: ChannelBase, y: ChannelBase): void {
    if (this.partners.get(x) !== y) return;
    this.partners.delete(x);
    this.partners.delete(y);
    const px = this.placements.get(x);
    const py = this.placements.get(y);
    if (px && py && px.room === py.room) {
      this.unplace(x);
      this.unplace(y);
    }
    this.fire("channel-unbridge", x, y);
    x.emit("unbridge", y);
    y.emit("unbridge", x);
  }

  private place(ch: ChannelBase, room: Room, role: RoomRole = "talker"): void {
    const old = this.placements.get(ch);
    this.placements.set(ch, { room, role });
    let members = this.roomChannels.get(room);
    if (!members) this.roomChannels.set(room, (members = new Set()));
    members.add(ch);
    if (ch.endpoint && !ch.endpoint.closed) room.add(ch.endpoint, this.effectiveRole(ch, role));
    if (old && old.room !== room) this.leave(ch, old.room);
  }

  private unplace(ch: ChannelBase): void {
    const old = this.placements.get(ch);
    if (!old) return;
    this.placements.delete(ch);
    if (ch.endpoint) old.room.remove(ch.endpoint);
    this.leave(ch, old.room);
  }

  private leave(ch: ChannelBase, room: Room): void {
    const members = this.roomChannels.get(room);
    members?.delete(ch);
    if (members && members.size > 0) return;
    this.roomChannels.delete(room);
    for (const extra of this.roomExtras.get(room) ?? []) extra.close();
    this.roomExtras.delete(room);
    room.close();
  }

  private effectiveRole(ch: ChannelBase, role: RoomRole): RoomRole {
    return ch.isHeld && role === "talker" ? "held" : role;
  }

  private refreshRole(ch: ChannelBase): void {
    const placement = this.placements.get(ch);
    if (placement && ch.endpoint && placement.room.has(ch.endpoint)) {
      placement.room.setRole(ch.endpoint, this.effectiveRole(ch, placement.role));
    }
  }

  private startRecorder(ch: ChannelBase): void {
    const rec = this.recorders.get(ch);
    if (!rec || rec.recorder || !ch.endpoint || !ch.recording) return;
    rec.recorder = this.media.record(ch.endpoint, ch.recording.absPath);
  }

  private autoRecords(ch: ChannelBase): boolean {
    if (!ch.extension) return false;
    const extension = this.options.users.extension(ch.extension, ch.domain);
    if (!extension) return false;
    if (extension.auto_record) return true;
    const owner = extension.user_id !== null ? this.options.users.byId(extension.user_id) : undefined;
    return Boolean(owner?.auto_record);
  }

  private clearTimer(ch: ChannelBase): void {
    const timer = this.timers.get(ch);
    if (timer) clearTimeout(timer);
    this.timers.delete(ch);
  }

  private fire<E extends keyof SwitchEvents>(event: E, ...args: Parameters<SwitchEvents[E]>): void {
    for (const listener of this.emitter.listeners(event)) {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (error) {
        this.log.error({ err: error }, `switch ${event} listener failed`);
      }
    }
  }
}

/** The call record of a leg that has ended. */
export function cdrOf(ch: ChannelBase): NewCdr {
  const end = ch.endedAt ?? new Date();
  const seconds = (from: Date) => Math.max(0, Math.round((end.getTime() - from.getTime()) / 1000));
  const cause = ch.hangupCause ?? "NORMAL_CLEARING";
  return {
    uuid: ch.uuid,
    bleg_uuid: ch.bLegUuid,
    other_uuid: ch.otherUuid,
    caller_id_name: ch.callerIdName,
    caller_id_number: ch.callerIdNumber,
    destination_number: ch.destinationNumber,
    start_stamp: timestamp(ch.createdAt),
    ring_stamp: ch.progressAt ? timestamp(ch.progressAt) : "",
    answer_stamp: ch.answeredAt ? timestamp(ch.answeredAt) : "",
    end_stamp: timestamp(end),
    duration: seconds(ch.createdAt),
    billsec: ch.answeredAt ? seconds(ch.answeredAt) : 0,
    account_code: ch.variables.get("account_code") ?? ch.extension ?? "",
    hangup_cause: cause,
    sip_hangup_disposition: ch.disposition,
    network_addr: ch.networkAddr,
    network_port: ch.networkPort,
    context: ch.context,
    direction: ch.direction,
    realm: ch.domain,
    external_tracking_id: ch.variables.get("external_tracking_id") ?? "",
    caller_source: ch.kind === "sip" ? "sip" : "simulator",
    digits_dialed: ch.digits,
    sip_call_id: ch.sipCallId ?? "",
    xui_route_ids: ch.variables.get("xui_route_ids") ?? "",
    abs_path: ch.recording?.absPath ?? "",
    rel_path: ch.recording?.relPath ?? "",
    rtp_use_codec_name: ch.codec,
    xui_hangup_cause: ch.causeDetail || cause,
    media_file_id: ch.recording?.mediaFileId ?? null,
    extn: ch.extension ?? "",
    user_id: ch.userId,
    variables: JSON.stringify(Object.fromEntries(ch.variables)),
  };
}
