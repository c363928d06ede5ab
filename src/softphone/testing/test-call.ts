import { newCall, type Call } from "../call";

/** A call as the phone's store holds it: ringing from 2000 (Bob) unless `patch` says otherwise. */
export function testCall(patch: Partial<Call> = {}): Call {
  return {
    ...newCall("call-1", "inbound", { number: "2000", name: "Bob", uri: "sip:2000@pbx.test", withheld: false }, 0),
    ...patch,
  };
}
