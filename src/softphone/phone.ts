import {
  Invitation,
  UserAgent,
  type Inviter,
  type InviterOptions,
  type LogConnector,
  type Referral,
  type Session,
  type SessionDescriptionHandlerFactory,
  type UserAgentOptions,
} from "sip.js";
import { AudioDevices, type AudioDevice, type AudioDeviceRole, type MediaDevicesLike } from "./audio-devices";
import { decideAutoAnswer, MAX_ANSWER_AFTER_SEC } from "./auto-answer";
import { isLive, isTalking, type Call, type CallAutoAnswer, type CallId } from "./call";
import { callMediaOf, type PhoneSdhOptions } from "./call-media";
import { CallSession, type CallSessionContext } from "./call-session";
import { addCall, createCallsStore, findCall, removeCall, updateCall, type CallsStore } from "./calls-store";
import type { PreferenceStorage } from "./device-preferences";
import { dialUri, parseDialInput } from "./dial-input";
import type { IncomingCallDecision, IncomingCallHandler } from "./incoming-call";
import { headerNamesOf } from "./header-values";
import { withDtlsServerAnswer } from "./dtls-role";
import { withEarlyIceCompletion } from "./ice-gathering";
import { withIceFailureWatch } from "./ice-recovery";
import { instanceId } from "./instance-id";
import { browserSessionDescriptionHandlerFactory } from "./media-stream-factory";
import { withOfferAnswerOrder } from "./offer-answer";
import type { NoticeBody } from "./notice";
import { PageLifecycle, type PageEventTarget } from "./page-lifecycle";
import { PhoneError } from "./phone-error";
import { PhoneEvents, type PhoneEventHandler, type PhoneEventName } from "./phone-events";
import { phoneDiagnostics, type PhoneDiagnostics } from "./phone-diagnostics";
import { scrubSecrets } from "./redact";
import type { CallQualityMonitor, WatchedCall } from "./quality-watchdog";
import { RegistrationHistory } from "./registration-history";
import { SipTrace } from "./sip-trace";
import { createPhoneStore, dismissNotice, pushNotice, type PhoneStore } from "./phone-store";
import { calleeOf, callerOf } from "./remote-party";
import { attendedReferTo, blindReferTo } from "./refer-to";
import { RemoteAudio, type AudioElementLike } from "./remote-audio";
import { publicSettings, resolveSettings, type PhoneSettings, type ResolvedSettings } from "./settings";
import type { DtmfMode } from "./dtmf";
import { SipConnection } from "./sip-connection";

/**
 * What the phone takes from its surroundings. Everything has a browser default; tests replace the
 * WebSocket transport, the WebRTC media, devices, storage, the page and the clock.
 */
export interface PhoneEnvironment {
  transportConstructor?: UserAgentOptions["transportConstructor"];
  sessionDescriptionHandlerFactory?: SessionDescriptionHandlerFactory;
  /** `null`: no devices. Default: `navigator.mediaDevices`. */
  mediaDevices?: MediaDevicesLike | null;
  /** `null`: remember nothing. Default: `localStorage` when it can be used. */
  storage?: PreferenceStorage | null;
  /** `null`: play no remote audio. Default: `new Audio()`. */
  createAudioElement?: (() => AudioElementLike) | null;
  /** Whether audio can be routed to a chosen output. Default: `setSinkId` support. */
  canChooseOutput?: boolean;
  /** `null`: follow no page events. Default: `window` and `document`. */
  window?: PageEventTarget | null;
  document?: PageEventTarget | null;
  now?: () => number;
  random?: () => number;
  /** sip.js log lines; default: sip.js's console logging of warnings and errors. */
  logConnector?: LogConnector;
}

export interface CallOptions {
  /** Extra INVITE headers, full `Name: value` lines. */
  extraHeaders?: string[];
  /** Labels for the call in the store. */
  context?: Record<string, string>;
  /** What the call sends instead of the microphone (the echo test's mix of microphone and probe); stopped when the call ends. */
  microphone?: MediaStream;
}

/** Settings that take effect at once, without reconnecting. */
export type LiveSettings = Pick<
  PhoneSettings,
  | "dtmfMode"
  | "dtmfDurationMs"
  | "dtmfInterToneGapMs"
  | "autoAnswer"
  | "referPolicy"
  | "referAskTimeoutSec"
  | "maxCalls"
>;

/**
 * The browser phone: registration, calls, media devices. The UI and the call-center layer read its
 * two stores and call its methods; they never touch sip.js. Actions that fail reject with a
 * `PhoneError`.
 */
