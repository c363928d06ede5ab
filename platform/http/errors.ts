import type { AuthError } from "../auth/auth-error";
import type { PlatformProfile } from "../profile";

/**
 * An error answered to the HTTP client with `status` and a JSON body. The spec's error bodies are
 * `{code, text}` (sessions, developer keys) or envelopes `{code, message}` (call-center control);
 * `body` is sent as given.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.text ?? body.message ?? status));
  }
}

/** `{code, text}` error body, the form of most platform errors. */
export const fail = (status: number, text: string, extra: Record<string, unknown> = {}) =>
  new HttpError(status, { code: status, text, ...extra });

export const badRequest = (text: string) => fail(400, text);
export const notFound = (text = "Not Found") => fail(404, text);
export const noPermission = () => fail(403, "no permission");

/** The success envelope `{code:200, message:'success', data}`. */
export const envelope = <T>(data: T) => ({ code: 200, message: "success", data });

/**
 * A refused sign-in or token as the spec answers it: 400 when the request lacks what a sign-in
 * needs, else 403 `{code, text}`, with (`full` profile) the fields the toolbar explains without
 * parsing the text.
 */
export function authRefusal(e: AuthError, profile: PlatformProfile): HttpError {
  const d = e.details;
  const status = e.kind === "incomplete" ? 400 : 403;
  if (profile === "spec-minimal") return fail(status, e.message);
  return fail(status, e.message, {
    ...(d.attemptsLeft !== undefined ? { attempts_left: d.attemptsLeft } : {}),
    ...(d.captchaRequired ? { captcha_required: true } : {}),
    ...(d.lockedUntil !== undefined ? { locked: true, locked_until: d.lockedUntil } : {}),
  });
}
