import type { Invitation } from "sip.js";
import { decideAutoAnswer, MAX_ANSWER_AFTER_SEC } from "./auto-answer";
import { isTalking, type CallAutoAnswer, type CallId } from "./call";
import type { CallSession } from "./call-session";
import type { CallSessions } from "./call-sessions";
import { addCall, findCall, type CallsStore } from "./calls-store";
import { headerNamesOf } from "./header-values";
import type { IncomingCallDecision, IncomingCallHandler } from "./incoming-call";
import type { NoticeBody } from "./notice";
import type { PhoneEvents } from "./phone-events";
import { callerOf } from "./remote-party";
import type { ResolvedSettings } from "./settings";

export interface IncomingCallsDeps {
  readonly sessions: CallSessions;
  readonly calls: CallsStore;
  readonly events: PhoneEvents;
  settings(): ResolvedSettings;
  now(): number;
  notice(body: NoticeBody): void;
  /** A session for this INVITE, not yet among the calls. */
  newSession(id: CallId, invitation: Invitation): CallSession;
  /** Opens the microphone for the answer made while the call rings. */
  openMicrophone(): Promise<MediaStream>;
  /** Answers as the user's Answer does. */
  answer(id: CallId): Promise<void>;
}

/**
 * What happens to an incoming INVITE before anyone sees it: turned away when the phone is full,
 * put before the call-center layer's handler (labels, its say on auto-answer, a refusal), answered
 * by itself when the policy or the handler says so and nothing else is going on, and otherwise
 * rung with its answer made ready.
 */
export class IncomingCalls {
  /** The call-center layer's hook (Phone.setIncomingCallHandler). */
  handler: IncomingCallHandler | undefined;

  constructor(private readonly deps: IncomingCallsDeps) {}

  receive(invitation: Invitation): void {
    const { sessions, calls, events } = this.deps;
    const s = this.deps.settings();
    const request = invitation.request;
    const ruri = request.ruri ?? request.to.uri;
    const headers = (name: string) => request.getHeaders(name);
    const replaced = invitation.replacee ? sessions.of(invitation.replacee) : undefined;
    if (!replaced && sessions.live().length >= s.maxCalls) {
      invitation.reject({ statusCode: 486 }).catch(() => {});
      this.deps.notice({ kind: "incoming-refused-busy", from: request.from.uri.toString() });
      return;
    }
    const id = sessions.newId();
    const cs = this.deps.newSession(id, invitation);
    sessions.add(cs);
    const policy = decideAutoAnswer(s.autoAnswer, {
      headers,
      requestUriParam: (name) => (ruri.hasParam(name) ? (ruri.getParam(name) ?? null) : undefined),
    });
    const call = sessions.newCall(id, "inbound", callerOf({ headers }, request.from));
    let decision: IncomingCallDecision | void = undefined;
    try {
      decision = this.handler?.({
        call,
        requestUri: ruri.toString(),
        header: (name) => request.getHeader(name),
        headers,
        headerNames: () => headerNamesOf(request.data),
        autoAnswer: policy,
      });
    } catch (e) {
      console.error("softphone: the incoming-call handler failed", e);
    }
    const auto = autoAnswerFor(policy, decision, !!replaced, this.deps.now);
    // Talking, answering or dialling out: a marked call then rings instead of cutting in.
    const busy = sessions
      .live()
      .some(
        (c) =>
          c.id !== id && (isTalking(c) || c.state === "connecting" || c.state === "dialing" || c.state === "early"),
      );
    const answerNow = !!auto && (!busy || !!replaced);
    addCall(calls, {
      ...call,
      context: { ...decision?.context },
      ...(decision?.muted ? { muted: true } : {}),
      ...(answerNow && auto ? { autoAnswer: auto } : {}),
    });
    if (decision?.reject) {
      cs.reject(decision.reject).catch(() => {});
      return;
    }
    cs.continuesFrom = decision?.answeredAt;
    cs.keepOnUnload = !!decision?.keepOnUnload;
    events.emit("incoming-call", { call: findCall(calls.getState(), id) ?? call });
    if (replaced) replaced.setEnd({ kind: "replaced", by: "remote" }, true);
    if (auto && !answerNow) this.deps.notice({ kind: "auto-answer-skipped", callId: id, reason: "busy" });
    // While it rings, the answer is made ready (a microphone it cannot open is said on Answer).
    if (!answerNow || !auto || auto.afterSec > 0) cs.prepareAnswer(() => this.deps.openMicrophone());
    if (!answerNow || !auto) return;
    events.emit("auto-answer", {
      callId: id,
      afterSec: auto.afterSec,
      ...(auto.marker ? { marker: auto.marker } : {}),
    });
    const answer = () => void this.deps.answer(id).catch(() => {});
    if (auto.afterSec === 0) answer();
    else cs.schedule(auto.afterSec * 1000, answer);
  }
}

/** Whether and when the call is answered by itself: the policy's decision, as the handler amends it. */
function autoAnswerFor(
  policy: ReturnType<typeof decideAutoAnswer>,
  decision: IncomingCallDecision | void,
  replacing: boolean,
  now: () => number,
): CallAutoAnswer | undefined {
  const at = (afterSec: number) => now() + afterSec * 1000;
  const marker = policy.marker;
  // An INVITE with Replaces continues a conversation we already have: take it over at once.
  if (replacing) return { decidedBy: "policy", afterSec: 0, answerAt: at(0), ...(marker ? { marker } : {}) };
  const wish = decision?.autoAnswer;
  if (wish === false) return undefined;
  if (wish === true) return { decidedBy: "handler", afterSec: 0, answerAt: at(0), ...(marker ? { marker } : {}) };
  if (wish && typeof wish === "object") {
    const afterSec = Math.min(Math.max(Math.round(wish.afterSec), 0), MAX_ANSWER_AFTER_SEC);
    return { decidedBy: "handler", afterSec, answerAt: at(afterSec), ...(marker ? { marker } : {}) };
  }
  if (policy.answer)
    return { decidedBy: "policy", afterSec: policy.afterSec, answerAt: at(policy.afterSec), marker: policy.marker };
  return undefined;
}