export class Phone {
  /** Registration, transport, settings in use, devices, notices. */
  readonly phoneStore: PhoneStore = createPhoneStore();
  /** The calls, as plain data. */
  readonly callsStore: CallsStore = createCallsStore();
  private readonly devices: AudioDevices;
  private readonly events = new PhoneEvents();
  private readonly remoteAudio: RemoteAudio;
  private readonly sessions = new Map<CallId, CallSession>();
  private readonly page: PageLifecycle;
  /** RFC 5626 instance id of this browser, for every registration. */
  private readonly instanceId: string;
  private readonly now: () => number;
  private readonly random: () => number;
  private connection: SipConnection | undefined;
  private settings: ResolvedSettings | undefined;
  private incomingHandler: IncomingCallHandler | undefined;
  private nextCallNumber = 1;
  /** The page went into the back/forward cache while the phone ran: it starts again if it comes back. */
  private suspended = false;
  /** Microphone tracks already known to be gone (ended, or their device unplugged). */
  private readonly lostMicrophones = new WeakSet<MediaStreamTrack>();
  /** The call-quality watchdogs, loaded with the first answered call (most of the page never needs them before). */
  private quality: Promise<CallQualityMonitor> | undefined;
  private qualityLoaded: CallQualityMonitor | undefined;
  private readonly sipTrace: SipTrace;
  private readonly registrations: RegistrationHistory;

  constructor(private readonly env: PhoneEnvironment = {}) {
    this.now = env.now ?? Date.now;
    this.random = env.random ?? Math.random;
    this.sipTrace = new SipTrace(this.now);
    this.registrations = new RegistrationHistory(this.phoneStore, this.now);
    const g = globalThis as {
      navigator?: Navigator;
      localStorage?: Storage;
      window?: PageEventTarget;
      document?: PageEventTarget;
      HTMLMediaElement?: typeof HTMLMediaElement;
    };
    const mediaDevices =
      env.mediaDevices === null
        ? undefined
        : (env.mediaDevices ?? (g.navigator?.mediaDevices as MediaDevicesLike | undefined));
    const storage = env.storage === null ? undefined : (env.storage ?? safeLocalStorage());
    this.instanceId = instanceId(storage);
    this.devices = new AudioDevices({
      mediaDevices,
      storage,
      canChooseOutput: env.canChooseOutput ?? (!!g.HTMLMediaElement && "setSinkId" in g.HTMLMediaElement.prototype),
      onState: (devices) => {
        this.phoneStore.setState({ devices });
        this.checkMicrophones(devices.microphones);
      },
      onNotice: (n) => this.notice(n),
      onSelectionChange: (role, deviceId) => this.onDeviceSelected(role, deviceId),
    });
    const createElement =
      env.createAudioElement === null
        ? undefined
        : (env.createAudioElement ?? (typeof Audio === "function" ? () => new Audio() : undefined));
    this.remoteAudio = new RemoteAudio(createElement, (callId, e) => {
      // Autoplay policy: no user gesture on the page yet (an auto-answered call, a CRM iframe).
      if ((e as { name?: string })?.name === "NotAllowedError") this.notice({ kind: "audio-blocked", callId });
      else console.warn(`softphone: audio playback of call ${callId}:`, e);
    });
    this.remoteAudio.setSink(this.devices.selected("speaker"));
    this.page = new PageLifecycle(
      env.window === null ? undefined : (env.window ?? g.window),
      env.document === null ? undefined : (env.document ?? g.document),
      {
        onWake: () => this.connection?.wake(),
        // A frozen page cannot ring: with no call under way the phone unregisters, so that a call to
        // it fails at once (or follows the user's forwarding) instead of ringing into nothing.
        onFreeze: () => {
          if (this.sessions.size === 0) this.connection?.sleep();
        },
        onUnload: () => this.unload(),
        onRestore: () => this.restore(),
      },
    );
  }

  // ---- lifecycle ----

  /**
   * Connects and registers with these settings. Resolves at once; follow `phoneStore`'s
   * `registration`. Rejects (`invalid-settings`) when the settings cannot be used, and
   * (`invalid-state`) when calls are in progress.
   */
  async start(settings: PhoneSettings): Promise<void> {
    if (this.liveCalls().length > 0) throw new PhoneError({ kind: "invalid-state", detail: "calls are in progress" });
    if (this.connection) await this.stop();
    let resolved: ResolvedSettings;
    try {
      resolved = resolveSettings(settings);
    } catch (e) {
      if (e instanceof PhoneError) this.phoneStore.setState({ registration: { status: "failed", error: e.info } });
      throw e;
    }
    this.settings = resolved;
    this.phoneStore.setState({ settings: publicSettings(resolved) });
    this.page.attach();
    void this.devices.start();
    this.connect(resolved);
  }

