import type { SupervisionMode } from "../../shared/supervision-mode";

/**
 * The soft-switch core of the local platform, modelled on FreeSWITCH: calls are made of
 * channels (one per leg, each terminating in the platform with its media), which the switch
 * originates, answers, bridges, holds, transfers, mixes and hangs up. The SIP side (registrar and
 * back-to-back user agent), the simulated outside world and the call-center engine all work
 * through this interface; the call-center engine uses it the way mod_callcenter uses
 * FreeSWITCH's core (originate, uuid_bridge, uuid_hold, uuid_transfer, eavesdrop, intercept).
 *
 * This file is the contract between those parts. Change it deliberately.
 */

/** The spec's hang-up causes (Q.850 names as FreeSWITCH uses them). */
export type HangupCause =
  | "NORMAL_CLEARING"
  | "ORIGINATOR_CANCEL"
  | "USER_BUSY"
  | "CALL_REJECTED"
  | "NO_USER_RESPONSE"
  | "NO_ANSWER"
  | "UNALLOCATED_NUMBER"
  | "NO_ROUTE_DESTINATION"
  | "USER_NOT_REGISTERED"
  | "SUBSCRIBER_ABSENT"
  | "LOSE_RACE"
  | "PICKED_OFF"
  | "MANAGER_REQUEST"
  | "MEDIA_TIMEOUT"
  | "RECOVERY_ON_TIMER_EXPIRE"
  | "NORMAL_TEMPORARY_FAILURE"
  | "NETWORK_OUT_OF_ORDER"
  | "DESTINATION_OUT_OF_ORDER"
  | "WRONG_CALL_STATE"
  | "INCOMPATIBLE_DESTINATION"
  | "SERVICE_NOT_IMPLEMENTED"
  | "NORMAL_UNSPECIFIED"
  | "SYSTEM_SHUTDOWN";

export type ChannelState = "ringing" | "early" | "answered" | "hungup";

/**
 * inbound: a call that came into the switch (an A-leg: a phone dialling, a simulated caller);
 * outbound: a leg the switch originated (to a phone, to a simulated party).
 */
export type ChannelDirection = "inbound" | "outbound";

export interface ChannelEvents {
  /** 180 (no media) or 183 (early media) from the far end of an outbound channel. */
  progress: (info: { early: boolean }) => void;
  answer: () => void;
  hangup: (cause: HangupCause) => void;
  /** A DTMF digit received from this leg: 'info' (SIP INFO) or 'inband' (heard in its audio). */
  dtmf: (digit: string, method: "info" | "inband") => void;
  /** The far end put this leg on hold (sendonly/inactive re-INVITE) or took it off. */
  "remote-hold": (held: boolean) => void;
  bridge: (partner: Channel) => void;
  unbridge: (partner: Channel) => void;
}

export interface Channel {
  readonly uuid: string;
  readonly direction: ChannelDirection;
  /** 'sip' legs reach a registered phone; 'sim' legs are parties of the simulated outside world. */
  readonly kind: "sip" | "sim";
  readonly state: ChannelState;
  /** Who the call is from, as this leg shows it. */
  readonly callerIdName: string;
  readonly callerIdNumber: string;
  /** What was dialled (inbound) or whom this leg calls (outbound). */
  readonly destinationNumber: string;
  /** The extension this leg belongs to, for legs to or from a registered phone. */
  readonly extension?: string;
  /** SIP Call-ID of a 'sip' leg. */
  readonly sipCallId?: string;
  /** Channel variables (FreeSWITCH style): cc_queue, cc_agent, cc_member_uuid, ... They reach the CDR. */
  readonly variables: Map<string, string>;
  readonly createdAt: Date;
  readonly answeredAt?: Date;
  readonly endedAt?: Date;
  readonly hangupCause?: HangupCause;

  /** Answers an inbound channel that is ringing (the platform picks up, e.g. for a queue). */
  answer(): Promise<void>;
  /** Ends the leg: BYE, CANCEL or a final response, depending on its state. */
  hangup(cause?: HangupCause): void;
  /** Sends DTMF to the leg's far end (in-band tones). */
  sendDtmf(digits: string): void;

  on<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this;
  off<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this;
  once<E extends keyof ChannelEvents>(event: E, listener: ChannelEvents[E]): this;
}

