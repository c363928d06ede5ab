import { Invitation, type Session } from "sip.js";
import { AudioDevices, type AudioDeviceRole } from "./audio-devices";
import { isLive, type CallId } from "./call";
import { callMediaOf } from "./call-media";
import { CallSession, type CallSessionContext } from "./call-session";
import { CallSessions, noSuchCall } from "./call-sessions";
import { createCallsStore, findCall, removeCall, updateCall, type CallsStore } from "./calls-store";
import type { IncomingCallHandler } from "./incoming-call";
import { IncomingCalls } from "./incoming-calls";
import { withDtlsServerAnswer } from "./dtls-role";
import { withEarlyIceCompletion } from "./ice-gathering";
import { withIceFailureWatch } from "./ice-recovery";
import { instanceId } from "./instance-id";
import { browserSessionDescriptionHandlerFactory } from "./media-stream-factory";
import { MicrophoneRecovery } from "./microphone-recovery";
import { withOfferAnswerOrder } from "./offer-answer";
import type { NoticeBody } from "./notice";
import { OutgoingCalls, outgoingCalls, targetUri, type CallOptions } from "./outgoing-calls";
import { PageLifecycle } from "./page-lifecycle";
import { browserParts, type PhoneEnvironment } from "./phone-environment";
import { PhoneError } from "./phone-error";
import { PhoneEvents, type PhoneEventHandler, type PhoneEventName } from "./phone-events";
import { phoneDiagnostics, type PhoneDiagnostics } from "./phone-diagnostics";
import { scrubSecrets } from "./redact";
import { lazyQualityMonitor } from "./quality-loader";
import { RegistrationHistory } from "./registration-history";
import { SipTrace } from "./sip-trace";
import { createPhoneStore, dismissNotice, pushNotice, type PhoneStore } from "./phone-store";
import { attendedReferTo, blindReferTo } from "./refer-to";
import { RemoteAudio } from "./remote-audio";
import { publicSettings, resolveSettings, type PhoneSettings, type ResolvedSettings } from "./settings";
import type { DtmfMode } from "./dtmf";
import { SipConnection } from "./sip-connection";

