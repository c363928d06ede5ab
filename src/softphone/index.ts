// The reusable browser phone: registration, calls and media devices over SIP on WebSocket.
// It knows nothing of REST or of the UI; both talk to it through `Phone` and its two stores.
export { Phone, type PhoneEnvironment, type CallOptions, type LiveSettings } from "./phone";
export type { PhoneStore, PhoneState } from "./phone-store";
export { findCall, type CallsStore, type CallsState, ENDED_CALLS_KEPT } from "./calls-store";
export {
  isLive,
  isTalking,
  type Call,
  type CallId,
  type CallDirection,
  type CallState,
  type CallProgress,
  type CallEnd,
  type CallEndKind,
  type CallAutoAnswer,
  type CallTransfer,
  type CallReferRequest,
} from "./call";
export type { RegistrationState, TransportStatus } from "./registration-state";
export { PhoneError, type PhoneErrorKind, type PhoneErrorInfo } from "./phone-error";
export type { PhoneSettings, PublicSettings, ReferPolicy, KeepAliveSettings } from "./settings";
export { DEFAULT_SETTINGS } from "./settings";
export type { PhoneEventMap, PhoneEventName, PhoneEventHandler } from "./phone-events";
export type { Notice, NoticeBody } from "./notice";
export type { IncomingCall, IncomingCallDecision, IncomingCallHandler } from "./incoming-call";
export type { AutoAnswerPolicy, AutoAnswerMarker, AutoAnswerSource, AutoAnswerDecision } from "./auto-answer";
export type { DtmfMode } from "./dtmf";
export type { RemoteParty } from "./remote-party";
export type { SipReason } from "./reason-header";
export type { AudioDevice, AudioDeviceRole, DevicesState, MediaDevicesLike } from "./audio-devices";
export { memoryStorage, type PreferenceStorage, type DevicePreference } from "./device-preferences";
export type { AudioElementLike } from "./remote-audio";
export type { PageEventTarget } from "./page-lifecycle";
export {
  parseDialInput,
  normaliseNumber,
  type DialTarget,
  type DialInputProblem,
  type DialInputResult,
} from "./dial-input";
export type { CallQuality } from "./call-quality";
export type { QualityIssue, QualityMark } from "./quality-rules";
export type { OneWayAudioReason } from "./one-way-audio";
export type { CallStatsSample } from "./call-stats";
export type { CallStatsTimeline } from "./quality-watchdog";
export type { PhoneDiagnostics, DiagnosticSettings } from "./phone-diagnostics";
export type { TracedSipMessage } from "./sip-trace";
export type { RegistrationEvent } from "./registration-history";
export { redactUrl, redactSipMessage, scrubSecrets, REDACTED } from "./redact";