  /** Hangs up, unregisters and disconnects. */
  async stop(): Promise<void> {
    const connection = this.connection;
    if (!connection && !this.suspended) return;
    this.suspended = false;
    await Promise.allSettled([...this.sessions.values()].map((s) => s.hangup()));
    this.page.detach();
    this.devices.stop();
    this.connection = undefined;
    await connection?.stop();
  }

  /** Applies settings that need no reconnection. */
  updateSettings(patch: LiveSettings): void {
    if (!this.settings) throw notStarted();
    const merged = resolveSettings({
      ...this.settings,
      keepAlive: this.settings.keepAlive,
      reconnect: this.settings.reconnect,
      ...patch,
    });
    this.settings = { ...this.settings, ...pick(merged, Object.keys(patch) as Array<keyof LiveSettings>) };
    this.phoneStore.setState({ settings: publicSettings(this.settings) });
  }

  /** New digest password (a renewed extension token); retries at once after refused credentials. */
  setPassword(password: string): void {
    if (!this.settings || !this.connection) throw notStarted();
    this.settings = { ...this.settings, password };
    this.connection.setPassword(password);
  }

  /** Skips the wait before the next connection or registration attempt. */
  retryNow(): void {
    this.connection?.retryNow();
  }

  on<K extends PhoneEventName>(name: K, handler: PhoneEventHandler<K>): () => void {
    return this.events.on(name, handler);
  }

  /**
   * The call-center layer's hook: runs for every incoming INVITE before the call enters the store,
   * to label it, answer it by itself or turn it away. One handler; setting another replaces it.
   */
  setIncomingCallHandler(handler: IncomingCallHandler | undefined): void {
    this.incomingHandler = handler;
  }

  // ---- calls ----

  /** Fetches the code for outgoing calls now (the page calls it once it is ready), so the first call does not wait for it. */
  loadOutgoingCalls(): Promise<void> {
    return outgoingCalls().then(() => undefined);
  }

  /** Dials a number or SIP address; other talking calls are put on hold first. Resolves with the new call's id once the INVITE is out. */
  async call(input: string, options: CallOptions = {}): Promise<CallId> {
    return this.placeCall(input, options);
  }

  async answer(id: CallId): Promise<void> {
    const cs = this.session(id);
    if (cs.direction !== "inbound" || cs.call?.state !== "ringing")
      throw new PhoneError({ kind: "invalid-state", detail: "the call is not ringing" });
    const microphone = (await cs.preparedMicrophone()) ?? (await this.openMicrophone(id));
    if (cs.isFinished || cs.call?.state !== "ringing") {
      microphone?.getTracks().forEach((t) => t.stop());
      throw new PhoneError({ kind: "invalid-state", detail: "the call stopped ringing" });
    }
    // A call that will not hold stays as it is (its hold-failed notice says so); answer anyway.
    // The call an INVITE/Replaces takes over is not held: sip.js ends it once we answer.
    const replacee =
      cs.session instanceof Invitation && cs.session.replacee ? this.sessionOf(cs.session.replacee)?.id : undefined;
    await this.holdOthers(id, replacee).catch(() => {});
    await cs.answer(microphone);
  }

  /** Turns a ringing call away: 603 Decline by default, or 486 Busy Here. */
  async reject(id: CallId, status: 486 | 603 = 603): Promise<void> {
    await this.session(id).reject(status);
  }

  /** Ends a call: CANCEL while dialling, 603 while ringing here, BYE once connected. */
  async hangup(id: CallId): Promise<void> {
    await this.session(id).hangup();
  }

  setMuted(id: CallId, muted: boolean): void {
    this.session(id).setMuted(muted);
  }

  hold(id: CallId): Promise<void> {
    return this.session(id).hold();
  }

  resume(id: CallId): Promise<void> {
    return this.session(id).resume();
  }

  /** Makes `id` the call we talk on: every other talking call is held, then `id` is resumed. */
  async swap(id: CallId): Promise<void> {
    const cs = this.session(id);
    if (!cs.isEstablished) throw new PhoneError({ kind: "invalid-state", detail: "the call is not connected" });
    await this.holdOthers(id);
    if (cs.call?.held) await cs.resume();
  }

