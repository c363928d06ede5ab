import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import type {
  Channel,
  ChannelDirection,
  ChannelEvents,
  ChannelState,
  HangupCause,
  OriginateOptions,
  OriginateTarget,
  RouteHandler,
  Switch,
  SwitchEvents,
} from "../../switch/types";
import type { SupervisionMode } from "../../../shared/supervision-mode";

/**
 * An in-memory Switch for the call-center engine's unit tests. It keeps channels, bridges, holds
 * and what each leg hears as plain data, and lets a test play the far ends: a phone answering,
 * rejecting or never answering, a caller hanging up. Channel events fire synchronously, as soon
 * as the test (or the engine) causes them; nothing happens by itself except the originate timeout.
 */
export class FakeSwitch extends EventEmitter implements Switch {
  readonly all: FakeChannel[] = [];
  /** Extensions with a registered phone; originating to another one fails USER_NOT_REGISTERED. */
  readonly registered = new Set<string>();
  private readonly routes: { matches: (d: string) => boolean; handler: RouteHandler }[] = [];
  private readonly partners = new Map<string, FakeChannel>();
  /** What a channel hears when not bridged: music, a tone, or silence. */
  readonly playing = new Map<string, "music" | "ringback" | "busy" | "silence" | number>();
  readonly held = new Set<string>();
  readonly eavesdrops: { listener: FakeChannel; target: FakeChannel; mode: SupervisionMode }[] = [];
  readonly transfers: { channel: FakeChannel; destination: string }[] = [];
  readonly phoneEvents: { channel: FakeChannel; event: string }[] = [];

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  originate(target: OriginateTarget, options: OriginateOptions): FakeChannel {
    const destination = "extension" in target ? target.extension : target.number;
    const ch = new FakeChannel(this, {
      uuid: options.uuid ?? randomUUID(),
      direction: "outbound",
      kind: "extension" in target ? "sip" : "sim",
      callerIdName: options.callerIdName,
      callerIdNumber: options.callerIdNumber,
      destinationNumber: destination,
      extension: "extension" in target ? target.extension : undefined,
    });
    ch.originate = { target, options };
    for (const [k, v] of Object.entries(options.variables ?? {})) ch.variables.set(k, v);
    this.add(ch);
    if ("extension" in target && !this.registered.has(target.extension)) {
      queueMicrotask(() => ch.hangup("USER_NOT_REGISTERED"));
    } else if (options.timeoutSeconds) {
      const timer = setTimeout(() => {
        if (ch.state === "ringing" || ch.state === "early") ch.hangup("NO_ANSWER");
      }, options.timeoutSeconds * 1000);
      ch.once("hangup", () => clearTimeout(timer));
      ch.once("answer", () => clearTimeout(timer));
    }
    return ch;
  }

  /** A call into the switch (a customer, a phone dialling) routed by destination. */
  async dial(destination: string, from: { name: string; number: string; extension?: string }): Promise<FakeChannel> {
    const ch = new FakeChannel(this, {
      uuid: randomUUID(),
      direction: "inbound",
      kind: from.extension ? "sip" : "sim",
      callerIdName: from.name,
      callerIdNumber: from.number,
      destinationNumber: destination,
      extension: from.extension,
    });
    this.add(ch);
    const route = this.routes.find((r) => r.matches(destination));
    if (!route) ch.hangup("UNALLOCATED_NUMBER");
    else await route.handler(ch, destination);
    return ch;
  }

  private add(ch: FakeChannel) {
    this.all.push(ch);
    this.emit("channel-create", ch);
  }

