import type { PhoneSessionState } from "../../session";
import type { Notice, PhoneErrorInfo, RegistrationState } from "../../softphone";
import type { Messages } from "../i18n";

// The phone's registration and notices in words.

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
  if (session.status === "elsewhere")
    return { label: t.phone.tabs.elsewhere, tone: "ok", detail: t.phone.tabs.elsewhereDetail, canRetry: false };
  if (session.status === "unavailable") {
    const p = session.problem;
    const detail =
      !p || p.kind === "no-extension"
        ? t.phone.noExtension
        : p.kind === "token"
          ? t.phone.tokenFailed(p.error.message)
          : t.phone.settingsProblem;
    return {
      label: p?.kind === "no-extension" ? s.unavailable : s.failed,
      tone: p?.kind === "no-extension" ? "off" : "error",
      detail,
      canRetry: p?.kind === "token",
    };
  }
  switch (reg.status) {
    case "registered":
      return { label: s.registered, tone: "ok", detail: "", canRetry: false };
    case "connecting":
    case "registering":
      return { label: s[reg.status], tone: "busy", detail: "", canRetry: false };
    case "reconnecting":
      return {
        label: s.reconnecting,
        tone: "warn",
        detail: `${reasonText(reg.error, t)} ${t.phone.nextAttempt(time(reg.nextAttemptAt), reg.attempt)}`,
        canRetry: true,
      };
    case "failed":
      return { label: s.failed, tone: "error", detail: reasonText(reg.error, t), canRetry: true };
    default:
      return { label: s.off, tone: "off", detail: "", canRetry: false };
  }
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
