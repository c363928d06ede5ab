import type { Dialer } from "../../session";
import type { Call, CallId, IncomingCallHandler } from "../../softphone";
import { createCallsStore, findCall, removeCall, updateCall } from "../../softphone/calls-store";
import { createPhoneStore } from "../../softphone/phone-store";
import type { AgentPhone } from "../agent-session";

/**
 * A stand-in of the phone for unit tests of the agent session: its two stores, which the test
 * sets as the phone would, and its call controls, which only record what they were asked (`sip`)
 * and change the call as a phone that got its answer would.
 */
export class FakePhone {
  readonly phoneStore = createPhoneStore();
  readonly callsStore = createCallsStore();
  /** Each control used, in order: the SIP path of the call actions. */
  readonly sip: { method: string; id: CallId; args: unknown[] }[] = [];
  /** Numbers the phone dialled itself (the dial pad's calls the call center left to it). */
  readonly dialled: string[] = [];

  private record(method: string, id: CallId, ...args: unknown[]) {
    this.sip.push({ method, id, args });
  }

  private patch(id: CallId, patch: Partial<Call>) {
    updateCall(this.callsStore, id, patch);
  }

  decorate = (id: CallId, context: Record<string, string>) => {
    updateCall(this.callsStore, id, (c) => ({ context: { ...c.context, ...context } }));
  };

  answer = async (id: CallId) => {
    this.record("answer", id);
    this.patch(id, { state: "active", answeredAt: Date.now() });
  };
  reject = async (id: CallId, status: 486 | 603 = 603) => {
    this.record("reject", id, status);
    this.patch(id, {
      state: "ended",
      endedAt: Date.now(),
      end: { kind: status === 486 ? "busy" : "declined", by: "local", status },
    });
  };
  hangup = async (id: CallId) => {
    this.record("hangup", id);
    this.patch(id, { state: "ended", endedAt: Date.now(), end: { kind: "hangup", by: "local" } });
  };
  setMuted = (id: CallId, muted: boolean) => {
    this.record("setMuted", id, muted);
    this.patch(id, { muted });
  };
  sendDtmf = async (id: CallId, tones: string) => this.record("sendDtmf", id, tones);
  hold = async (id: CallId) => {
    this.record("hold", id);
    this.patch(id, { held: true, state: "held" });
  };
  resume = async (id: CallId) => {
    this.record("resume", id);
    this.patch(id, { held: false, state: "active" });
  };
  swap = async (id: CallId) => {
    this.record("swap", id);
    this.patch(id, { held: false, state: "active" });
  };
  transfer = async (id: CallId, target: string) => this.record("transfer", id, target);
  startConsult = async (id: CallId, target: string) => {
    this.record("startConsult", id, target);
    return `consult-of-${id}`;
  };
  completeConsult = async (id: CallId) => this.record("completeConsult", id);
  cancelConsult = async (id: CallId) => this.record("cancelConsult", id);
  acceptRefer = async (id: CallId) => {
    this.record("acceptRefer", id);
    return `referred-from-${id}`;
  };
  rejectRefer = (id: CallId) => this.record("rejectRefer", id);
  dismiss = (id: CallId) => {
    this.record("dismiss", id);
    const c = findCall(this.callsStore.getState(), id);
    if (c?.state === "ended") removeCall(this.callsStore, id);
  };
}

/** The phone session around a FakePhone, with the hooks the agent session installs, for the test to call. */
export function fakePhoneSession(phone = new FakePhone()) {
  const hooks: { incoming?: IncomingCallHandler; dialer?: Dialer } = {};
  const session: AgentPhone = {
    phone,
    setCallCenterHook: (h) => (hooks.incoming = h),
    setDialer: (d) => (hooks.dialer = d),
    // As the real one: the call center's dialer first, else the phone dials.
    store: {
      getState: () => ({
        async dial(input: string) {
          if (hooks.dialer && (await hooks.dialer(input))) return undefined;
          phone.dialled.push(input);
          return "call-dialled";
        },
      }),
    },
  };
  return { session, phone, hooks };
}
