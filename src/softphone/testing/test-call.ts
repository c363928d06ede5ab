import type { Call } from "../call";

/** A call as the phone's store holds it: ringing from 2000 (Bob) unless `patch` says otherwise. */
export function testCall(patch: Partial<Call> = {}): Call {
  return {
    id: "call-1",
    direction: "inbound",
    state: "ringing",
    remote: { number: "2000", name: "Bob", uri: "sip:2000@pbx.test", withheld: false },
    startedAt: 0,
    muted: false,
    held: false,
    remoteHeld: false,
    holdPending: false,
    context: {},
    dtmf: { sent: "" },
    ...patch,
  };
}
