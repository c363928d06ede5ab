/**
 * What went wrong in the phone, in a form the UI can put into words:
 * - `invalid-settings`: the SIP address, password or WebSocket URL cannot be used as given;
 * - `auth`: the server refused the credentials (401/407 after our digest answer, or 403);
 * - `not-found`: the server does not know the user (404);
 * - `transport`: the WebSocket could not be opened, closed under us, or stopped answering;
 * - `timeout`: the server did not answer a request in time (408);
 * - `server`: the server is unwell or busy (5xx), possibly with a Retry-After;
 * - `rejected`: any other final refusal (other 4xx, 6xx);
 * - `not-connected`: an action needs a connection the phone does not have right now;
 * - `invalid-number`: the dialled text is not a number or SIP address (see `detail`);
 * - `invalid-dtmf`: a DTMF string with characters that are not 0-9, A-D, * or #;
 * - `no-such-call` / `invalid-state`: the call is gone, or the action does not fit its state;
 * - `too-many-calls`: the phone already holds as many calls as it is allowed to;
 * - `microphone`: the microphone could not be opened (permission, device missing or busy);
 * - `sip`: a request inside a call failed with a SIP status (hold, transfer, ...).
 */
export type PhoneErrorKind =
  | "invalid-settings"
  | "auth"
  | "not-found"
  | "transport"
  | "timeout"
  | "server"
  | "rejected"
  | "not-connected"
  | "invalid-number"
  | "invalid-dtmf"
  | "no-such-call"
  | "invalid-state"
  | "too-many-calls"
  | "microphone"
  | "sip";

/** The plain-data form kept in stores (stores hold data, not Error objects). */
export interface PhoneErrorInfo {
  kind: PhoneErrorKind;
  /** SIP status code, when a SIP response caused it. */
  status?: number;
  reasonPhrase?: string;
  /** Seconds the server asked us to wait (Retry-After). */
  retryAfterSec?: number;
  /** Technical detail for logs and support, not meant to be shown as is. */
  detail?: string;
}

export class PhoneError extends Error {
  override readonly name = "PhoneError";
  readonly kind: PhoneErrorKind;
  readonly status?: number;
  readonly reasonPhrase?: string;
  readonly retryAfterSec?: number;
  readonly detail?: string;

  constructor(info: PhoneErrorInfo) {
    super(describe(info));
    this.kind = info.kind;
    if (info.status !== undefined) this.status = info.status;
    if (info.reasonPhrase !== undefined) this.reasonPhrase = info.reasonPhrase;
    if (info.retryAfterSec !== undefined) this.retryAfterSec = info.retryAfterSec;
    if (info.detail !== undefined) this.detail = info.detail;
  }

  /** The plain-data form of any thrown value. */
  static infoOf(e: unknown): PhoneErrorInfo {
    if (e instanceof PhoneError) return e.info;
    return { kind: "sip", detail: e instanceof Error ? e.message : String(e) };
  }

  get info(): PhoneErrorInfo {
    return {
      kind: this.kind,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.reasonPhrase !== undefined ? { reasonPhrase: this.reasonPhrase } : {}),
      ...(this.retryAfterSec !== undefined ? { retryAfterSec: this.retryAfterSec } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
    };
  }
}

function describe(info: PhoneErrorInfo): string {
  const status = info.status ? ` (${info.status}${info.reasonPhrase ? " " + info.reasonPhrase : ""})` : "";
  return `${info.kind}${status}${info.detail ? ": " + info.detail : ""}`;
}

/**
 * Maps the final failure response of a REGISTER or of any out-of-call request to an error kind.
 * sip.js makes up a 408 (timer expiry) or a 503 (transport error) without any headers when no
 * response came from the server; `fromServer` tells the two apart.
 */
export function errorForResponse(
  status: number,
  reasonPhrase: string,
  fromServer: boolean,
  retryAfterSec?: number,
): PhoneErrorInfo {
  const base = { status, reasonPhrase, ...(retryAfterSec !== undefined ? { retryAfterSec } : {}) };
  if (!fromServer)
    return { kind: status === 408 ? "timeout" : "transport", ...base, detail: "no response from the server" };
  if (status === 401 || status === 403 || status === 407) return { kind: "auth", ...base };
  if (status === 404) return { kind: "not-found", ...base };
  if (status === 408) return { kind: "timeout", ...base };
  if (status >= 500 && status < 600) return { kind: "server", ...base };
  return { kind: "rejected", ...base };
}

/** Whether waiting and trying again can help (not for refused credentials or unknown users). */
export function isTransient(error: PhoneErrorInfo): boolean {
  return error.kind === "transport" || error.kind === "timeout" || error.kind === "server";
}
