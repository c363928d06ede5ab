import type { AutoAnswerMarker } from "./auto-answer";
import type { Call, CallId } from "./call";
import type { DtmfMode } from "./dtmf";
import type { Notice } from "./notice";
import type { PhoneErrorInfo } from "./phone-error";

/** Things that happen once; state lives in the stores. */
export interface PhoneEventMap {
  /** An incoming call is now in the calls store (after the incoming-call handler ran). */
  "incoming-call": { call: Call };
  /** The phone will answer this call by itself in `afterSec`: the UI plays a short cue. */
  "auto-answer": { callId: CallId; afterSec: number; marker?: AutoAnswerMarker };
  "call-ended": { call: Call };
  /** The other side sent a REFER; `decision` is what the refer policy did with it. */
  "refer-request": {
    callId: CallId;
    target: string;
    referredBy?: string;
    decision: "rejected" | "pending" | "accepted";
  };
  "dtmf-sent": { callId: CallId; tones: string; mode: DtmfMode };
  /** The server refused our credentials: a good time to fetch a fresh token and `setPassword`. */
  "credentials-rejected": { error: PhoneErrorInfo };
  notice: Notice;
}

export type PhoneEventName = keyof PhoneEventMap;
export type PhoneEventHandler<K extends PhoneEventName> = (event: PhoneEventMap[K]) => void;

export class PhoneEvents {
  private readonly handlers = new Map<PhoneEventName, Set<(event: never) => void>>();

  on<K extends PhoneEventName>(name: K, handler: PhoneEventHandler<K>): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(handler as (event: never) => void);
    return () => void set.delete(handler as (event: never) => void);
  }

  emit<K extends PhoneEventName>(name: K, event: PhoneEventMap[K]): void {
    for (const h of [...(this.handlers.get(name) ?? [])]) {
      try {
        (h as PhoneEventHandler<K>)(event);
      } catch (e) {
        // A failing listener must not break the phone or the other listeners.
        console.error(`softphone: "${name}" listener failed`, e);
      }
    }
  }

  get listenerCount(): number {
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }
}
