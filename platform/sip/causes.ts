import type { HangupCause } from "../switch/types";

/**
 * Hang-up causes both ways, as FreeSWITCH's mod_sofia maps them
 * (`sofia_glue_sip_cause_to_freeswitch` and `hangup_cause_to_sip`), so that the phone, the CDR
 * and the call-center engine see what they would see on the real platform.
 */

/** The cause a SIP final response from a phone means. */
export function causeOfSipStatus(status: number): HangupCause {
  switch (status) {
    case 200:
      return "NORMAL_CLEARING";
    case 401:
    case 402:
    case 403:
    case 407:
    case 603:
    case 608:
      return "CALL_REJECTED";
    case 404:
      return "UNALLOCATED_NUMBER";
    case 485:
    case 604:
      return "NO_ROUTE_DESTINATION";
    case 408:
    case 504:
      return "RECOVERY_ON_TIMER_EXPIRE";
    case 480:
      return "NO_USER_RESPONSE";
    case 400:
    case 481:
    case 500:
    case 503:
      return "NORMAL_TEMPORARY_FAILURE";
    case 486:
    case 600:
      return "USER_BUSY";
    case 488:
    case 606:
      return "INCOMPATIBLE_DESTINATION";
    case 502:
      return "NETWORK_OUT_OF_ORDER";
    case 405:
    case 406:
    case 415:
    case 501:
      return "SERVICE_NOT_IMPLEMENTED";
    case 482:
    case 483:
      return "NORMAL_UNSPECIFIED";
    case 487:
      return "ORIGINATOR_CANCEL";
    default:
      return "NORMAL_UNSPECIFIED";
  }
}

/** The final response a phone gets when the platform ends its unanswered call with `cause`. */
export function sipStatusOfCause(cause: HangupCause): number {
  switch (cause) {
    case "UNALLOCATED_NUMBER":
    case "NO_ROUTE_DESTINATION":
      return 404;
    case "USER_BUSY":
      return 486;
    case "NO_USER_RESPONSE":
      return 408;
    case "NO_ANSWER":
    case "SUBSCRIBER_ABSENT":
    case "USER_NOT_REGISTERED":
      return 480;
    case "CALL_REJECTED":
      return 603;
    case "DESTINATION_OUT_OF_ORDER":
      return 502;
    case "NETWORK_OUT_OF_ORDER":
    case "NORMAL_TEMPORARY_FAILURE":
    case "SYSTEM_SHUTDOWN":
      return 503;
    case "INCOMPATIBLE_DESTINATION":
      return 488;
    case "RECOVERY_ON_TIMER_EXPIRE":
      return 504;
    case "SERVICE_NOT_IMPLEMENTED":
      return 501;
    case "ORIGINATOR_CANCEL":
    case "LOSE_RACE":
    case "PICKED_OFF":
      return 487;
    default:
      return 480;
  }
}

/** Q.850 cause values; FreeSWITCH's own causes above 127 have no Q.850 value. */
const Q850: Partial<Record<HangupCause, number>> = {
  UNALLOCATED_NUMBER: 1,
  NO_ROUTE_DESTINATION: 3,
  NORMAL_CLEARING: 16,
  USER_BUSY: 17,
  NO_USER_RESPONSE: 18,
  NO_ANSWER: 19,
  SUBSCRIBER_ABSENT: 20,
  CALL_REJECTED: 21,
  DESTINATION_OUT_OF_ORDER: 27,
  NORMAL_UNSPECIFIED: 31,
  NETWORK_OUT_OF_ORDER: 38,
  NORMAL_TEMPORARY_FAILURE: 41,
  SERVICE_NOT_IMPLEMENTED: 79,
  INCOMPATIBLE_DESTINATION: 88,
  WRONG_CALL_STATE: 101,
  RECOVERY_ON_TIMER_EXPIRE: 102,
};

export const COMPLETED_ELSEWHERE = 'Reason: SIP;cause=200;text="Call completed elsewhere"';

/**
 * The Reason header the platform puts on a BYE or CANCEL it sends for `cause`: a ring-all loser or
 * an intercepted agent reads "Call completed elsewhere" (so a phone does not log a missed call),
 * causes with a Q.850 value carry it, the others their SIP equivalent.
 */
export function reasonHeaderOf(cause: HangupCause): string {
  if (cause === "LOSE_RACE" || cause === "PICKED_OFF") return COMPLETED_ELSEWHERE;
  const q850 = Q850[cause];
  if (q850 !== undefined) return `Reason: Q.850;cause=${q850};text="${cause}"`;
  return `Reason: SIP;cause=${sipStatusOfCause(cause)};text="${cause}"`;
}