  /** `how`: SIP INFO or RFC 4733 for these tones only; the settings decide otherwise. */
  sendDtmf(id: CallId, tones: string, how?: DtmfMode): Promise<void> {
    return this.session(id).sendDtmf(tones, how);
  }

  /** Blind transfer: the other party is sent to `target`; our leg ends when that succeeds. */
  async transfer(id: CallId, target: string): Promise<void> {
    const cs = this.session(id);
    const uri = this.targetUri(target);
    await cs.transfer(blindReferTo(uri), uri.toString(), "blind");
  }

  /** Attended transfer, step 1: hold the call and dial `target` on a second line. */
  async startConsult(id: CallId, target: string, options: CallOptions = {}): Promise<CallId> {
    const original = this.session(id);
    if (!original.isEstablished) throw new PhoneError({ kind: "invalid-state", detail: "the call is not connected" });
    if (original.call?.consultCallId)
      throw new PhoneError({ kind: "invalid-state", detail: "a consultation is already under way" });
    this.targetUri(target);
    await original.hold();
    const consultId = await this.placeCall(target, options, id);
    updateCall(this.callsStore, id, { consultCallId: consultId });
    return consultId;
  }

  /**
   * Attended transfer, step 2: the first call's party is connected to the consulted one (REFER
   * with Replaces) and both our legs end. If the consulted party has not answered yet, the call
   * is transferred blind to them instead. `id` may be either call.
   */
  async completeConsult(id: CallId): Promise<void> {
    const { original, consult } = this.consultPair(id);
    const target = consult.call?.remote.uri ?? "";
    const referTo = consult.isEstablished ? attendedReferTo(consult.session) : undefined;
    if (referTo) {
      consult.expectReplacement(true);
      try {
        await original.transfer(referTo, target, "attended");
      } catch (e) {
        consult.expectReplacement(false);
        throw e;
      }
      if (consult.isEstablished) await consult.hangup("transferred").catch(() => {});
      return;
    }
    await consult.hangup().catch(() => {});
    await original.transfer(blindReferTo(this.targetUri(target)), target, "blind");
  }

  /** Attended transfer abandoned: hang up the consultation and resume the first call. */
  async cancelConsult(id: CallId): Promise<void> {
    const { original, consult } = this.consultPair(id);
    await consult.hangup().catch(() => {});
    if (original.isEstablished && original.call?.held) await original.resume();
  }

  /** Follows the REFER waiting on this call (referPolicy 'ask'). Resolves with the new call's id. */
  acceptRefer(id: CallId): Promise<CallId> {
    return this.session(id).acceptReferral();
  }

  /** Refuses the REFER waiting on this call with 603. */
  rejectRefer(id: CallId): void {
    this.session(id).rejectReferral();
  }

  /** Adds labels to a call (queue, customer, ...) for the UI. */
  decorate(id: CallId, context: Record<string, string>): void {
    if (!updateCall(this.callsStore, id, (c) => ({ context: { ...c.context, ...context } }))) throw noSuchCall(id);
  }

  /** First raw value of a header of the INVITE that brought an incoming call. */
  header(id: CallId, name: string): string | undefined {
    return this.session(id).requestHeaders(name)[0];
  }

  /** All raw values of a header of the INVITE that brought an incoming call. */
  headers(id: CallId, name: string): string[] {
    return this.session(id).requestHeaders(name);
  }

  /** Removes an ended call from the store. */
  dismiss(id: CallId): void {
    const c = findCall(this.callsStore.getState(), id);
    if (c && !isLive(c)) removeCall(this.callsStore, id);
  }

  dismissNotice(id: number): void {
    dismissNotice(this.phoneStore, id);
  }

  // ---- devices ----

  /** Chooses (and remembers) a device; running calls switch to it without dropping. */
  chooseDevice(role: AudioDeviceRole, deviceId: string): Promise<void> {
    return this.devices.choose(role, deviceId);
  }

  /** The chosen microphone (else the default), opened for a check of its own; the caller stops it. */
  microphoneStream(): Promise<MediaStream> {
    return this.openMicrophone().then((stream) => {
      if (!stream) throw new PhoneError({ kind: "microphone", detail: "no microphone" });
      return stream;
    });
  }

  /** What a call receives, for a measurement of it (the echo test). */
  remoteStream(id: CallId): MediaStream | undefined {
    return callMediaOf(this.session(id).session)?.remoteMediaStream as MediaStream | undefined;
  }

  /** Plays the calls' audio again after the browser refused to autoplay it; call from a click. */
  resumeAudio(): void {
    this.remoteAudio.retry();
  }