export type OriginateTarget =
  /** Ring every registered contact of the extension (first answer wins, the others are cancelled). */
  | { extension: string }
  /** A number routed by the dialplan: an extension, a queue, a simulated party, echo, ... */
  | { number: string };

export interface OriginateOptions {
  callerIdName: string;
  callerIdNumber: string;
  /** Seconds to ring before giving up with NO_ANSWER. */
  timeoutSeconds?: number;
  /**
   * Mark the leg to be answered by the phone itself: `Call-Info: <sip:...>;answer-after=0` and
   * `;intercom=true` in the Request-URI, as FreeSWITCH's sip_auto_answer does.
   */
  autoAnswer?: boolean;
  /** Extra SIP headers on the INVITE ("Name: value"), e.g. the call-center's X- headers. */
  headers?: string[];
  variables?: Record<string, string>;
  /** Use this uuid for the new channel (the cc engine hands out callIDs before originating). */
  uuid?: string;
}

export interface SwitchEvents {
  "channel-create": (ch: Channel) => void;
  /** An outbound channel rings (180/183 from the phone, a simulated party ringing) or an inbound one got early media. */
  "channel-progress": (ch: Channel) => void;
  "channel-answer": (ch: Channel) => void;
  "channel-bridge": (a: Channel, b: Channel) => void;
  "channel-unbridge": (a: Channel, b: Channel) => void;
  "channel-hangup": (ch: Channel, cause: HangupCause) => void;
  "channel-hold": (ch: Channel, held: boolean) => void;
}

/** A destination handler of the dialplan, e.g. the call-center engine claiming queue names. */
export type RouteHandler = (caller: Channel, destination: string) => void | Promise<void>;

export interface Switch {
  /** Creates an outbound channel and starts ringing it; watch its events for the outcome. */
  originate(target: OriginateTarget, options: OriginateOptions): Channel;
  /**
   * Connects two channels' audio both ways and links them as partners. When one hangs up, the
   * other is hung up too unless `parkAfterBridge` is set for it (it then stays up, silent).
   */
  bridge(a: Channel, b: Channel, options?: { parkAfterBridge?: "a" | "b" | "both" }): void;
  /** Separates a channel from its partner without hanging up either; returns the former partner. */
  unbridge(ch: Channel): Channel | undefined;
  partnerOf(ch: Channel): Channel | undefined;
  /**
   * Holds a channel as FreeSWITCH's uuid_hold does: a re-INVITE with a=sendonly to the leg (for
   * phone legs), its audio no longer reaches the partner, and the partner hears music on hold.
   */
  hold(ch: Channel): Promise<void>;
  unhold(ch: Channel): Promise<void>;
  /** Plays music on hold to a channel (e.g. a caller waiting in a queue, a customer during consult). */
  playMusic(ch: Channel): void;
  /** Plays a tone/ringback/silence to a channel, replacing what it heard. */
  playTone(ch: Channel, tone: "ringback" | "busy" | "silence" | { frequency: number }): void;
  /**
   * `listener` joins `target`'s call as FreeSWITCH's eavesdrop (and three_way) does: it hears
   * both legs of target's bridge, and `mode` says who hears it (shared/supervision-mode.ts).
   */
  eavesdrop(listener: Channel, target: Channel, mode: SupervisionMode): void;
  /** Sends a channel to a new destination through the dialplan (uuid_transfer); it leaves its bridge. */
  transfer(ch: Channel, destination: string): void;
  /** Claims destinations in the dialplan (the call-center engine claims queue names and numbers). */
  addRoute(matches: (destination: string) => boolean, handler: RouteHandler): void;
  channel(uuid: string): Channel | undefined;
  channels(): Channel[];
  /** Starts recording the call this channel is in (both sides) to a WAV file. */
  record(ch: Channel): void;
  /**
   * FreeSWITCH's uuid_phone_event: a NOTIFY with `Event: talk` (answer) or `Event: hold` to a
   * phone leg, in its early dialog while it rings. Returns whether a NOTIFY went out (false for
   * simulated legs, or before the phone's 180). sip.js phones drop it while ringing: they answer
   * locally (see platform-facts §3.6).
   */
  phoneEvent?(ch: Channel, event: "talk" | "hold"): boolean;

  on<E extends keyof SwitchEvents>(event: E, listener: SwitchEvents[E]): this;
  off<E extends keyof SwitchEvents>(event: E, listener: SwitchEvents[E]): this;
}
