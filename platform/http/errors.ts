import type { AuthError } from "../auth/auth-error";

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
 * needs, else 403 `{code, text}` with the fields the toolbar explains without parsing the text.
 */
export function authRefusal(e: AuthError): HttpError {
  const d = e.details;
  return fail(e.kind === "incomplete" ? 400 : 403, e.message, {
    ...(d.attemptsLeft !== undefined ? { attempts_left: d.attemptsLeft } : {}),
    ...(d.captchaRequired ? { captcha_required: true } : {}),
    ...(d.lockedUntil !== undefined ? { locked: true, locked_until: d.lockedUntil } : {}),
  });
}