  /** Re-reads the device list (devicechange is followed by itself; this is for a "rescan" button). */
  refreshDevices(): Promise<void> {
    return this.devices.refresh();
  }

  /** The output to play ringtones on ("" = default), for the UI's ringer element. */
  get ringerSinkId(): string {
    return this.devices.selected("ringer");
  }

  /** Counters for leak checks: everything should drop back to 0 when no call is up. */
  diagnostics(): { sessions: number; userAgentSessions: number; audioElements: number; listeners: number } {
    return {
      sessions: this.sessions.size,
      userAgentSessions: this.connection?.sessionCount() ?? 0,
      audioElements: this.remoteAudio.size,
      listeners: this.events.listenerCount,
    };
  }

  /**
   * What a diagnostics bundle needs from the phone: registration and its history, settings and
   * devices, the calls and a reading a second of the last calls' media, the recent SIP messages.
   * No secret is in it (see redact.ts).
   */
  diagnosticReport(): PhoneDiagnostics {
    const report = phoneDiagnostics({
      state: this.phoneStore.getState(),
      calls: this.callsStore.getState().calls,
      registrations: this.registrations.list(),
      callStats: this.qualityLoaded?.history() ?? [],
      sipTrace: this.sipTrace.list(),
    });
    return scrubSecrets(report, [this.settings?.password]);
  }

  // ---- internals ----

  private get ctx(): CallSessionContext {
    return {
      calls: this.callsStore,
      remoteAudio: this.remoteAudio,
      events: this.events,
      settings: () => this.requireSettings(),
      now: this.now,
      random: this.random,
      notice: (n) => this.notice(n),
      release: (cs) => this.release(cs),
      followReferral: (from, referral) => this.followReferral(from, referral),
      microphoneEnded: (cs, track) => this.onMicrophoneLost(cs, track),
      watchQuality: (call) => this.watchQuality(call),
    };
  }

  private watchQuality(call: WatchedCall): () => void {
    let stop: (() => void) | undefined;
    let stopped = false;
    this.quality ??= import("./quality-watchdog").then(
      (m) => (this.qualityLoaded = new m.CallQualityMonitor(this.now)),
    );
    this.quality.then(
      (monitor) => {
        if (!stopped) stop = monitor.watch(call);
      },
      (e: unknown) => console.warn("softphone: the call-quality watchdog could not be loaded", e),
    );
    return () => {
      stopped = true;
      stop?.();
    };
  }

  private async placeCall(input: string, options: CallOptions, consultForCallId?: CallId): Promise<CallId> {
    const connection = this.requireConnection();
    const s = this.requireSettings();
    const uri = this.targetUri(input);
    if (this.liveCalls().length >= s.maxCalls)
      throw new PhoneError({ kind: "too-many-calls", detail: `at most ${s.maxCalls} calls` });
    const Outgoing = await outgoingCalls();
    const microphone = options.microphone ?? (await this.openMicrophone());
    try {
      await this.holdOthers(consultForCallId);
    } catch {
      // A call that would not hold stays as it is; the new one is still placed.
    }
    const id = this.newCallId();
    let inviter: Inviter;
    try {
      inviter = new Outgoing(connection.ua, uri, this.inviterOptions(microphone, options.extraHeaders));
    } catch (e) {
      microphone?.getTracks().forEach((t) => t.stop());
      throw new PhoneError({ kind: "invalid-number", detail: e instanceof Error ? e.message : String(e) });
    }
    const cs = new CallSession(this.ctx, id, inviter, "outbound");
    cs.microphone = microphone;
    this.sessions.set(id, cs);
    addCall(this.callsStore, {
      ...this.newCall(id, "outbound", calleeOf(inviter.remoteIdentity)),
      state: "dialing",
      context: { ...options.context },
      ...(consultForCallId ? { consultForCallId } : {}),
    });
    await cs.dial();
    return id;
  }

  private inviterOptions(microphone: MediaStream | undefined, extraHeaders: string[] = []): InviterOptions {
    const sdhOptions: PhoneSdhOptions = {
      constraints: { audio: true, video: false },
      ...(microphone ? { microphone } : {}),
    };
    // earlyMedia belongs here, not in invite(): sip.js then plays the SDP of a 183 before the answer.
    return { earlyMedia: true, extraHeaders, sessionDescriptionHandlerOptions: sdhOptions };
  }

