import type { Session } from "sip.js";
import { isLive, newCall, type Call, type CallId } from "./call";
import type { CallSession } from "./call-session";
import { findCall, updateCall, type CallsStore } from "./calls-store";
import { PhoneError } from "./phone-error";

/**
 * The phone's calls under way, each with its sip.js session: found by id or by session, numbered,
 * and tied together (a consultation and the call it consults for, the calls put on hold for another).
 */
export class CallSessions {
  private readonly byId = new Map<CallId, CallSession>();
  private nextCallNumber = 1;

  constructor(
    private readonly calls: CallsStore,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** A copy: ending a call while going through them does not disturb the loop. */
  all(): CallSession[] {
    return [...this.byId.values()];
  }

  add(cs: CallSession): void {
    this.byId.set(cs.id, cs);
  }

  find(id: CallId): CallSession | undefined {
    return this.byId.get(id);
  }

  /** The call's session; rejects (`no-such-call`) when the call is not under way. */
  get(id: CallId): CallSession {
    const cs = this.byId.get(id);
    if (!cs) throw noSuchCall(id);
    return cs;
  }

  of(session: Session): CallSession | undefined {
    for (const cs of this.byId.values()) if (cs.session === session) return cs;
    return undefined;
  }

  newId(): CallId {
    return `call-${this.nextCallNumber++}`;
  }

  /** The store record of a call about to enter it. */
  newCall(id: CallId, direction: Call["direction"], remote: Call["remote"]): Call {
    return newCall(id, direction, remote, this.now());
  }

  /** The store's calls that are not over. */
  live(): Call[] {
    return this.calls.getState().calls.filter(isLive);
  }

  /** The call is over: its session is forgotten, and so is its tie to a consultation. */
  release(id: CallId): void {
    const c = findCall(this.calls.getState(), id);
    this.byId.delete(id);
    if (c?.consultForCallId)
      updateCall(this.calls, c.consultForCallId, (o) => (o.consultCallId === c.id ? { consultCallId: undefined } : {}));
    if (c?.consultCallId) updateCall(this.calls, c.consultCallId, { consultForCallId: undefined });
  }

  /** Puts every talking call but the given ones on hold. */
  async holdOthers(...except: Array<CallId | undefined>): Promise<void> {
    const holds = [...this.byId.values()]
      .filter((cs) => !except.includes(cs.id) && cs.isEstablished && cs.call && !cs.call.held)
      .map((cs) => cs.hold());
    const results = await Promise.allSettled(holds);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** The first call and its consultation, from either one's id. */
  consultPair(id: CallId): { original: CallSession; consult: CallSession } {
    const c = this.get(id).call;
    const originalId = c?.consultForCallId ?? id;
    const consultId = c?.consultForCallId ? id : c?.consultCallId;
    if (!consultId) throw new PhoneError({ kind: "invalid-state", detail: "no consultation under way" });
    return { original: this.get(originalId), consult: this.get(consultId) };
  }
}

export function noSuchCall(id: CallId): PhoneError {
  return new PhoneError({ kind: "no-such-call", detail: id });
}
