/**
 * A call-center function's refusal, answered as the spec's envelope `{code, message}` (REST: with
 * the same HTTP status; JSON-RPC jsapi: as the result). Codes: 400 a malformed request, 403 not
 * allowed ("no permission ..."), 404 an unknown agent, queue or call, 500 a request that does not
 * fit the current state (the spec's `{code:500, message:'can not find group?'}` for ccDial while
 * not signed in is one), 501 something the switch cannot do, 503 no switch running.
 */
export class CcError extends Error {
  constructor(
    readonly code: 400 | 403 | 404 | 500 | 501 | 503,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new CcError(400, message);
export const noPermission = (message: string) => new CcError(403, `no permission: ${message}`);
export const notFound = (message: string) => new CcError(404, message);
export const wrongState = (message: string) => new CcError(500, message);

/** The spec's exact answer to ccDial by an agent that is not signed in. */
export const NOT_SIGNED_IN_DIAL = "can not find group?";
