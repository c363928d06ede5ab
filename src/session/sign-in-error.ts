import { PlatformError } from "../api/errors";

/**
 * Why a sign-in (or the restoring of a session) did not work, as data the UI puts into words.
 * The platform's sign-in refusals carry fields for this (`attempts_left`, `captcha_required`,
 * `locked`, `locked_until`), so no message text is parsed except the one without a field.
 */
export type SignInError =
  /** `attemptsLeft`: failures left before the account is locked, when the platform says. */
  | { kind: "wrong-credentials"; attemptsLeft: number | null }
  /** The platform wants the picture's characters; `wrongCaptcha` when the ones sent did not match. */
  | { kind: "captcha-required"; wrongCaptcha: boolean }
  /** `until`: UNIX ms of the unlock time when it could be read; `untilText` as the platform wrote it. */
  | { kind: "locked"; until: number | null; untilText: string }
  | { kind: "disabled" }
  | { kind: "unreachable"; address: string }
  | { kind: "timeout"; address: string }
  /** Something answered, but not like the platform (a web page, a 404): most likely a wrong address. */
  | { kind: "not-a-platform"; address: string }
  | { kind: "other"; message: string; status: number };

/** Lock duration after the fifth failure, from the spec's limits (the platform does not report it). */
export const LOCK_HOURS = 2;

export interface SignInErrorContext {
  /** The platform address as shown to the user. */
  address: string;
  /** Whether the failed request carried captcha characters. */
  sentCaptcha: boolean;
}

export function signInErrorOf(error: unknown, ctx: SignInErrorContext): SignInError {
  if (!(error instanceof PlatformError)) {
    return { kind: "other", message: error instanceof Error ? error.message : String(error), status: 0 };
  }
  switch (error.kind) {
    case "network":
      return { kind: "unreachable", address: ctx.address };
    case "timeout":
      return { kind: "timeout", address: ctx.address };
    case "decode":
      return { kind: "not-a-platform", address: ctx.address };
  }
  if (error.status === 403 || error.code === 403) {
    if (isTrue(error.detail("locked"))) {
      const untilText = typeof error.detail("locked_until") === "string" ? (error.detail("locked_until") as string) : "";
      return { kind: "locked", until: parsePlatformTime(untilText), untilText };
    }
    const attemptsLeft = numberOf(error.detail("attempts_left"));
    // A refused captcha leaves the password unchecked, so the platform reports no attempts then.
    if (isTrue(error.detail("captcha_required")) && attemptsLeft === null) {
      return { kind: "captcha-required", wrongCaptcha: ctx.sentCaptcha };
    }
    if (/disabled/i.test(error.message)) return { kind: "disabled" };
    return { kind: "wrong-credentials", attemptsLeft };
  }
  if (error.status === 404 || error.status === 405) return { kind: "not-a-platform", address: ctx.address };
  return { kind: "other", message: error.message, status: error.status || error.code };
}

/** Whether the refusal asks for a captcha with the next attempt. */
export function captchaWanted(error: unknown): boolean {
  return error instanceof PlatformError && isTrue(error.detail("captcha_required"));
}

/**
 * Platform timestamps are "YYYY-MM-DD HH:MM:SS" in the platform's local time, which for an agent
 * is almost always their own; an ISO string with a zone is honoured as such.
 */
export function parsePlatformTime(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (m) {
    const [, y, mo, d, h, mi, s = "0"] = m;
    const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    return Number.isNaN(date.getTime()) ? null : date.getTime();
  }
  const ms = /\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(ms) ? null : ms;
}

function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === "true" || value === "1";
}

function numberOf(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  return null;
}