  bridge(a: Channel, b: Channel, options: { parkAfterBridge?: "a" | "b" | "both" } = {}): void {
    const fa = a as FakeChannel;
    const fb = b as FakeChannel;
    this.unbridge(fa);
    this.unbridge(fb);
    this.partners.set(fa.uuid, fb);
    this.partners.set(fb.uuid, fa);
    fa.parked = options.parkAfterBridge === "a" || options.parkAfterBridge === "both";
    fb.parked = options.parkAfterBridge === "b" || options.parkAfterBridge === "both";
    this.playing.delete(fa.uuid);
    this.playing.delete(fb.uuid);
    // A listener that is bridged stops eavesdropping (an intercept reuses the monitor leg).
    this.stopEavesdrop(fa);
    this.stopEavesdrop(fb);
    fa.emit("bridge", fb);
    fb.emit("bridge", fa);
    this.emit("channel-bridge", fa, fb);
  }

  unbridge(ch: Channel): FakeChannel | undefined {
    const partner = this.partners.get(ch.uuid);
    if (!partner) return undefined;
    this.partners.delete(ch.uuid);
    this.partners.delete(partner.uuid);
    (ch as FakeChannel).emit("unbridge", partner);
    partner.emit("unbridge", ch);
    this.emit("channel-unbridge", ch, partner);
    return partner;
  }

  partnerOf(ch: Channel): FakeChannel | undefined {
    return this.partners.get(ch.uuid);
  }

  async hold(ch: Channel): Promise<void> {
    this.held.add(ch.uuid);
    this.emit("channel-hold", ch, true);
  }

  async unhold(ch: Channel): Promise<void> {
    this.held.delete(ch.uuid);
    this.emit("channel-hold", ch, false);
  }

  playMusic(ch: Channel): void {
    this.playing.set(ch.uuid, "music");
  }

  playTone(ch: Channel, tone: "ringback" | "busy" | "silence" | { frequency: number }): void {
    this.playing.set(ch.uuid, typeof tone === "string" ? tone : tone.frequency);
  }

  eavesdrop(listener: Channel, target: Channel, mode: SupervisionMode): void {
    this.stopEavesdrop(listener as FakeChannel);
    this.eavesdrops.push({ listener: listener as FakeChannel, target: target as FakeChannel, mode });
  }

  private stopEavesdrop(listener: FakeChannel) {
    for (let i = this.eavesdrops.length - 1; i >= 0; i--)
      if (this.eavesdrops[i]!.listener === listener) this.eavesdrops.splice(i, 1);
  }

  transfer(ch: Channel, destination: string): void {
    this.unbridge(ch);
    this.transfers.push({ channel: ch as FakeChannel, destination });
    const route = this.routes.find((r) => r.matches(destination));
    if (route) void route.handler(ch, destination);
  }

  addRoute(matches: (destination: string) => boolean, handler: RouteHandler): void {
    this.routes.push({ matches, handler });
  }

  channel(uuid: string): FakeChannel | undefined {
    return this.all.find((c) => c.uuid === uuid && c.state !== "hungup");
  }

  channels(): FakeChannel[] {
    return this.all.filter((c) => c.state !== "hungup");
  }

  record(): void {}

  /** ccAnswer's NOTIFY Event: talk, as the SIP side would send it. */
  phoneEvent(ch: Channel, event: "talk" | "hold"): boolean {
    this.phoneEvents.push({ channel: ch as FakeChannel, event });
    return ch.kind === "sip";
  }

  /**
   * What a channel hears now: the channels whose audio reaches it, or what is played to it.
   * Mirrors the media rules of the Switch contract (hold mutes the held leg toward its partner,
   * which hears music; eavesdrop modes decide who hears the listener).
   */
  hears(ch: Channel): string[] {
    if (ch.state === "hungup") return [];
    const out: string[] = [];
    const partner = this.partnerOf(ch);
    if (partner) out.push(this.held.has(partner.uuid) ? "music" : partner.uuid);
    else {
      const p = this.playing.get(ch.uuid);
      if (p !== undefined && p !== "silence") out.push(String(p));
    }
    for (const e of this.eavesdrops) {
      if (e.listener.state === "hungup" || e.target.state === "hungup") continue;
      if (e.listener.uuid === ch.uuid) {
        out.push(e.target.uuid);
        const p = this.partnerOf(e.target);
        if (p) out.push(p.uuid);
      }
      const targetSide = e.target.uuid === ch.uuid;
      const otherSide = this.partnerOf(e.target)?.uuid === ch.uuid;
      const heard =
        e.mode === "barge" || (targetSide && e.mode === "whisper") || (otherSide && e.mode === "whisper-customer");
      if ((targetSide || otherSide) && heard) out.push(e.listener.uuid);
    }
    return out;
  }

