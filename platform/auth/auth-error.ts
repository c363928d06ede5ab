/**
 * Why a sign-in or a token was refused. The HTTP edge turns each kind into the spec's status
 * and error body (`{code, text}` plus the fields the toolbar reads: `captcha_required`,
 * `attempts_left`, `locked`, `locked_until`).
 */
export type AuthErrorKind =
  /** The request lacks what any sign-in needs (a login, a password or key). */
  | "incomplete"
  /** Wrong login, password or developer key. */
  | "wrong-credentials"
  | "captcha-required"
  | "wrong-captcha"
  | "locked"
  | "disabled"
  /** A refresh token that is wrong, expired, spent or of an ended session. */
  | "invalid-refresh-token";

export interface AuthErrorDetails {
  attemptsLeft?: number;
  captchaRequired?: boolean;
  /** The end of the lock, in the platform's timestamp form. */
  lockedUntil?: string;
}

export class AuthError extends Error {
  constructor(
    readonly kind: AuthErrorKind,
    message: string,
    readonly details: AuthErrorDetails = {},
  ) {
    super(message);
  }
}
