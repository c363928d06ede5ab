import type { DeviceNotice } from "./audio-devices";
import type { CallId } from "./call";
import type { PhoneErrorInfo } from "./phone-error";

/**
 * Things the user should hear about that are not a state: the UI shows them as toasts and
 * dismisses them. `id` increases with time.
 */
export type Notice = { id: number; at: number } & NoticeBody;

export type NoticeBody =
  | DeviceNotice
  | { kind: "microphone-unavailable"; callId?: CallId; error: PhoneErrorInfo }
  /** The other side asked us (REFER) to call someone and the policy refused. */
  | { kind: "refer-refused"; callId: CallId; target: string }
  /** A call marked for auto-answer rang normally because another call is in progress. */
  | { kind: "auto-answer-skipped"; callId: CallId; reason: "busy" }
  /** An incoming call was turned away with 486 because the phone holds `maxCalls` calls. */
  | { kind: "incoming-refused-busy"; from: string }
  | { kind: "hold-failed"; callId: CallId; resume: boolean; error: PhoneErrorInfo }
  | { kind: "transfer-failed"; callId: CallId; error: PhoneErrorInfo }
  /** DTMF as RFC 4733 was not possible (telephone-event not negotiated); SIP INFO was used. */
  | { kind: "dtmf-fallback"; callId: CallId }
  /** The browser refused to play the call's audio without a user gesture: offer a button that calls `resumeAudio()`. */
  | { kind: "audio-blocked"; callId: CallId }
  /** After a reconnection the call's media could not be renegotiated. */
  | { kind: "ice-restart-failed"; callId: CallId; error: PhoneErrorInfo };

/** Notices kept in the store; older ones drop out. */
export const NOTICES_KEPT = 20;
