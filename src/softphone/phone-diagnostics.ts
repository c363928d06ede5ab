import type { DevicesState } from "./audio-devices";
import type { Call } from "./call";
import type { Notice } from "./notice";
import type { PhoneState } from "./phone-store";
import type { CallStatsTimeline } from "./quality-watchdog";
import { redactUrl } from "./redact";
import type { RegistrationEvent } from "./registration-history";
import type { RegistrationState, TransportStatus } from "./registration-state";
import type { PublicSettings } from "./settings";
import type { TracedSipMessage } from "./sip-trace";

/** The phone's share of a diagnostics bundle: plain data, with no secret in it. */
export interface PhoneDiagnostics {
  registration: RegistrationState;
  registrations: RegistrationEvent[];
  transport: TransportStatus;
  /** The settings in use, without credentials (TURN passwords, header values, URL secrets). */
  settings: DiagnosticSettings | null;
  devices: DevicesState;
  /** The calls in the store now (live and recently ended), as the UI sees them. */
  calls: Call[];
  /** A reading a second of the last calls' media statistics. */
  callStats: CallStatsTimeline[];
  sipTrace: TracedSipMessage[];
  notices: Notice[];
}

export type DiagnosticSettings = Omit<PublicSettings, "iceServers" | "registerHeaders"> & {
  iceServers: Array<{ urls: string[]; withCredential: boolean }>;
  /** Names of the extra REGISTER headers (their values may be tokens). */
  registerHeaders: string[];
};

export function diagnosticSettings(s: PublicSettings): DiagnosticSettings {
  return {
    ...s,
    server: redactUrl(s.server),
    iceServers: s.iceServers.map((ice) => ({
      urls: (Array.isArray(ice.urls) ? ice.urls : [ice.urls]).map(redactUrl),
      withCredential: !!ice.credential || !!ice.username,
    })),
    registerHeaders: s.registerHeaders.map((line) => line.split(":", 1)[0]!.trim()),
  };
}

export function phoneDiagnostics(parts: {
  state: PhoneState;
  calls: readonly Call[];
  registrations: RegistrationEvent[];
  callStats: CallStatsTimeline[];
  sipTrace: TracedSipMessage[];
}): PhoneDiagnostics {
  const { state } = parts;
  return {
    registration: state.registration,
    registrations: parts.registrations,
    transport: state.transport,
    settings: state.settings ? diagnosticSettings(state.settings) : null,
    devices: state.devices,
    calls: [...parts.calls],
    callStats: parts.callStats,
    sipTrace: parts.sipTrace,
    notices: [...state.notices],
  };
}