export type { PhoneEnvironment } from "./phone-environment";
export type { CallOptions } from "./outgoing-calls";

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
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly events = new PhoneEvents();
  private readonly sipTrace: SipTrace;
  private readonly registrations: RegistrationHistory;
  /** RFC 5626 instance id of this browser, for every registration. */
  private readonly instanceId: string;
  private readonly devices: AudioDevices;
  private readonly remoteAudio: RemoteAudio;
  private readonly sessions: CallSessions;
  /** What every call's session is given of the phone. */
  private readonly callContext: CallSessionContext;
  private readonly incoming: IncomingCalls;
  private readonly outgoing: OutgoingCalls;
  private readonly microphones: MicrophoneRecovery;
  private readonly page: PageLifecycle;
  private connection: SipConnection | undefined;
  private settings: ResolvedSettings | undefined;
  /** The page went into the back/forward cache while the phone ran: it starts again if it comes back. */
  private suspended = false;
  private readonly quality: ReturnType<typeof lazyQualityMonitor>;

  /**
   * Builds its parts in the order they need each other; the callbacks they are given run only
   * once the phone is started (devices, page events) or a call is under way. Where two need each
   * other both ways, they are joined in a second step once both are built (`joined`), never by a
   * closure that works only because the later one is assigned further down: the devices with the
   * microphone recovery (a device list checks the calls' microphones; the recovery opens devices),
   * and every call's context with the outgoing calls (an accepted REFER places a call; a placed
   * call's session is given the context).
   */
  constructor(private readonly env: PhoneEnvironment = {}) {
    const joined: { microphones?: MicrophoneRecovery; outgoing?: OutgoingCalls } = {};
    this.now = env.now ?? Date.now;
    this.random = env.random ?? Math.random;
    this.sipTrace = new SipTrace(this.now);
    this.quality = lazyQualityMonitor(this.now);
    this.registrations = new RegistrationHistory(this.phoneStore, this.now);
    const browser = browserParts(env);
    this.instanceId = instanceId(browser.storage);
    this.devices = new AudioDevices({
      mediaDevices: browser.mediaDevices,
      storage: browser.storage,
      canChooseOutput: browser.canChooseOutput,
      onState: (devices) => {
        this.phoneStore.setState({ devices });
        joined.microphones?.check(devices.microphones);
      },
      onNotice: (n) => this.notice(n),
      onSelectionChange: (role, deviceId) => this.onDeviceSelected(role, deviceId),
    });
    this.remoteAudio = new RemoteAudio(browser.createAudioElement, (callId, e) => {
      // Autoplay policy: no user gesture on the page yet (an auto-answered call, a CRM iframe).
      if ((e as { name?: string })?.name === "NotAllowedError") this.notice({ kind: "audio-blocked", callId });
      else console.warn(`softphone: audio playback of call ${callId}:`, e);
    });
    this.remoteAudio.setSink(this.devices.selected("speaker"));
    this.sessions = new CallSessions(this.callsStore, this.now);
    this.microphones = new MicrophoneRecovery(this.sessions, this.devices, (n) => this.notice(n));
    this.callContext = {
      calls: this.callsStore,
      remoteAudio: this.remoteAudio,
      events: this.events,
      settings: () => this.requireSettings(),
      now: this.now,
      random: this.random,
      notice: (n) => this.notice(n),
      release: (id) => this.sessions.release(id),
      followReferral: (from, referral) => joined.outgoing!.followReferral(from, referral),
      microphoneEnded: (id, track) => this.microphones.lostOn(id, track),
      watchQuality: (call) => this.quality.watch(call),
    };
    this.outgoing = new OutgoingCalls({
      sessions: this.sessions,
      calls: this.callsStore,
      settings: () => this.requireSettings(),
      connection: () => this.requireConnection(),
      openMicrophone: (callId) => this.openMicrophone(callId),
      newSession: (id, inviter) => new CallSession(this.callContext, id, inviter, "outbound"),
    });
    this.incoming = new IncomingCalls({
      sessions: this.sessions,
      calls: this.callsStore,
      events: this.events,
      settings: () => this.requireSettings(),
      now: this.now,
      notice: (n) => this.notice(n),
      newSession: (id, invitation) => new CallSession(this.callContext, id, invitation, "inbound"),
      openMicrophone: () => this.devices.openMicrophone(),
      answer: (id) => this.answer(id),
    });
    this.page = new PageLifecycle(browser.window, browser.document, {
      onWake: () => this.connection?.wake(),
      // A frozen page cannot ring: with no call under way the phone unregisters, so that a call to
      // it fails at once (or follows the user's forwarding) instead of ringing into nothing.
      onFreeze: () => {
        if (this.sessions.size === 0) this.connection?.sleep();
      },
      onUnload: () => this.unload(),
      onRestore: () => this.restore(),
    });
    // The second step: the parts that need each other both ways, joined now that all are built.
    joined.microphones = this.microphones;
    joined.outgoing = this.outgoing;
  }

  // ---- lifecycle ----

  /**
   * Connects and registers with these settings. Resolves at once; follow `phoneStore`'s
   * `registration`. Rejects (`invalid-settings`) when the settings cannot be used, and
   * (`invalid-state`) when calls are in progress.
   */
  async start(settings: PhoneSettings): Promise<void> {
    if (this.sessions.live().length > 0)
      throw new PhoneError({ kind: "invalid-state", detail: "calls are in progress" });
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
    await Promise.allSettled(this.sessions.all().map((s) => s.hangup()));
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
    this.incoming.handler = handler;
  }

  // ---- calls ----

  /** Fetches the code for outgoing calls now (the page calls it once it is ready), so the first call does not wait for it. */
  loadOutgoingCalls(): Promise<void> {
    return outgoingCalls().then(() => undefined);
  }

  /** Dials a number or SIP address; other talking calls are put on hold first. Resolves with the new call's id once the INVITE is out. */
  async call(input: string, options: CallOptions = {}): Promise<CallId> {
    return this.outgoing.place(input, options);
  }

  async answer(id: CallId): Promise<void> {
    const cs = this.sessions.get(id);
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
      cs.session instanceof Invitation && cs.session.replacee ? this.sessions.of(cs.session.replacee)?.id : undefined;
    await this.sessions.holdOthers(id, replacee).catch(() => {});
    await cs.answer(microphone);
  }

  /**
   * Opens the microphone now for a call the server is about to make to this phone and the phone
   * will answer by itself (a supervisor's listening leg): that answer then does not wait for the
   * browser to open it. Stopped if no call takes it within `forMs`, or when the returned function
   * says the call is not coming.
   */
  warmMicrophone(forMs: number): () => void {
    return this.devices.warmMicrophone(forMs);
  }

  /** Turns a ringing call away: 603 Decline by default, or 486 Busy Here. */
  async reject(id: CallId, status: 486 | 603 = 603): Promise<void> {
    await this.sessions.get(id).reject(status);
  }

  /** Ends a call: CANCEL while dialling, 603 while ringing here, BYE once connected. */
  async hangup(id: CallId): Promise<void> {
    await this.sessions.get(id).hangup();
  }

  setMuted(id: CallId, muted: boolean): void {
    this.sessions.get(id).setMuted(muted);
  }

  hold(id: CallId): Promise<void> {
    return this.sessions.get(id).hold();
  }

  resume(id: CallId): Promise<void> {
    return this.sessions.get(id).resume();
  }

  /** Makes `id` the call we talk on: every other talking call is held, then `id` is resumed. */
  async swap(id: CallId): Promise<void> {
    const cs = this.sessions.get(id);
    if (!cs.isEstablished) throw new PhoneError({ kind: "invalid-state", detail: "the call is not connected" });
    await this.sessions.holdOthers(id);
    if (cs.call?.held) await cs.resume();
  }

  /** `how`: SIP INFO or RFC 4733 for these tones only; the settings decide otherwise. */
  sendDtmf(id: CallId, tones: string, how?: DtmfMode): Promise<void> {
    return this.sessions.get(id).sendDtmf(tones, how);
  }

  /** Blind transfer: the other party is sent to `target`; our leg ends when that succeeds. */
  async transfer(id: CallId, target: string): Promise<void> {
    const cs = this.sessions.get(id);
    const uri = targetUri(target, this.requireSettings());
    await cs.transfer(blindReferTo(uri), uri.toString(), "blind");
  }

  /** Attended transfer, step 1: hold the call and dial `target` on a second line. */
  async startConsult(id: CallId, target: string, options: CallOptions = {}): Promise<CallId> {
    const original = this.sessions.get(id);
    if (!original.isEstablished) throw new PhoneError({ kind: "invalid-state", detail: "the call is not connected" });
    if (original.call?.consultCallId)
      throw new PhoneError({ kind: "invalid-state", detail: "a consultation is already under way" });
    targetUri(target, this.requireSettings());
    await original.hold();
    const consultId = await this.outgoing.place(target, options, id);
    updateCall(this.callsStore, id, { consultCallId: consultId });
    return consultId;
  }

  /**
   * Attended transfer, step 2: the first call's party is connected to the consulted one (REFER
   * with Replaces) and both our legs end. If the consulted party has not answered yet, the call
   * is transferred blind to them instead. `id` may be either call.
   */
  async completeConsult(id: CallId): Promise<void> {
    const { original, consult } = this.sessions.consultPair(id);
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
    await original.transfer(blindReferTo(targetUri(target, this.requireSettings())), target, "blind");
  }

  /** Attended transfer abandoned: hang up the consultation and resume the first call. */
  async cancelConsult(id: CallId): Promise<void> {
    const { original, consult } = this.sessions.consultPair(id);
    await consult.hangup().catch(() => {});
    if (original.isEstablished && original.call?.held) await original.resume();
  }

  /** Follows the REFER waiting on this call (referPolicy 'ask'). Resolves with the new call's id. */
  acceptRefer(id: CallId): Promise<CallId> {
    return this.sessions.get(id).acceptReferral();
  }

  /** Refuses the REFER waiting on this call with 603. */
  rejectRefer(id: CallId): void {
    this.sessions.get(id).rejectReferral();
  }

  /** Adds labels to a call (queue, customer, ...) for the UI. */
  decorate(id: CallId, context: Record<string, string>): void {
    if (!updateCall(this.callsStore, id, (c) => ({ context: { ...c.context, ...context } }))) throw noSuchCall(id);
  }

  /** First raw value of a header of the INVITE that brought an incoming call. */
  header(id: CallId, name: string): string | undefined {
    return this.sessions.get(id).requestHeaders(name)[0];
  }

  /** All raw values of a header of the INVITE that brought an incoming call. */
  headers(id: CallId, name: string): string[] {
    return this.sessions.get(id).requestHeaders(name);
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
    return callMediaOf(this.sessions.get(id).session)?.remoteMediaStream as MediaStream | undefined;
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
      callStats: this.quality.history(),
      sipTrace: this.sipTrace.list(),
    });
    return scrubSecrets(report, [this.settings?.password]);
  }

  // ---- internals ----

  /** The media path of a call broke while signalling may be fine: renegotiate it. */
  private onIceFailed(session: Session): void {
    const cs = this.sessions.of(session);
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
        onInvite: (invitation) => this.incoming.receive(invitation),
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
    for (const cs of this.sessions.all()) if (!cs.isEstablished) cs.abandon({ kind: "connection-lost", by: "system" });
  }

  private onRecovered(): void {
    for (const cs of this.sessions.all()) if (cs.isEstablished) void cs.restartIce();
  }

  private onDeviceSelected(role: AudioDeviceRole, deviceId: string): void {
    if (role === "speaker") this.remoteAudio.setSink(deviceId);
    if (role === "microphone") this.microphones.chosen();
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
    for (const cs of this.sessions.all()) {
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
    for (const cs of this.sessions.all()) cs.abandon({ kind: "connection-lost", by: "system" });
    // The page listeners stay: pageshow brings the phone back from the back/forward cache.
    this.suspended = true;
  }

  /** Back from the back/forward cache: the socket was closed on the way in, so connect again. */
  private restore(): void {
    if (this.suspended && this.settings) this.connect(this.settings);
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

function notStarted(): PhoneError {
  return new PhoneError({ kind: "not-connected", detail: "the phone is not started" });
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = o[k];
  return out;
}
