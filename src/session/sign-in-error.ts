import { PlatformError } from "../api/errors";

/**
 * Why a sign-in (or the restoring of a session) did not work, as data the UI puts into words (the
 * session store's `error`).
 * The local platform's sign-in refusals carry fields for this (`attempts_left`,
 * `captcha_required`, `locked`, `locked_until`); the spec shows only `{code:403, text}`, so a
 * refusal without them is read by the spec's rules (a captcha from the second failure on) and,
 * for a lock or a disabled account, by its words.
 */
export type SignInErrorInfo =
  /** `attemptsLeft`: failures left before the account is locked, when the platform says. */
  | { kind: "wrong-credentials"; attemptsLeft: number | null }
  /** The platform wants the picture's characters; `wrongCaptcha` when the ones sent did not match. */
  | { kind: "captcha-required"; wrongCaptcha: boolean }
  /** A refusal of a sign-in that sent a captcha, from a platform that does not say which of the two was wrong. */
  | { kind: "wrong-credentials-or-captcha" }
  /** `until`: UNIX ms of the unlock time when it could be read; `untilText` as the platform wrote it. */
  | { kind: "locked"; until: number | null; untilText: string }
  | { kind: "disabled" }
  | { kind: "unreachable"; address: string }
  | { kind: "timeout"; address: string }
  /** Something answered, but not like the platform (a web page, a 404): most likely a wrong address. */
  | { kind: "not-a-platform"; address: string }
  | { kind: "other"; message: string; status: number };

/** A sign-in refused, as a promise rejects with it (`signInWithToken`); `info` is what a store keeps. */
export class SignInError extends Error {
  override readonly name = "SignInError";
  readonly kind: SignInErrorInfo["kind"];

  constructor(readonly info: SignInErrorInfo) {
    super(info.kind === "other" ? info.message : info.kind);
    this.kind = info.kind;
  }
}

/** Lock duration after the fifth failure, from the spec's limits (the platform does not report it). */
export const LOCK_HOURS = 2;
/** The spec's limit: from this many failed sign-ins on, the next one must carry captcha_str. */
export const CAPTCHA_AFTER_FAILURES = 2;

export interface SignInErrorContext {
  /** The platform address as shown to the user. */
  address: string;
  /** Whether the failed request carried captcha characters. */
  sentCaptcha: boolean;
  /** Sign-ins of this login refused here before this one, since its last success. */
  failuresBefore?: number;
}

export function signInErrorOf(error: unknown, ctx: SignInErrorContext): SignInErrorInfo {
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
    if (!explained(error)) {
      if (/disabled/i.test(error.message)) return { kind: "disabled" };
      if (/locked/i.test(error.message)) {
        const untilText = /until\s+(.+?)\.?$/i.exec(error.message)?.[1] ?? "";
        return { kind: "locked", until: parsePlatformTime(untilText), untilText };
      }
      return ctx.sentCaptcha
        ? { kind: "wrong-credentials-or-captcha" }
        : { kind: "wrong-credentials", attemptsLeft: null };
    }
    if (isTrue(error.detail("locked"))) {
      const untilText =
        typeof error.detail("locked_until") === "string" ? (error.detail("locked_until") as string) : "";
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

/**
 * Whether the next attempt needs a captcha: as the refusal says, or, when it does not say, by the
 * spec's rule (from the second failure on; once asked for, until a success).
 */
export function captchaWanted(error: unknown, ctx: SignInErrorContext): boolean {
  if (!(error instanceof PlatformError)) return false;
  if (explained(error)) return isTrue(error.detail("captcha_required"));
  if (error.status !== 403 && error.code !== 403) return false;
  return ctx.sentCaptcha || (ctx.failuresBefore ?? 0) + 1 >= CAPTCHA_AFTER_FAILURES;
}

/** Whether a refusal carries the fields that explain it, or only the spec's `{code, text}`. */
function explained(error: PlatformError): boolean {
  return ["locked", "attempts_left", "captcha_required"].some((field) => error.detail(field) !== undefined);
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
