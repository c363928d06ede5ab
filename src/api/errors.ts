/**
 * What went wrong talking to the platform, in a form the UI can explain:
 * - `http`: the platform answered with an error status or a `{code, text}` error body;
 * - `platform`: an envelope with `code != 200` (e.g. `{code:500, message:'can not find group?'}`);
 * - `network`: no answer (platform unreachable, CORS, connection reset);
 * - `timeout`: no answer within the time-out (60 s by default, as the spec's synchronous mode);
 * - `decode`: an answer whose shape the client does not understand.
 */
export type PlatformErrorKind = "http" | "platform" | "network" | "timeout" | "decode";

export class PlatformError extends Error {
  override readonly name = "PlatformError";

  constructor(
    readonly kind: PlatformErrorKind,
    /** HTTP status (0 when there was no answer). */
    readonly status: number,
    /** The platform's `code` from the body, or the HTTP status. */
    readonly code: number,
    message: string,
    /** `METHOD /path` of the request. */
    readonly endpoint: string,
    /** The decoded error body, for details such as `locked_until`. */
    readonly body?: unknown,
  ) {
    super(message);
  }

  /** 403: missing, wrong or expired token (or no permission). */
  get isAuthError(): boolean {
    return this.status === 403;
  }

  /** A value from the error body, when the platform gave one. */
  detail(key: string): unknown {
    return this.body && typeof this.body === "object" ? (this.body as Record<string, unknown>)[key] : undefined;
  }
}
