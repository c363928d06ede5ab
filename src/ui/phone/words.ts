import type { PhoneSessionState } from "../../session";
import type { Call, Notice, PhoneErrorInfo, RegistrationState } from "../../softphone";
import type { Messages } from "../i18n";

/** Who a call is with, for people: the name, else the number, else "Unknown caller". */
export function whoOf(call: Call, t: Messages): string {
  const r = call.remote;
  if (r.withheld && !r.number) return t.phone.unknownCaller;
  return r.name || r.number || t.phone.unknownCaller;
}

/** The name and, when there is a name, the number under it. */
export function partyLines(call: Call, t: Messages): { name: string; number: string } {
  const r = call.remote;
  const name = whoOf(call, t);
  return { name, number: r.name && r.number && r.number !== r.name ? r.number : "" };
}

export function reasonText(error: PhoneErrorInfo, t: Messages): string {
  const r = t.phone.reason;
  switch (error.kind) {
    case "auth":
    case "not-found":
    case "transport":
    case "timeout":
    case "invalid-settings":
      return r[error.kind];
    case "server":
      return r.server(error.status ?? 503);
    case "rejected":
      return r.rejected(error.status ?? 0, error.reasonPhrase ?? "");
    default:
      return r.other;
  }
}

export type ChipTone = "ok" | "busy" | "warn" | "error" | "off";

/**
 * The registration chip: a short label, its colour, and (for failures) the reason and when the
 * next attempt is, in words.
 */
export function registrationWords(
  session: PhoneSessionState,
  reg: RegistrationState,
  t: Messages,
  time: (ms: number) => string,
): { label: string; tone: ChipTone; detail: string; canRetry: boolean } {
  const s = t.phone.status;
  if (session.status === "off") return { label: s.off, tone: "off", detail: "", canRetry: false };
  if (session.status === "starting") return { label: s.starting, tone: "busy", detail: "", canRetry: false };
  if (session.status === "unavailable") {
    const p = session.problem;
    const detail = !p || p.kind === "no-extension" ? t.phone.noExtension : p.kind === "token" ? t.phone.tokenFailed(p.error.message) : t.phone.settingsProblem;
    return { label: p?.kind === "no-extension" ? s.unavailable : s.failed, tone: p?.kind === "no-extension" ? "off" : "error", detail, canRetry: p?.kind === "token" };
  }
  switch (reg.status) {
    case "registered":
      return { label: s.registered, tone: "ok", detail: "", canRetry: false };
    case "connecting":
    case "registering":
      return { label: s[reg.status], tone: "busy", detail: "", canRetry: false };
    case "reconnecting":
      return { label: s.reconnecting, tone: "warn", detail: `${reasonText(reg.error, t)} ${t.phone.nextAttempt(time(reg.nextAttemptAt), reg.attempt)}`, canRetry: true };
    case "failed":
      return { label: s.failed, tone: "error", detail: reasonText(reg.error, t), canRetry: true };
    default:
      return { label: s.off, tone: "off", detail: "", canRetry: false };
  }
}

/** What a call card says about where the call stands. */
export function stateText(call: Call, t: Messages, waiting: boolean): string {
  const s = t.phone.state;
  if (call.state === "ended") return call.end ? t.phone.end[call.end.kind] : s.ended;
  // Early media is almost always the far end's own ringback: it reads as ringing all the same.
  if (call.state === "early") return s.ringingOut;
  if (call.state === "ringing") return waiting ? s.waiting : s.ringing;
  return s[call.state];
}

export function noticeText(n: Notice, t: Messages): string {
  const m = t.phone.notice;
  const role = (r: "microphone" | "speaker" | "ringer") => t.phone[r];
  switch (n.kind) {
    case "device-fallback":
      return m.deviceFallback(role(n.role), n.label || t.phone.systemDefault);
    case "device-restored":
      return m.deviceRestored(role(n.role), n.label);
    case "microphone-unavailable":
      return m.microphone(n.error.detail ?? "");
    case "refer-refused":
      return m.referRefused(n.target.replace(/^sips?:/, ""));
    case "auto-answer-skipped":
      return m.autoAnswerSkipped;
    case "incoming-refused-busy":
      return m.incomingRefusedBusy(n.from.replace(/^sips?:/, "").replace(/@.*/, ""));
    case "hold-failed":
      return m.holdFailed(n.resume);
    case "transfer-failed":
      return m.transferFailed;
    case "dtmf-fallback":
      return m.dtmfFallback;
    case "audio-blocked":
      return m.audioBlocked;
    case "ice-restart-failed":
      return m.iceRestartFailed;
  }
}

/** "0:07", "12:03", "1:02:03" */
export function formatDuration(totalSec: number): string {
  const s = Math.max(0, Math.floor(totalSec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** A SIP URI as a person would write it: no scheme, no parameters, no domain for plain numbers. */
export function displayTarget(uri: string): string {
  const bare = uri.replace(/^sips?:/, "").split(/[;?]/)[0] ?? uri;
  return /^\+?[\d*#]+@/.test(bare) ? bare.replace(/@.*/, "") : bare;
}
