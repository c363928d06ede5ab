import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import type { MediaEndpoint } from "../media";
import type { Channel, ChannelDirection, ChannelEvents, ChannelState, HangupCause } from "./types";

/** What a channel needs from the switch it belongs to. */
export interface ChannelHost {
  /** The channel's media endpoint appeared (a phone's leg was negotiated): put it where it belongs. */
  endpointReady(ch: ChannelBase): void;
  /** The far end held (or resumed) this channel from its side. */
  remoteHold(ch: ChannelBase, held: boolean): void;
  /** A DTMF digit arrived from this channel's far end. */
  dtmfFrom(ch: ChannelBase, digit: string, method: "info" | "inband"): void;
  /** Plays DTMF tones to this channel's far end. */
  injectDtmf(ch: ChannelBase, digits: string): void;
  /** The channel has ended (called once, after its 'hangup' event). */
  ended(ch: ChannelBase): void;
}

export interface ChannelInit {
  uuid?: string;
  direction: ChannelDirection;
  callerIdName: string;
  callerIdNumber: string;
  destinationNumber: string;
  domain: string;
  context?: string;
  extension?: string;
  variables?: Record<string, string>;
}

/** What the call record needs to know about a recording of this channel's call. */
export interface ChannelRecording {
  absPath: string;
  relPath: string;
  mediaFileId: number;
}

/**
 * What every channel has: identity, state, timestamps, variables, events, and the bits of the
 * call record FreeSWITCH would write for it. SIP legs and simulated parties extend it.
 */
export abstract class ChannelBase implements Channel {
  abstract readonly kind: "sip" | "sim";
  readonly uuid: string;
  readonly direction: ChannelDirection;
  readonly variables = new Map<string, string>();
  readonly createdAt = new Date();
  callerIdName: string;
  callerIdNumber: string;
  destinationNumber: string;
  extension?: string;
  sipCallId?: string;
  progressAt?: Date;
  answeredAt?: Date;
  endedAt?: Date;
  hangupCause?: HangupCause;

  // Call-record fields.
  readonly domain: string;
  context: string;
  networkAddr = "";
  networkPort = "";
  codec = "";
  /** sip_hangup_disposition: who ended the leg and how (recv_bye, send_cancel, ...). */
  disposition = "";
  /** Platform-specific detail of the cause, e.g. "sip:486" when a phone answered 486. */
  causeDetail = "";
  /** Owner of the leg's extension (recordings belong to them). */
  userId: number | null = null;
  /** The leg this one originated (an A-leg's B-leg) and the leg it is linked with. */
  bLegUuid = "";
  otherUuid = "";
  /** DTMF digits received from this leg. */
  digits = "";
  recording?: ChannelRecording;

  /** The leg's media in the media plane; set once its audio exists. */
  endpoint?: MediaEndpoint;
  heldByPlatform = false;
  heldByRemote = false;
  /** The leg's phone lost its connection (a page reload, a network drop): its partner hears music until it is back or taken over. */
  phoneAway = false;

  protected current: ChannelState = "ringing";
  private readonly emitter = new EventEmitter();
  private ended = false;

  constructor(
    protected readonly host: ChannelHost,
    init: ChannelInit,
  ) {
    this.uuid = init.uuid ?? randomUUID();
    this.direction = init.direction;
    this.callerIdName = init.callerIdName;
    this.callerIdNumber = init.callerIdNumber;
    this.destinationNumber = init.destinationNumber;
    this.domain = init.domain;
    this.context = init.context ?? "default";
    if (init.extension !== undefined) this.extension = init.extension;
    for (const [k, v] of Object.entries(init.variables ?? {})) this.variables.set(k, v);
    // A listener that throws must not break the switch; events are notifications.
    this.emitter.on("error", () => undefined);
  }

  get state(): ChannelState {
    return this.current;
  }

  get isHeld(): boolean {
    return this.heldByPlatform || this.heldByRemote || this.phoneAway;
  }

  get isUp(): boolean {
    return this.current !== "hungup";
  }

  abstract answer(): Promise<void>;
  abstract hangup(cause?: HangupCause): void;
  /** The signalling side of a platform hold (a re-INVITE to a phone); media is the switch's. */
  abstract signalHold(held: boolean): Promise<void>;
  /** A digit the partner sent: phones are sent SIP INFO, simulated parties note it. */
  abstract deliverDtmf(digit: string, method: "info" | "inband"): void;

  /**
   * FreeSWITCH's uuid_phone_event: asks the phone to answer ("talk") or hold, with an in-dialog
   * NOTIFY. Only phone legs have one; sip.js phones drop it while ringing (answer locally).
   */
  phoneEvent?(event: "talk" | "hold"): boolean;

  sendDtmf(digits: string): void {
    if (this.isUp) this.host.injectDtmf(this, digits);
  }

  on<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    this.emitter.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  once<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this {
    this.emitter.once(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /** Emits to listeners, each shielded from the others' failures. */
  emit<E extends keyof ChannelEvents>(event: E, ...args: Parameters<ChannelEvents[E]>): void {
    for (const listener of this.emitter.listeners(event)) {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (error) {
        console.error(`channel ${this.uuid} ${event} listener failed`, error);
      }
    }
  }

  toString(): string {
    return `${this.kind}/${this.direction}/${this.uuid.slice(0, 8)} ${this.callerIdNumber}->${this.destinationNumber}`;
  }

  protected setEndpoint(endpoint: MediaEndpoint): void {
    if (this.endpoint === endpoint) return;
    this.endpoint = endpoint;
    if (this.isUp) this.host.endpointReady(this);
  }

  protected markProgress(early: boolean): void {
    if (this.current !== "ringing" && !(this.current === "early" && !early)) return;
    this.progressAt ??= new Date();
    if (early) this.current = "early";
    this.emit("progress", { early });
  }

  protected markAnswered(): void {
    if (this.current === "answered" || this.current === "hungup") return;
    this.progressAt ??= new Date();
    this.answeredAt = new Date();
    this.current = "answered";
    this.emit("answer");
  }

  /** Records the end of the leg once; later calls are ignored. */
  protected markHungup(cause: HangupCause, disposition: string, detail = ""): void {
    if (this.ended) return;
    this.ended = true;
    this.current = "hungup";
    this.endedAt = new Date();
    this.hangupCause = cause;
    this.disposition ||= disposition;
    this.causeDetail ||= detail;
    this.emit("hangup", cause);
    this.host.ended(this);
  }
}
