import { UserAgent, type Inviter, type InviterOptions, type Referral, type URI } from "sip.js";
import type { CallId } from "./call";
import type { PhoneSdhOptions } from "./call-media";
import type { CallSession } from "./call-session";
import type { CallSessions } from "./call-sessions";
import { addCall, type CallsStore } from "./calls-store";
import { dialUri, parseDialInput } from "./dial-input";
import { PhoneError } from "./phone-error";
import { calleeOf } from "./remote-party";
import type { ResolvedSettings } from "./settings";
import type { SipConnection } from "./sip-connection";

export interface CallOptions {
  /** Extra INVITE headers, full `Name: value` lines. */
  extraHeaders?: string[];
  /** Labels for the call in the store. */
  context?: Record<string, string>;
  /** What the call sends instead of the microphone (the echo test's mix of microphone and probe); stopped when the call ends. */
  microphone?: MediaStream;
}

export interface OutgoingCallsDeps {
  readonly sessions: CallSessions;
  readonly calls: CallsStore;
  settings(): ResolvedSettings;
  /** The connection to place calls on; rejects when there is none. */
  connection(): SipConnection;
  /** Opens the microphone for a call (`callId`: the call a failure is told on). */
  openMicrophone(callId?: CallId): Promise<MediaStream | undefined>;
  /** A session for this outgoing call, not yet among the calls. */
  newSession(id: CallId, inviter: Inviter): CallSession;
}

/**
 * The calls this phone places: dialled by the user (other talking calls held first), the second
 * line of a consultation, and the call a REFER we accepted asks for.
 */
export class OutgoingCalls {
  constructor(private readonly deps: OutgoingCallsDeps) {}

  async place(input: string, options: CallOptions, consultForCallId?: CallId): Promise<CallId> {
    const { sessions } = this.deps;
    const connection = this.deps.connection();
    const s = this.deps.settings();
    const uri = targetUri(input, s);
    if (sessions.live().length >= s.maxCalls)
      throw new PhoneError({ kind: "too-many-calls", detail: `at most ${s.maxCalls} calls` });
    const Outgoing = await outgoingCalls();
    const microphone = options.microphone ?? (await this.deps.openMicrophone());
    try {
      await sessions.holdOthers(consultForCallId);
    } catch {
      // A call that would not hold stays as it is; the new one is still placed.
    }
    const id = sessions.newId();
    let inviter: Inviter;
    try {
      inviter = new Outgoing(connection.ua, uri, inviterOptions(microphone, options.extraHeaders));
    } catch (e) {
      microphone?.getTracks().forEach((t) => t.stop());
      throw new PhoneError({ kind: "invalid-number", detail: e instanceof Error ? e.message : String(e) });
    }
    return this.dial(id, inviter, microphone, {
      context: { ...options.context },
      ...(consultForCallId ? { consultForCallId } : {}),
    });
  }

  /** A REFER received on call `fromId` was accepted: 202, our call held, and a call to its target. */
  async followReferral(fromId: CallId, referral: Referral): Promise<CallId> {
    this.deps.connection();
    const from = this.deps.sessions.get(fromId);
    let microphone: MediaStream | undefined;
    try {
      // sip.js's referral makes its call with the outgoing-call code, which must be here by then.
      await outgoingCalls();
      microphone = await this.deps.openMicrophone(from.id);
    } catch (e) {
      referral.reject({ statusCode: 603 }).catch(() => {});
      throw e;
    }
    await referral.accept();
    if (from.isEstablished && !from.call?.held) await from.hold().catch(() => {});
    const id = this.deps.sessions.newId();
    const inviter = referral.makeInviter(inviterOptions(microphone));
    return this.dial(id, inviter, microphone, { referredFromCallId: from.id });
  }

  private async dial(
    id: CallId,
    inviter: Inviter,
    microphone: MediaStream | undefined,
    record: { context?: Record<string, string>; consultForCallId?: CallId; referredFromCallId?: CallId },
  ): Promise<CallId> {
    const { sessions } = this.deps;
    const cs = this.deps.newSession(id, inviter);
    cs.microphone = microphone;
    sessions.add(cs);
    addCall(this.deps.calls, {
      ...sessions.newCall(id, "outbound", calleeOf(inviter.remoteIdentity)),
      state: "dialing",
      ...record,
    });
    await cs.dial();
    return id;
  }
}

/** The SIP address a number or address typed (or given by a CRM) dials, on the phone's domain. */
export function targetUri(input: string, settings: ResolvedSettings): URI {
  const parsed = parseDialInput(input);
  if (!parsed.ok) throw new PhoneError({ kind: "invalid-number", detail: parsed.problem.kind });
  const uri = UserAgent.makeURI(dialUri(parsed.target, settings.domain));
  if (!uri) throw new PhoneError({ kind: "invalid-number", detail: "invalid-sip-address" });
  return uri;
}

function inviterOptions(microphone: MediaStream | undefined, extraHeaders: string[] = []): InviterOptions {
  const sdhOptions: PhoneSdhOptions = {
    constraints: { audio: true, video: false },
    ...(microphone ? { microphone } : {}),
  };
  // earlyMedia belongs here, not in invite(): sip.js then plays the SDP of a 183 before the answer.
  return { earlyMedia: true, extraHeaders, sessionDescriptionHandlerOptions: sdhOptions };
}

/**
 * sip.js's outgoing call (its `Inviter`), fetched the first time a call is placed or
 * `loadOutgoingCalls` asks for it: a phone that only takes calls never runs it, so the page's
 * start goes without it (the build gives it a file of its own, see `build/sip-patches.ts`). A failed
 * fetch is tried again by the next call.
 */
let inviterClass: Promise<typeof Inviter> | undefined;
export function outgoingCalls(): Promise<typeof Inviter> {
  return (inviterClass ??= import("sip.js/lib/api/inviter.js").then(
    (m) => m.Inviter,
    (e: unknown) => {
      inviterClass = undefined;
      throw new PhoneError({
        kind: "transport",
        detail: `the code for outgoing calls did not load: ${e instanceof Error ? e.message : String(e)}`,
      });
    },
  ));
}