  /** Called by a channel that hung up: its partner follows unless parked. */
  ended(ch: FakeChannel, cause: HangupCause) {
    this.emit("channel-hangup", ch, cause);
    const partner = this.partners.get(ch.uuid);
    if (!partner) return;
    this.partners.delete(ch.uuid);
    this.partners.delete(partner.uuid);
    partner.emit("unbridge", ch);
    this.emit("channel-unbridge", ch, partner);
    if (!partner.parked) partner.hangup(cause);
  }
}

export interface FakeChannelInit {
  uuid: string;
  direction: ChannelDirection;
  kind: "sip" | "sim";
  callerIdName: string;
  callerIdNumber: string;
  destinationNumber: string;
  extension?: string;
}

export class FakeChannel extends EventEmitter implements Channel {
  readonly uuid: string;
  readonly direction: ChannelDirection;
  readonly kind: "sip" | "sim";
  state: ChannelState = "ringing";
  readonly callerIdName: string;
  readonly callerIdNumber: string;
  readonly destinationNumber: string;
  readonly extension?: string;
  readonly variables = new Map<string, string>();
  readonly createdAt = new Date();
  answeredAt?: Date;
  endedAt?: Date;
  hangupCause?: HangupCause;
  originate?: { target: OriginateTarget; options: OriginateOptions };
  /** Set while bridged with parkAfterBridge for this side: it stays up when the partner hangs up. */
  parked = false;
  readonly dtmfSent: string[] = [];

  constructor(
    private readonly sw: FakeSwitch,
    init: FakeChannelInit,
  ) {
    super();
    this.setMaxListeners(0);
    this.uuid = init.uuid;
    this.direction = init.direction;
    this.kind = init.kind;
    this.callerIdName = init.callerIdName;
    this.callerIdNumber = init.callerIdNumber;
    this.destinationNumber = init.destinationNumber;
    this.extension = init.extension;
  }

  /** The platform answers an inbound channel. */
  async answer(): Promise<void> {
    this.markAnswered();
  }

  /** The far end (a phone, a simulated party) answers an outbound channel. */
  remoteAnswer(): void {
    this.markAnswered();
  }

  private markAnswered() {
    if (this.state === "answered" || this.state === "hungup") return;
    this.state = "answered";
    this.answeredAt = new Date();
    this.emit("answer");
    this.sw.emit("channel-answer", this);
  }

  hangup(cause: HangupCause = "NORMAL_CLEARING"): void {
    if (this.state === "hungup") return;
    this.state = "hungup";
    this.hangupCause = cause;
    this.endedAt = new Date();
    this.emit("hangup", cause);
    this.sw.ended(this, cause);
  }

  sendDtmf(digits: string): void {
    this.dtmfSent.push(digits);
  }

  /** The INVITE's headers as "Name: value" lines. */
  get headers(): string[] {
    return this.originate?.options.headers ?? [];
  }

  header(name: string): string | undefined {
    const prefix = `${name.toLowerCase()}:`;
    return this.headers
      .find((h) => h.toLowerCase().startsWith(prefix))
      ?.slice(prefix.length)
      .trim();
  }

  override on<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }
  override off<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    return super.off(event, listener as (...args: unknown[]) => void);
  }
  override once<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    return super.once(event, listener as (...args: unknown[]) => void);
  }
}

export type { SwitchEvents };