  private onInvite(invitation: Invitation): void {
    const s = this.requireSettings();
    const request = invitation.request;
    const ruri = request.ruri ?? request.to.uri;
    const headers = (name: string) => request.getHeaders(name);
    const replaced = invitation.replacee ? this.sessionOf(invitation.replacee) : undefined;
    if (!replaced && this.liveCalls().length >= s.maxCalls) {
      invitation.reject({ statusCode: 486 }).catch(() => {});
      this.notice({ kind: "incoming-refused-busy", from: request.from.uri.toString() });
      return;
    }
    const id = this.newCallId();
    const cs = new CallSession(this.ctx, id, invitation, "inbound");
    this.sessions.set(id, cs);
    const policy = decideAutoAnswer(s.autoAnswer, {
      headers,
      requestUriParam: (name) => (ruri.hasParam(name) ? (ruri.getParam(name) ?? null) : undefined),
    });
    const call = this.newCall(id, "inbound", callerOf({ headers }, request.from));
    let decision: IncomingCallDecision | void = undefined;
    try {
      decision = this.incomingHandler?.({
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
    const auto = this.autoAnswerFor(policy, decision, !!replaced);
    // Talking, answering or dialling out: a marked call then rings instead of cutting in.
    const busy = this.liveCalls().some(
      (c) => c.id !== id && (isTalking(c) || c.state === "connecting" || c.state === "dialing" || c.state === "early"),
    );
    const answerNow = !!auto && (!busy || !!replaced);
    addCall(this.callsStore, {
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
    this.events.emit("incoming-call", { call: findCall(this.callsStore.getState(), id) ?? call });
    if (replaced) replaced.setEnd({ kind: "replaced", by: "remote" }, true);
    if (auto && !answerNow) this.notice({ kind: "auto-answer-skipped", callId: id, reason: "busy" });
    // While it rings, the answer is made ready (a microphone it cannot open is said on Answer).
    if (!answerNow || !auto || auto.afterSec > 0) cs.prepareAnswer(() => this.devices.openMicrophone());
    if (!answerNow || !auto) return;
    this.events.emit("auto-answer", {
      callId: id,
      afterSec: auto.afterSec,
      ...(auto.marker ? { marker: auto.marker } : {}),
    });
    const answer = () => void this.answer(id).catch(() => {});
    if (auto.afterSec === 0) answer();
    else cs.schedule(auto.afterSec * 1000, answer);
  }

  private autoAnswerFor(
    policy: ReturnType<typeof decideAutoAnswer>,
    decision: IncomingCallDecision | void,
    replacing: boolean,
  ): CallAutoAnswer | undefined {
    const at = (afterSec: number) => this.now() + afterSec * 1000;
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

  private async followReferral(from: CallSession, referral: Referral): Promise<CallId> {
    this.requireConnection();
    let microphone: MediaStream | undefined;
    try {
      // sip.js's referral makes its call with the outgoing-call code, which must be here by then.
      await outgoingCalls();
      microphone = await this.openMicrophone(from.id);
    } catch (e) {
      referral.reject({ statusCode: 603 }).catch(() => {});
      throw e;
    }
    await referral.accept();
    if (from.isEstablished && !from.call?.held) await from.hold().catch(() => {});
    const id = this.newCallId();
    const inviter = referral.makeInviter(this.inviterOptions(microphone));
    const cs = new CallSession(this.ctx, id, inviter, "outbound");
    cs.microphone = microphone;
    this.sessions.set(id, cs);
    addCall(this.callsStore, {
      ...this.newCall(id, "outbound", calleeOf(inviter.remoteIdentity)),
      state: "dialing",
      referredFromCallId: from.id,
    });
    await cs.dial();
    return id;
  }

  /** Puts every talking call but the given ones on hold. */
  private async holdOthers(...except: Array<CallId | undefined>): Promise<void> {
    const holds = [...this.sessions.values()]
      .filter((cs) => !except.includes(cs.id) && cs.isEstablished && cs.call && !cs.call.held)
      .map((cs) => cs.hold());
    const results = await Promise.allSettled(holds);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** The media path of a call broke while signalling may be fine: renegotiate it. */
  private onIceFailed(session: Session): void {
    const cs = this.sessionOf(session);
    // Without a connection the restart waits for onRecovered.
    if (cs?.isEstablished && this.connection?.connected) void cs.restartIce();
  }

  /** A new user agent with these settings; it connects and registers. */
  private connect(resolved: ResolvedSettings): void {
    this.suspended = false;
    const ice = { iceServers: resolved.iceServers, iceTransportPolicy: resolved.iceTransportPolicy };
    const media =
      this.env.sessionDescriptionHandlerFactory ??
      browserSessionDescriptionHandlerFactory(() => this.devices.openMicrophone());
    this.connection = new SipConnection(
      resolved,
      {
        ...(this.env.transportConstructor ? { transportConstructor: this.env.transportConstructor } : {}),
        instanceId: this.instanceId,
        sessionDescriptionHandlerFactory: withIceFailureWatch(
          withEarlyIceCompletion(withOfferAnswerOrder(withDtlsServerAnswer(media)), ice),
          (session) => this.onIceFailed(session),
        ),
        now: this.now,
        random: this.random,
        ...(this.env.logConnector ? { logConnector: this.env.logConnector } : {}),
      },
      {
        onRegistration: (registration) => this.phoneStore.setState({ registration }),
        onTransport: (transport) => this.phoneStore.setState({ transport }),
        onInvite: (invitation) => this.onInvite(invitation),
        onConnectionLost: () => this.onConnectionLost(),
        onRecovered: () => this.onRecovered(),
        onCredentialsRejected: (error) => this.events.emit("credentials-rejected", { error }),
        onMalformedRequest: (reason) => {
          this.sipTrace.refused(reason);
          console.warn(`softphone: a malformed request was refused (${reason})`);
        },
      },
    );
    this.sipTrace.attach(this.connection.ua.transport);
    this.connection.start();
  }

  /**
   * The server fails the calls of a connection that dropped unless they were answered (those
   * wait for us to come back): it will send no CANCEL or final answer for them, so end them here
   * rather than let them ring or dial on.
   */
  private onConnectionLost(): void {
    for (const cs of [...this.sessions.values()])
      if (!cs.isEstablished) cs.abandon({ kind: "connection-lost", by: "system" });
  }

  private onRecovered(): void {
    for (const cs of this.sessions.values()) if (cs.isEstablished) void cs.restartIce();
  }

  private onDeviceSelected(role: AudioDeviceRole, deviceId: string): void {
    if (role === "speaker") this.remoteAudio.setSink(deviceId);
    if (role !== "microphone") return;
    for (const cs of this.sessions.values()) if (cs.isEstablished) this.switchMicrophone(cs);
  }

  /** A call's microphone went away (unplugged, taken by the system): carry on with the one to use now. */
  private onMicrophoneLost(cs: CallSession, track: MediaStreamTrack): void {
    if (cs.isFinished || this.lostMicrophones.has(track)) return;
    this.lostMicrophones.add(track);
    // A chosen microphone that disappears is announced by the device list, and its fallback
    // switches the calls too; the system default one has nobody else to say so.
    const wasDefault = !this.devices.current.preferred.microphone;
    this.switchMicrophone(
      cs,
      wasDefault ? { kind: "device-fallback", role: "microphone", label: track.label } : undefined,
    );
  }

  /** The device list changed: a call whose microphone's device is no longer listed has lost it. */
  private checkMicrophones(microphones: readonly AudioDevice[]): void {
    // Before permission is granted the browser lists devices without ids: nothing to compare.
    if (!microphones.some((d) => d.deviceId)) return;
    for (const cs of [...this.sessions.values()]) {
      const track = cs.microphone?.getAudioTracks()[0];
      if (!track) continue;
      const { deviceId, groupId } = track.getSettings?.() ?? {};
      if (!deviceId) continue;
      // Unplugging the system default device keeps a "default" entry, pointing at another device.
      const listed = microphones.some(
        (d) => d.deviceId === deviceId && (!groupId || !d.groupId || d.groupId === groupId),
      );
      if (!listed || track.readyState === "ended") this.onMicrophoneLost(cs, track);
    }
  }

  private switchMicrophone(cs: CallSession, done?: NoticeBody): void {
    cs.switchMicrophone(() => this.devices.openMicrophone())
      .then(() => {
        if (done) this.notice(done);
      })
      .catch((e: unknown) =>
        this.notice({ kind: "microphone-unavailable", callId: cs.id, error: PhoneError.infoOf(e) }),
      );
  }

  private async openMicrophone(callId?: CallId): Promise<MediaStream | undefined> {
    try {
      return await this.devices.openMicrophone();
    } catch (e) {
      const error = PhoneError.infoOf(e);
      this.notice({ kind: "microphone-unavailable", ...(callId ? { callId } : {}), error });
      throw e instanceof PhoneError ? e : new PhoneError(error);
    }
  }

  private unload(): void {
    if (!this.connection) return;
    for (const cs of this.sessions.values()) {
      const c = cs.call;
      // Ringing incoming calls are left to the server, which sees the socket close; so are calls
      // the server can give back to the next page (keepOnUnload).
      if (
        (cs.isEstablished && !cs.keepOnUnload) ||
        (cs.direction === "outbound" && c && (c.state === "dialing" || c.state === "early"))
      )
        void cs.hangup().catch(() => {});
    }
    this.connection.unload();
    this.connection = undefined;
    // Nothing answers after this (no BYE response, no CANCEL): a page that comes back from the
    // back/forward cache must not show these calls as still going.
    for (const cs of [...this.sessions.values()]) cs.abandon({ kind: "connection-lost", by: "system" });
    // The page listeners stay: pageshow brings the phone back from the back/forward cache.
    this.suspended = true;
  }

  /** Back from the back/forward cache: the socket was closed on the way in, so connect again. */
  private restore(): void {
    if (this.suspended && this.settings) this.connect(this.settings);
  }

  private release(cs: CallSession): void {
    this.sessions.delete(cs.id);
    const c = cs.call;
    if (c?.consultForCallId)
      updateCall(this.callsStore, c.consultForCallId, (o) =>
        o.consultCallId === c.id ? { consultCallId: undefined } : {},
      );
    if (c?.consultCallId) updateCall(this.callsStore, c.consultCallId, { consultForCallId: undefined });
  }

  private consultPair(id: CallId): { original: CallSession; consult: CallSession } {
    const c = this.session(id).call;
    const originalId = c?.consultForCallId ?? id;
    const consultId = c?.consultForCallId ? id : c?.consultCallId;
    if (!consultId) throw new PhoneError({ kind: "invalid-state", detail: "no consultation under way" });
    return { original: this.session(originalId), consult: this.session(consultId) };
  }

  private targetUri(input: string) {
    const s = this.requireSettings();
    const parsed = parseDialInput(input);
    if (!parsed.ok) throw new PhoneError({ kind: "invalid-number", detail: parsed.problem.kind });
    const uri = UserAgent.makeURI(dialUri(parsed.target, s.domain));
    if (!uri) throw new PhoneError({ kind: "invalid-number", detail: "invalid-sip-address" });
    return uri;
  }

  private newCall(id: CallId, direction: Call["direction"], remote: Call["remote"]): Call {
    return {
      id,
      direction,
      state: "ringing",
      remote,
      startedAt: this.now(),
      muted: false,
      held: false,
      remoteHeld: false,
      holdPending: false,
      context: {},
      dtmf: { sent: "" },
    };
  }

  private newCallId(): CallId {
    return `call-${this.nextCallNumber++}`;
  }

  private liveCalls(): Call[] {
    return this.callsStore.getState().calls.filter(isLive);
  }

  private session(id: CallId): CallSession {
    const cs = this.sessions.get(id);
    if (!cs) throw noSuchCall(id);
    return cs;
  }

  private sessionOf(session: Session): CallSession | undefined {
    for (const cs of this.sessions.values()) if (cs.session === session) return cs;
    return undefined;
  }

  private requireSettings(): ResolvedSettings {
    if (!this.settings) throw notStarted();
    return this.settings;
  }

  private requireConnection(): SipConnection {
    if (!this.connection) throw notStarted();
    if (!this.connection.connected)
      throw new PhoneError({ kind: "not-connected", detail: "no connection to the SIP server" });
    return this.connection;
  }

  private notice(body: NoticeBody): void {
    const notice = pushNotice(this.phoneStore, body, this.now());
    this.events.emit("notice", notice);
  }
}

/**
 * sip.js's outgoing call (its `Inviter`), fetched the first time a call is placed or
 * `loadOutgoingCalls` asks for it: a phone that only takes calls never runs it, so the page's
 * start goes without it (the build gives it a file of its own, see `build/sip-patches.ts`). A failed
 * fetch is tried again by the next call.
 */
let inviterClass: Promise<typeof Inviter> | undefined;
function outgoingCalls(): Promise<typeof Inviter> {
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

function notStarted(): PhoneError {
  return new PhoneError({ kind: "not-connected", detail: "the phone is not started" });
}

function noSuchCall(id: CallId): PhoneError {
  return new PhoneError({ kind: "no-such-call", detail: id });
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = o[k];
  return out;
}

function safeLocalStorage(): PreferenceStorage | undefined {
  try {
    return (globalThis as { localStorage?: Storage }).localStorage;
  } catch {
    return undefined;
  }
}
