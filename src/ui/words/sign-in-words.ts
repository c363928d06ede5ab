import { LOCK_HOURS, type SignInErrorInfo } from "../../session/sign-in-error";
import type { Language, Messages } from "../i18n";
import { formatMoment } from "../shared/format";

/** A sign-in error in words, with what to do about it. */
export function signInErrorText(error: SignInErrorInfo, t: Messages, language: Language, now?: number): string {
  switch (error.kind) {
    case "wrong-credentials":
      return t.error.wrongCredentials(error.attemptsLeft, LOCK_HOURS);
    case "captcha-required":
      return error.wrongCaptcha ? t.error.wrongCaptcha : t.error.captchaRequired;
    case "wrong-credentials-or-captcha":
      return t.error.wrongCredentialsOrCaptcha;
    case "locked":
      return t.error.locked(error.until !== null ? formatMoment(error.until, language, now) : error.untilText || null);
    case "disabled":
      return t.error.disabled;
    case "unreachable":
      return t.error.unreachable(error.address);
    case "timeout":
      return t.error.timeout(error.address);
    case "not-a-platform":
      return t.error.notAPlatform(error.address);
    case "other":
      return t.error.other(error.message);
  }
}
