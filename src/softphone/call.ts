import type { AutoAnswerMarker } from "./auto-answer";
import type { CallQuality } from "./call-quality";
import type { DtmfMode } from "./dtmf";
import type { PhoneErrorInfo } from "./phone-error";
import type { SipReason } from "./reason-header";
import type { RemoteParty } from "./remote-party";

export type CallId = string;
export type CallDirection = "inbound" | "outbound";

/**
 * - `ringing`: an incoming call not answered yet;
 * - `dialing`: our INVITE is out, nothing heard back but 100 Trying;
 * - `early`: the far end rings (180) or plays early media (183), see `progress`;
 * - `connecting`: answered here, waiting for the far end to confirm;
 * - `active`: talking;
 * - `held`: we put it on hold;
 * - `remote-held`: the other side put us on hold (and we did not);
 * - `ended`: over; `end` says how.
 */
export type CallState = "ringing" | "dialing" | "early" | "connecting" | "active" | "held" | "remote-held" | "ended";

/** What the far end said before answering an outgoing call. */
export interface CallProgress {
  /** 180, 181, 182, 183... */
  status: number;
  reasonPhrase: string;
  /**
   * The far end sends audio before answering (a provisional response with SDP: announcements,
   * its own ringback). When false the UI plays a local ringback tone; once true it stays true.
   */
  earlyMedia: boolean;
}

/**
 * How a call ended, in words the UI can pick from:
 * `hangup` (normal end), `cancelled` (given up before answer), `declined` (603), `busy` (486/600),
 * `no-answer` (480/408 or our own ring time-out), `not-found` (404/484/604), `unavailable` (5xx),
 * `failed` (media or signalling error), `transferred` (we transferred it away),
 * `completed-elsewhere` (answered on another device, or intercepted: Reason SIP;cause=200),
 * `replaced` (an attended transfer took it over), `connection-lost` (the connection to the server
 * dropped before the call was answered; the server ends such calls).
 */
export type CallEndKind =
  | "hangup"
  | "cancelled"
  | "declined"
  | "busy"
  | "no-answer"
  | "not-found"
  | "unavailable"
  | "failed"
  | "transferred"
  | "completed-elsewhere"
  | "replaced"
  | "connection-lost";

export interface CallEnd {
  kind: CallEndKind;
  /** Who ended it: us (a user action), the other side, or the phone itself (time-out, failure). */
  by: "local" | "remote" | "system";
  /** SIP status of the final response, when a response ended it. */
  status?: number;
  reasonPhrase?: string;
  /** Reason header values of the BYE/CANCEL/response, e.g. Q.850 causes. */
  reasons?: SipReason[];
  error?: PhoneErrorInfo;
}

export interface CallAutoAnswer {
  marker?: AutoAnswerMarker;
  /** Why it is answered by itself: the auto-answer policy, or the call-center layer's decision. */
  decidedBy: "policy" | "handler";
  afterSec: number;
  /** When it will be (or was) answered, ms since epoch. */
  answerAt: number;
}

/** An outgoing transfer of this call: blind (REFER to an address) or attended (REFER with Replaces). */
export interface CallTransfer {
  kind: "blind" | "attended";
  /** Who the call goes to. */
  target: string;
  /** `requested`: REFER sent; `accepted`: 202; `trying`: the transferee reports progress. */
  state: "requested" | "accepted" | "trying" | "succeeded" | "failed";
  /** Last status reported by the transferee (sipfrag) or the REFER's failure status. */
  status?: number;
  reasonPhrase?: string;
}

/** A REFER the other side sent on this call (they ask us to call someone). */
export interface CallReferRequest {
  target: string;
  referredBy?: string;
  /** The target is asked to replace an existing call (attended transfer). */
  replaces: boolean;
  state: "pending" | "accepted" | "rejected";
  /** The new call placed to follow it, once accepted. */
  followCallId?: CallId;
}

/** A call as the UI and the call-center layer see it: plain data, replaced on every change. */
export interface Call {
  id: CallId;
  direction: CallDirection;
  state: CallState;
  remote: RemoteParty;
  /** ms since epoch: when it started ringing or dialling, was answered, ended. */
  startedAt: number;
  answeredAt?: number;
  endedAt?: number;
  progress?: CallProgress;
  muted: boolean;
  held: boolean;
  remoteHeld: boolean;
  /** A hold or resume re-INVITE is under way; `held` changes only when it succeeds. */
  holdPending: boolean;
  autoAnswer?: CallAutoAnswer;
  /** Labels added by the call-center layer (queue, customer...). */
  context: Readonly<Record<string, string>>;
  /** This call is a consultation placed for an attended transfer of that call. */
  consultForCallId?: CallId;
  /** This call's consultation call, while there is one. */
  consultCallId?: CallId;
  /** This call was placed to follow a REFER received on that call. */
  referredFromCallId?: CallId;
  transfer?: CallTransfer;
  referRequest?: CallReferRequest;
  /** DTMF sent so far and how. */
  dtmf: { sent: string; mode?: DtmfMode };
  /** How the call sounds (network figures, warnings), once answered; see quality-watchdog.ts. */
  quality?: CallQuality;
  end?: CallEnd;
}

/** The record of a call as it enters the store: ringing, nothing muted, held, labelled or sent yet. */
export function newCall(id: CallId, direction: CallDirection, remote: Call["remote"], startedAt: number): Call {
  return {
    id,
    direction,
    state: "ringing",
    remote,
    startedAt,
    muted: false,
    held: false,
    remoteHeld: false,
    holdPending: false,
    context: {},
    dtmf: { sent: "" },
  };
}

/** Calls that are not over yet. */
export function isLive(call: Call): boolean {
  return call.state !== "ended";
}

/** Calls that are talking (or would be, but for the other side's hold). */
export function isTalking(call: Call): boolean {
  return call.state === "active" || call.state === "remote-held";
}

/** The state shown for an answered call, from its flags. */
export function answeredState(held: boolean, remoteHeld: boolean): CallState {
  return held ? "held" : remoteHeld ? "remote-held" : "active";
}

export function endKindForStatus(status: number): CallEndKind {
  if (status === 486 || status === 600) return "busy";
  if (status === 603) return "declined";
  if (status === 480 || status === 408) return "no-answer";
  if (status === 404 || status === 484 || status === 604) return "not-found";
  if (status === 487) return "cancelled";
  if (status >= 500 && status < 600) return "unavailable";
  return "failed";
}
