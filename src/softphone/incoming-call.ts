import type { AutoAnswerDecision } from "./auto-answer";
import type { Call } from "./call";

/**
 * An incoming INVITE as the call-center layer sees it before the UI does: the call as it is about
 * to enter the store, and the raw headers (platform headers carry the queue and the customer).
 */
export interface IncomingCall {
  readonly call: Call;
  readonly requestUri: string;
  /** First raw value of a header, case-insensitive; undefined when absent. Never parsed. */
  header(name: string): string | undefined;
  /** All raw values of a header. */
  headers(name: string): string[];
  /**
   * The names of the INVITE's headers as the sender wrote them (`X-IVR-Account`, where sip.js's
   * own `headers` spells it `X-Ivr-Account`), each once, in order: a server's own headers (an
   * IVR's input) are read by name with `headers`.
   */
  headerNames(): string[];
  /** What the auto-answer policy decided from the INVITE's markers. */
  readonly autoAnswer: AutoAnswerDecision;
}

/**
 * What the incoming-call handler may decide:
 * - `context`: labels shown with the call (queue, customer, ...);
 * - `autoAnswer`: true to answer now, `{ afterSec }` to answer after a delay, false to let it
 *   ring even if the policy would have answered; absent keeps the policy's decision;
 * - `reject`: turn it away at once with 486 (busy) or 603 (decline);
 * - `answeredAt`: the call goes on with a conversation that began earlier (ms since epoch; a call
 *   the server gives back after a page reload): once answered, its timer counts from then;
 * - `keepOnUnload`: when the page goes away the call is left to the server (no BYE), which can
 *   give it back to the page that comes next; otherwise it is hung up;
 * - `muted`: the call starts muted (a call given back that the user had muted): the microphone
 *   sends nothing from the first packet.
 */
export interface IncomingCallDecision {
  context?: Record<string, string>;
  autoAnswer?: boolean | { afterSec: number };
  reject?: 486 | 603;
  answeredAt?: number;
  keepOnUnload?: boolean;
  muted?: boolean;
}

export type IncomingCallHandler = (incoming: IncomingCall) => IncomingCallDecision | void;
