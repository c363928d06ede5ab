import {
  Invitation,
  SessionState,
  type Inviter,
  type Bye,
  type Cancel,
  type Core,
  type Referral,
  type SessionDescriptionHandler,
  type URI,
} from "sip.js";
import {
  answeredState,
  endKindForStatus,
  type Call,
  type CallDirection,
  type CallEnd,
  type CallId,
  type CallTransfer,
} from "./call";
import { applyTrackState, callMediaOf, type PhoneSdhOptions } from "./call-media";
import { findCall, updateCall, type CallsStore } from "./calls-store";
import { rollbackUnsentOffer } from "./offer-answer";
import { dtmfRelayBody, normaliseDtmf, type DtmfMode } from "./dtmf";
import type { NoticeBody } from "./notice";
import type { PhoneEvents } from "./phone-events";
import type { StatsSource } from "./call-stats";
import type { WatchedCall } from "./quality-watchdog";
import { PhoneError, type PhoneErrorInfo } from "./phone-error";
import { isCompletedElsewhere, parseReasonHeader } from "./reason-header";
import { calleeOf } from "./remote-party";
import type { RemoteAudio } from "./remote-audio";
import { isHoldOffer } from "./sdp-direction";
import { SerialQueue } from "./serial-queue";
import type { ResolvedSettings } from "./settings";
import { parseSipfrag } from "./sipfrag";

/** What a call needs from the phone around it. */
export interface CallSessionContext {
  readonly calls: CallsStore;
  readonly remoteAudio: RemoteAudio;
  readonly events: PhoneEvents;
  settings(): ResolvedSettings;
  now(): number;
  random(): number;
  notice(body: NoticeBody): void;
  /** The call is over: forget its session. */
  release(call: CallSession): void;
  /** A REFER received on `from` was accepted: place the call it asks for. */
  followReferral(from: CallSession, referral: Referral): Promise<CallId>;
  /** The call's microphone track ended by itself (the device was unplugged or taken away). */
  microphoneEnded(call: CallSession, track: MediaStreamTrack): void;
  /** Watches the answered call's quality until the returned function is called. */
  watchQuality(call: WatchedCall): () => void;
}

type ReinviteOutcome = { ok: true } | { ok: false; status?: number; reasonPhrase?: string; detail?: string };

/**
 * Failures of our re-INVITE before it left that mean the other side's re-INVITE got in first: sip.js
 * refuses to send while theirs is open, or the browser was asked for an offer and an answer at once.
 */
const LOCAL_GLARE =
  /ongoing re-INVITE|cannot create an answer in a state other than have-remote-offer|Invalid signaling state|Reinvite in progress/i;

/** Longest wait for the other side's re-INVITE to finish before ours is tried again (RFC 3261 §14.1's longest). */
const LOCAL_GLARE_WAIT_MS = 4000;

/** A final NOTIFY that never comes should not leave a transfer hanging for ever. */
export const TRANSFER_TIMEOUT_MS = 60_000;

/**
 * One call: the sip.js session behind a `Call` in the store. It keeps the store record in step
 * with the session and owns everything attached to the session (listeners, timers, the audio
 * element, the microphone), all of which it lets go when the call ends, so that sessions and
 * their peer connections can be collected.
 */
export class CallSession {
  private readonly cleanups: Array<() => void> = [];
  private readonly reinvites = new SerialQueue();
  private readonly infos = new SerialQueue();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private end: CallEnd | undefined;
  private pendingReferral: Referral | undefined;
  private holdRequest: { hold: boolean; done: Promise<void> } | undefined;
  private earlyMedia = false;
  /** This is the consultation of an attended transfer under way: the far end will hang up on us. */
  private replacedByTransfer = false;
  private finished = false;
  private readonly endedWaiters = new Set<() => void>();
  private openedMicrophone: MediaStream | undefined;
  private unwatchMicrophone: (() => void) | undefined;
  /** Counts microphone switches: only the latest one asked for is put under the call. */
  private microphoneSwitches = 0;
  /** Counts re-INVITEs received that are over (answered and acknowledged, or refused). */
  private remoteReinvitesDone = 0;
  private readonly remoteReinviteWaiters = new Set<() => void>();
  private stopQualityWatch: (() => void) | undefined;
  /** The conversation began before this session (a call given back after a reload): answered then. */
  continuesFrom: number | undefined;
  /** Left to the server when the page goes away, rather than hung up. */
  keepOnUnload = false;

  constructor(
    private readonly ctx: CallSessionContext,
    readonly id: CallId,
    readonly session: Inviter | Invitation,
    readonly direction: CallDirection,
  ) {
    const onState = (s: SessionState) => this.onSessionState(s);
    session.stateChange.addListener(onState);
    this.cleanups.push(() => session.stateChange.removeListener(onState));
    session.delegate = {
      onBye: (bye) => this.onBye(bye),
      onCancel: (cancel) => this.onCancel(cancel),
      onInvite: (request, _response, statusCode) => this.onReinvite(request, statusCode),
      onAck: () => this.remoteReinviteDone(),
      onRefer: (referral) => this.onRefer(referral),
    };
  }

  /**
   * Microphone opened for this call (the track the call sends); stopped when the call ends, whether
   * or not media used it. Its track ending by itself is reported to the phone.
   */
  get microphone(): MediaStream | undefined {
    return this.openedMicrophone;
  }

  set microphone(stream: MediaStream | undefined) {
    this.unwatchMicrophone?.();
    this.unwatchMicrophone = undefined;
    this.openedMicrophone = stream;
    const track = stream?.getAudioTracks()[0];
    if (!track) return;
    const onEnded = () => this.ctx.microphoneEnded(this, track);
    track.addEventListener("ended", onEnded);
    this.unwatchMicrophone = () => track.removeEventListener("ended", onEnded);
  }

  get call(): Call | undefined {
    return findCall(this.ctx.calls.getState(), this.id);
  }

  get isEstablished(): boolean {
    return this.session.state === SessionState.Established;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** The header values of the INVITE that brought an incoming call (outgoing calls: none). */
  requestHeaders(name: string): string[] {
    return this.session instanceof Invitation ? this.session.request.getHeaders(name) : [];
  }

  /**
   * Marks this call as the consultation leg of an attended transfer: the party we consulted drops
   * it (BYE) once the transferee's INVITE/Replaces reaches them, and that is the transfer working.
   */
  expectReplacement(expect: boolean): void {
    this.replacedByTransfer = expect;
  }

  /** Records how the call ended, unless that is already known. */
  setEnd(end: CallEnd, override = false): void {
    if (!this.end || override) this.end = end;
  }

  /** Runs `fn` after `ms` unless the call ends first. */
  schedule(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  // ---- outgoing ----

  /** Sends the INVITE; resolves once it is out. Progress and the answer arrive in the store. */
  async dial(): Promise<void> {
    const s = this.session;
    if (!isInviter(s)) throw invalidState("not an outgoing call");
    try {
      await s.invite({
        requestDelegate: {
          onProgress: (r) => this.onProgress(r),
          onAccept: () => this.onAnswered(),
          onReject: (r) => {
            const status = r.message.statusCode ?? 0;
            this.setEnd({
              kind: endKindForStatus(status),
              by: r.message.hasHeader("via") ? "remote" : "system",
              status,
              reasonPhrase: r.message.reasonPhrase ?? "",
              reasons: parseReasonHeader(r.message.getHeaders("reason")),
            });
          },
        },
      });
    } catch (e) {
      this.setEnd({ kind: "failed", by: "system", error: { kind: "sip", detail: message(e) } });
      throw new PhoneError({ kind: "sip", detail: `the INVITE could not be sent: ${message(e)}` });
    }
  }

  private onProgress(r: Core.IncomingResponse): void {
    const status = r.message.statusCode ?? 0;
    // sip.js reports a 183's progress only once its early answer is applied: a 200 that came
    // meanwhile has already made the call active, and it must stay so.
    if (status < 180 || this.finished || this.isEstablished) return;
    const withSdp = !!r.message.body && /application\/sdp/i.test(r.message.getHeader("content-type") ?? "");
    // sip.js applied this SDP to the session's media (earlyMedia): the far end is audible now.
    if (withSdp) this.earlyMedia = true;
    if (this.earlyMedia) this.attachAudio();
    this.update({
      state: "early",
      progress: { status, reasonPhrase: r.message.reasonPhrase ?? "", earlyMedia: this.earlyMedia },
    });
  }

  private onAnswered(): void {
    if (isInviter(this.session) && this.session.assertedIdentity) {
      this.update({ remote: calleeOf(this.session.remoteIdentity, this.session.assertedIdentity) });
    }
  }

  // ---- incoming ----

  /** The answer made while the call rings (prepareAnswer): its microphone, or undefined when none was prepared. */
  private prepared: Promise<MediaStream | undefined> | undefined;

  /**
   * While the call rings, does what Answer would do first: opens the microphone and makes the
   * answer to the offer in hand on the call's own peer connection, ICE gathered, so that Answer
   * only has to send it, and starts playing the call's (still silent) remote stream, so that the
   * browser's audio output is running when the first packet comes. Nothing goes out: no SIP, and
   * no audio (the track stays off until Answer, and DTLS cannot finish before the far end has the
   * answer). Turned away, cancelled or ended meanwhile, the call closes its peer connection and
   * stops the microphone as any call does; a step that fails leaves Answer to do it all itself.
   */
  prepareAnswer(openMicrophone: () => Promise<MediaStream>): void {
    const invitation = this.session;
    if (!(invitation instanceof Invitation) || this.prepared) return;
    const body = invitation.request.body;
    const offer: string | undefined = typeof body === "string" ? body : (body as { body?: string } | undefined)?.body;
    if (!offer || !/^v=0/m.test(offer)) return;
    const ringing = () => !this.finished && invitation.state === SessionState.Initial;
    this.prepared = (async () => {
      const microphone = await openMicrophone().catch(() => undefined);
      if (!microphone) return undefined;
      if (!ringing()) {
        microphone.getTracks().forEach((t) => t.stop());
        return undefined;
      }
      this.microphone = microphone;
      microphone.getAudioTracks().forEach((t) => (t.enabled = false));
      // sip.js makes the call's handler when it first needs one; made now, Answer finds it ready
      // and sip.js still closes it when the call ends.
      const sdh = (
        invitation as unknown as { setupSessionDescriptionHandler(): SessionDescriptionHandler }
      ).setupSessionDescriptionHandler();
      const options: PhoneSdhOptions = { constraints: { audio: true, video: false }, microphone };
      try {
        await sdh.setDescription(offer, options);
        const answer = await sdh.getDescription(options);
        if (ringing()) {
          answerWith(sdh, offer, answer);
          // The audio output starts now, not after Answer: the first packet is played at once.
          this.attachAudio(true);
        }
      } catch (e) {
        if (ringing()) console.warn("softphone: preparing the answer failed; Answer makes it", e);
      }
      return microphone;
    })();
  }

  async answer(microphone: MediaStream | undefined): Promise<void> {
    if (!(this.session instanceof Invitation) || this.session.state !== SessionState.Initial)
      throw invalidState("the call is not ringing");
    this.microphone = microphone;
    // A call that starts muted sends nothing from its first packet on.
    const send = !this.call?.muted;
    microphone?.getAudioTracks().forEach((t) => (t.enabled = send));
    const options: PhoneSdhOptions = {
      constraints: { audio: true, video: false },
      ...(microphone ? { microphone } : {}),
    };
    // The store (the screen, other tabs, a CRM listen to it) hears of it once this task is over:
    // with the answer made while the call rang, sip.js has sent the 200 OK by then and the call is
    // active; only an answer still being made shows "connecting" meanwhile.
    this.schedule(0, () => {
      if (this.session.state === SessionState.Establishing) this.update({ state: "connecting" });
    });
    try {
      await this.session.accept({ sessionDescriptionHandlerOptions: options });
    } catch (e) {
      this.setEnd({ kind: "failed", by: "system", error: { kind: "sip", detail: message(e) } });
      throw new PhoneError({ kind: "sip", detail: `answering failed: ${message(e)}` });
    }
  }

  /** The microphone prepared while the call rang, once its preparation is over; undefined when none was. */
  preparedMicrophone(): Promise<MediaStream | undefined> {
    return this.prepared ?? Promise.resolve(undefined);
  }

  /** Turns a ringing call away: 603 Decline or 486 Busy Here, never sip.js's default 480. */
  async reject(statusCode: 486 | 603): Promise<void> {
    if (!(this.session instanceof Invitation)) throw invalidState("not an incoming call");
    const s = this.session.state;
    if (s !== SessionState.Initial && s !== SessionState.Establishing)
      throw invalidState("the call is no longer ringing");
    this.setEnd({ kind: statusCode === 486 ? "busy" : "declined", by: "local", status: statusCode });
    await this.session.reject({ statusCode });
  }

  /** Ends the call in whatever way fits its state: CANCEL, 603 or BYE. */
  async hangup(kind: CallEnd["kind"] = "hangup"): Promise<void> {
    const s = this.session;
    if (s.state === SessionState.Terminating || s.state === SessionState.Terminated) return;
    if (isInviter(s) && (s.state === SessionState.Initial || s.state === SessionState.Establishing)) {
      this.setEnd({ kind: "cancelled", by: "local" });
      await s.cancel();
      return;
    }
    if (s instanceof Invitation && (s.state === SessionState.Initial || s.state === SessionState.Establishing)) {
      await this.reject(603);
      return;
    }
    this.setEnd({ kind, by: "local" }, kind !== "hangup");
    await s.bye();
  }

  /**
   * Ends the call here, now: the connection its signalling used is gone, and the server has given
   * up on it (or will), so no CANCEL, final answer or BYE response is coming. An end already
   * recorded (our own hang-up) stays.
   */
  abandon(end: CallEnd): void {
    if (this.finished) return;
    this.setEnd(end);
    // Releases sip.js's side (its media too); whatever it tries to send goes nowhere.
    this.session.dispose().catch(() => {});
    this.finish();
  }

  // ---- in call ----

  setMuted(muted: boolean): void {
    const c = this.update({ muted });
    if (c && this.isEstablished) this.applyTracks(c);
  }

  hold(): Promise<void> {
    return this.changeHold(true);
  }

  resume(): Promise<void> {
    return this.changeHold(false);
  }

  private changeHold(hold: boolean): Promise<void> {
    if (this.holdRequest?.hold === hold) return this.holdRequest.done;
    const c = this.call;
    if (!c || !this.isEstablished) return Promise.reject(invalidState("the call is not connected"));
    if (c.held === hold && !this.holdRequest) return Promise.resolve();
    const done = this.doChangeHold(hold).finally(() => {
      if (this.holdRequest?.done === done) this.holdRequest = undefined;
    });
    this.holdRequest = { hold, done };
    return done;
  }

  private async doChangeHold(hold: boolean): Promise<void> {
    const before = this.update({ holdPending: true });
    // Silence us at once when holding; the re-INVITE then tells the other side.
    if (hold && before) this.applyTracks({ ...before, held: true });
    const outcome = await this.reinvite(() => ({ hold }));
    if (outcome.ok) {
      const c = this.update((c) => ({ held: hold, holdPending: false, state: answeredState(hold, c.remoteHeld) }));
      if (c) this.applyTracks(c);
      return;
    }
    // sip.js keeps the failed attempt's options for later offers and answers: put ours back.
    this.session.sessionDescriptionHandlerOptionsReInvite = { hold: !hold } as PhoneSdhOptions;
    const c = this.update({ holdPending: false });
    if (c) this.applyTracks(c);
    const error = reinviteError(outcome);
    if (!this.finished) this.ctx.notice({ kind: "hold-failed", callId: this.id, resume: !hold, error });
    throw new PhoneError(error);
  }

  /** New ICE credentials (the media path changed or failed), keeping the hold state; resolves with whether the far end accepted them. */
  async restartIce(): Promise<boolean> {
    if (!this.isEstablished) return false;
    const outcome = await this.reinvite(() => ({ hold: this.call?.held ?? false, offerOptions: { iceRestart: true } }));
    // Later re-INVITEs must not restart ICE again.
    this.session.sessionDescriptionHandlerOptionsReInvite = { hold: this.call?.held ?? false } as PhoneSdhOptions;
    if (!outcome.ok && !this.finished)
      this.ctx.notice({ kind: "ice-restart-failed", callId: this.id, error: reinviteError(outcome) });
    return outcome.ok;
  }

  /**
   * Opens another microphone and swaps its track under the call: no renegotiation, no gap for the
   * other side. When switches overlap (a device unplugged while another is chosen), the last one
   * asked for wins whatever order the microphones open in.
   */
  async switchMicrophone(open: () => Promise<MediaStream>): Promise<void> {
    const turn = ++this.microphoneSwitches;
    const stream = await open();
    if (turn !== this.microphoneSwitches) {
      stream.getTracks().forEach((t) => t.stop());
      return;
    }
    const media = callMediaOf(this.session);
    const track = stream.getAudioTracks()[0];
    const sender = media?.peerConnection?.getSenders().find((s) => !s.track || s.track.kind === "audio");
    const c = this.call;
    if (!media || !track || !sender || !c || this.finished) {
      stream.getTracks().forEach((t) => t.stop());
      return;
    }
    track.enabled = !(c.muted || c.held || c.holdPending);
    const old = sender.track;
    await sender.replaceTrack(track);
    if (old) {
      media.localMediaStream.removeTrack(old);
      old.stop();
    }
    media.localMediaStream.addTrack(track);
    if (this.microphone && this.microphone !== stream) this.microphone.getTracks().forEach((t) => t.stop());
    this.microphone = stream;
  }

  /** `how`: the way to send them for this once (the settings' way otherwise). */
  async sendDtmf(tones: string, how?: DtmfMode): Promise<void> {
    const n = normaliseDtmf(tones);
    if (!n.ok)
      throw new PhoneError({
        kind: "invalid-dtmf",
        detail: n.character ? `"${n.character}" is not a DTMF tone` : "no tones",
      });
    if (!this.isEstablished) throw invalidState("the call is not connected");
    const s = this.ctx.settings();
    let mode: DtmfMode = how ?? s.dtmfMode;
    if (mode === "rfc4733") {
      const media = callMediaOf(this.session);
      // insertDTMF replaces the tones still waiting to be played: keys pressed in quick succession
      // would lose all but the one playing and the last. The waiting ones go again, in front.
      const waiting = media?.peerConnection?.getSenders().find((sender) => sender.dtmf)?.dtmf?.toneBuffer ?? "";
      const sent =
        media?.sendDtmf(waiting + n.tones, { duration: s.dtmfDurationMs, interToneGap: s.dtmfInterToneGapMs }) ?? false;
      if (!sent) {
        // No telephone-event negotiated (or nothing to send it on): SIP INFO still reaches the server.
        mode = "info";
        this.ctx.notice({ kind: "dtmf-fallback", callId: this.id });
      }
    }
    if (mode === "info") await this.infos.run(() => this.sendInfoTones(n.tones, s.dtmfDurationMs));
    this.update((c) => ({ dtmf: { sent: c.dtmf.sent + n.tones, mode } }));
    this.ctx.events.emit("dtmf-sent", { callId: this.id, tones: n.tones, mode });
  }

  private async sendInfoTones(tones: string, durationMs: number): Promise<void> {
    for (const tone of tones) {
      await this.untilEnded(
        new Promise<void>((resolve, reject) => {
          this.session
            .info({
              requestOptions: {
                body: {
                  contentDisposition: "render",
                  contentType: "application/dtmf-relay",
                  content: dtmfRelayBody(tone, durationMs),
                },
              },
              requestDelegate: {
                onAccept: () => resolve(),
                onReject: (r) =>
                  reject(
                    new PhoneError({
                      kind: "sip",
                      status: r.message.statusCode ?? 0,
                      reasonPhrase: r.message.reasonPhrase ?? "",
                      detail: "DTMF INFO refused",
                    }),
                  ),
              },
            })
            .catch((e: unknown) => reject(new PhoneError({ kind: "sip", detail: message(e) })));
        }),
        () => invalidState("the call ended"),
      );
    }
  }

  // ---- transfer out ----

  /**
   * Transfers the call with a REFER: to an address (blind), or to the other party of a
   * consultation (attended, Refer-To with Replaces; see refer-to.ts). sip.js leaves the call up after a REFER succeeds (#1069);
   * we hang up once the transferee reports a 2xx in its sipfrag NOTIFY.
   */
  transfer(referTo: URI, target: string, kind: CallTransfer["kind"]): Promise<void> {
    if (!this.isEstablished) return Promise.reject(invalidState("the call is not connected"));
    const current = this.call?.transfer;
    if (current && (current.state === "requested" || current.state === "accepted" || current.state === "trying")) {
      return Promise.reject(invalidState("a transfer is already under way"));
    }
    this.update({ transfer: { kind, target, state: "requested" } });
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (ok: boolean, error?: PhoneErrorInfo) => {
        if (settled) return;
        settled = true;
        this.endedWaiters.delete(onEnded);
        if (ok) resolve();
        else reject(new PhoneError(error ?? { kind: "sip" }));
      };
      const succeed = (status?: number, reasonPhrase?: string) => {
        this.patchTransfer({ state: "succeeded", ...(status ? { status, reasonPhrase: reasonPhrase ?? "" } : {}) });
        this.setEnd({ kind: "transferred", by: "local" }, true);
        if (this.isEstablished) this.session.bye().catch(() => {});
        settle(true);
      };
      const fail = (error: PhoneErrorInfo) => {
        if (settled) return;
        this.patchTransfer({
          state: "failed",
          ...(error.status ? { status: error.status, reasonPhrase: error.reasonPhrase ?? "" } : {}),
        });
        this.ctx.notice({ kind: "transfer-failed", callId: this.id, error });
        settle(false, error);
      };
      // The server may end our leg before (or instead of) the final NOTIFY: that is success
      // when it had accepted the REFER.
      const onEnded = () => {
        const t = this.call?.transfer;
        if (t && (t.state === "accepted" || t.state === "trying")) {
          this.setEnd({ kind: "transferred", by: "remote" }, true);
          settle(true);
        } else settle(false, { kind: "invalid-state", detail: "the call ended during the transfer" });
      };
      this.endedWaiters.add(onEnded);
      this.schedule(TRANSFER_TIMEOUT_MS, () => fail({ kind: "timeout", detail: "no final transfer report (NOTIFY)" }));
      this.session
        .refer(referTo, {
          requestDelegate: {
            onAccept: () => this.patchTransfer({ state: "accepted" }),
            onReject: (r) =>
              fail({
                kind: "sip",
                status: r.message.statusCode ?? 0,
                reasonPhrase: r.message.reasonPhrase ?? "",
                detail: "REFER refused",
              }),
          },
          onNotify: (notification) => {
            notification.accept().catch(() => {});
            const frag = parseSipfrag(notification.request.body);
            if (!frag || settled) return;
            if (frag.status < 200)
              this.patchTransfer({ state: "trying", status: frag.status, reasonPhrase: frag.reasonPhrase });
            else if (frag.status < 300) succeed(frag.status, frag.reasonPhrase);
            else
              fail({
                kind: "sip",
                status: frag.status,
                reasonPhrase: frag.reasonPhrase,
                detail: "the transfer target did not take the call",
              });
          },
        })
        .catch((e: unknown) => fail({ kind: "sip", detail: message(e) }));
    });
  }

  private patchTransfer(patch: Partial<CallTransfer>): void {
    this.update((c) => (c.transfer ? { transfer: { ...c.transfer, ...patch } } : {}));
  }

  // ---- REFER received ----

  private onRefer(referral: Referral): void {
    let target: string;
    try {
      const uri = referral.referTo.uri.clone();
      uri.clearHeaders();
      target = uri.toString();
    } catch {
      referral.reject({ statusCode: 400 }).catch(() => {});
      return;
    }
    if (this.pendingReferral) {
      referral.reject({ statusCode: 603 }).catch(() => {});
      return;
    }
    const referredBy = referral.referredBy;
    const request = { target, ...(referredBy ? { referredBy } : {}), replaces: !!referral.replaces };
    const policy = this.ctx.settings().referPolicy;
    if (policy === "reject") {
      referral.reject({ statusCode: 603 }).catch(() => {});
      this.update({ referRequest: { ...request, state: "rejected" } });
      this.ctx.notice({ kind: "refer-refused", callId: this.id, target });
      this.ctx.events.emit("refer-request", { callId: this.id, ...request, decision: "rejected" });
      return;
    }
    this.pendingReferral = referral;
    this.update({ referRequest: { ...request, state: "pending" } });
    if (policy === "ask") {
      this.schedule(this.ctx.settings().referAskTimeoutSec * 1000, () => this.rejectReferral());
      this.ctx.events.emit("refer-request", { callId: this.id, ...request, decision: "pending" });
      return;
    }
    this.ctx.events.emit("refer-request", { callId: this.id, ...request, decision: "accepted" });
    this.acceptReferral().catch(() => {});
  }

  /** Follows the pending REFER: 202, then a new call to its target (reported back by NOTIFYs). */
  async acceptReferral(): Promise<CallId> {
    const referral = this.pendingReferral;
    if (!referral) throw invalidState("no transfer request is waiting");
    this.pendingReferral = undefined;
    this.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, state: "accepted" } } : {}));
    const followCallId = await this.ctx.followReferral(this, referral);
    this.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, followCallId } } : {}));
    return followCallId;
  }

  rejectReferral(): void {
    const referral = this.pendingReferral;
    if (!referral) return;
    this.pendingReferral = undefined;
    referral.reject({ statusCode: 603 }).catch(() => {});
    this.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, state: "rejected" } } : {}));
  }

  // ---- session events ----

  private onSessionState(s: SessionState): void {
    if (s === SessionState.Established) {
      const at = Math.min(this.continuesFrom ?? Infinity, this.ctx.now());
      const c = this.update((c) => ({
        answeredAt: at,
        state: answeredState(c.held, c.remoteHeld),
        holdPending: false,
      }));
      if (c) this.applyTracks(c);
      this.attachAudio();
      this.stopQualityWatch ??= this.ctx.watchQuality(this.watched(c?.remote.uri ?? ""));
    } else if (s === SessionState.Terminated) {
      // sip.js ends an outgoing call before it hands the final response to our request
      // delegate, in the same call stack: collect how it ended first.
      queueMicrotask(() => this.finish());
    }
  }

  private onBye(bye: Bye): void {
    bye.accept().catch(() => {});
    const reasons = parseReasonHeader(bye.request.getHeaders("reason"));
    const t = this.call?.transfer;
    const kind = isCompletedElsewhere(reasons)
      ? "completed-elsewhere"
      : this.replacedByTransfer || (t && (t.state === "accepted" || t.state === "trying" || t.state === "succeeded"))
        ? "transferred"
        : "hangup";
    this.setEnd({ kind, by: "remote", ...(reasons.length ? { reasons } : {}) });
  }

  private onCancel(cancel: Cancel): void {
    const reasons = parseReasonHeader(cancel.request.getHeaders("reason"));
    this.setEnd({
      kind: isCompletedElsewhere(reasons) ? "completed-elsewhere" : "cancelled",
      by: "remote",
      ...(reasons.length ? { reasons } : {}),
    });
  }

  /** sip.js answered a re-INVITE by itself; we only learn whether it put us on hold. */
  private onReinvite(request: Core.IncomingRequestMessage, statusCode: number): void {
    // A refusal ends that transaction; an acceptance ends with its ACK.
    if (statusCode >= 300) this.remoteReinviteDone();
    if (statusCode < 200 || statusCode >= 300 || !request.body) return;
    const remoteHeld = isHoldOffer(request.body);
    this.update((c) => ({ remoteHeld, state: c.state === "ended" ? c.state : answeredState(c.held, remoteHeld) }));
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const waiter of [...this.endedWaiters]) waiter();
    this.endedWaiters.clear();
    if (this.pendingReferral) this.rejectReferral();
    this.stopQualityWatch?.();
    this.ctx.remoteAudio.detach(this.id);
    this.microphone?.getTracks().forEach((t) => t.stop());
    this.microphone = undefined;
    this.session.delegate = undefined;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    const c = this.call;
    const end =
      this.end ??
      (c && !c.answeredAt && this.direction === "inbound"
        ? { kind: "no-answer", by: "system" }
        : { kind: "failed", by: "system" });
    const ended = this.update({ state: "ended", endedAt: this.ctx.now(), end, holdPending: false });
    this.ctx.release(this);
    if (ended) this.ctx.events.emit("call-ended", { call: ended });
  }

  // ---- helpers ----

  private watched(remote: string): WatchedCall {
    return {
      id: this.id,
      remote,
      statsSource: () => {
        const pc = callMediaOf(this.session)?.peerConnection;
        return pc?.getStats ? (pc as StatsSource) : undefined;
      },
      held: () => {
        const c = this.call;
        return !c || c.held || c.remoteHeld || c.holdPending;
      },
      restartIce: () => this.restartIce(),
      publish: (quality) => void this.update({ quality }),
    };
  }

  /**
   * Sends a re-INVITE, and again after glare: a 491 (both sides' re-INVITEs crossed; sip.js has
   * rolled our offer back) or theirs getting in while ours was being prepared.
   */
  private reinvite(options: () => PhoneSdhOptions): Promise<ReinviteOutcome> {
    return this.reinvites.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const doneBefore = this.remoteReinvitesDone;
        const outcome = await this.untilEnded(
          this.sendReinvite(options()),
          () => ({ ok: false, detail: "the call ended" }) as const,
        );
        if (outcome.ok || attempt >= 3 || this.finished) return outcome;
        if (outcome.status === 491) {
          // RFC 3261 §14.1: the Call-ID owner waits 2.1-4 s, the other side 0-2 s.
          const owner = this.direction === "outbound";
          await this.wait(owner ? 2100 + this.ctx.random() * 1900 : this.ctx.random() * 2000);
        } else if (!outcome.status && LOCAL_GLARE.test(outcome.detail ?? "")) {
          await this.wait(LOCAL_GLARE_WAIT_MS, () => this.remoteReinvitesDone > doneBefore);
        } else return outcome;
      }
    });
  }

  private sendReinvite(options: PhoneSdhOptions): Promise<ReinviteOutcome> {
    return new Promise((resolve) => {
      if (!this.isEstablished) return resolve({ ok: false, detail: "the call is not connected" });
      this.session
        .invite({
          sessionDescriptionHandlerOptions: options,
          requestDelegate: {
            onAccept: () => resolve({ ok: true }),
            onReject: (r) =>
              resolve({ ok: false, status: r.message.statusCode ?? 0, reasonPhrase: r.message.reasonPhrase ?? "" }),
          },
        })
        .catch(async (e: unknown) => {
          // Nothing went out, but our offer may be set: sip.js leaves it there; take it back.
          await rollbackUnsentOffer(this.session.sessionDescriptionHandler);
          resolve({ ok: false, detail: message(e) });
        });
    });
  }

  /** Waits `ms`, or less once `done()` holds (checked whenever a received re-INVITE is over). */
  private wait(ms: number, done?: () => boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = () => {
        if (!done?.()) return;
        this.remoteReinviteWaiters.delete(check);
        resolve();
      };
      this.remoteReinviteWaiters.add(check);
      this.schedule(ms, () => {
        this.remoteReinviteWaiters.delete(check);
        resolve();
      });
      check();
    });
  }

  private remoteReinviteDone(): void {
    this.remoteReinvitesDone++;
    for (const w of [...this.remoteReinviteWaiters]) w();
  }

  /** Settles with `onEnd()` if the call ends before `p` settles (some sip.js paths never answer). */
  private untilEnded<T>(p: Promise<T>, onEnd: () => T | Error): Promise<T> {
    if (this.finished) {
      const v = onEnd();
      return v instanceof Error ? Promise.reject(v) : Promise.resolve(v);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter = () => {
        const v = onEnd();
        if (v instanceof Error) reject(v);
        else resolve(v);
      };
      this.endedWaiters.add(waiter);
      p.then(resolve, reject).finally(() => this.endedWaiters.delete(waiter));
    });
  }

  private applyTracks(c: Call): void {
    applyTrackState(callMediaOf(this.session), !(c.muted || c.held), !c.held);
  }

  private attachAudio(ahead = false): void {
    const media = callMediaOf(this.session);
    if (media && !this.finished) this.ctx.remoteAudio.attach(this.id, media.remoteMediaStream, ahead);
  }

  update(patch: Partial<Call> | ((call: Call) => Partial<Call>)): Call | undefined {
    return updateCall(this.ctx.calls, this.id, patch);
  }
}

function invalidState(detail: string): PhoneError {
  return new PhoneError({ kind: "invalid-state", detail });
}

function reinviteError(o: Extract<ReinviteOutcome, { ok: false }>): PhoneErrorInfo {
  return {
    kind: "sip",
    ...(o.status ? { status: o.status, reasonPhrase: o.reasonPhrase ?? "" } : {}),
    ...(o.detail ? { detail: o.detail } : {}),
  };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Makes sip.js's accept() use an answer prepared while the call rang: setting the same offer
 * again does nothing, and the next description asked for is the prepared one. Once used, the
 * handler is as before.
 */
function answerWith(
  sdh: SessionDescriptionHandler,
  offer: string,
  answer: Awaited<ReturnType<SessionDescriptionHandler["getDescription"]>>,
): void {
  const setDescription = sdh.setDescription;
  const getDescription = sdh.getDescription;
  sdh.setDescription = (sdp, options, modifiers) =>
    sdp === offer ? Promise.resolve() : setDescription.call(sdh, sdp, options, modifiers);
  sdh.getDescription = () => {
    sdh.setDescription = setDescription;
    sdh.getDescription = getDescription;
    return Promise.resolve(answer);
  };
}

/** A call this phone placed (sip.js's `Inviter`, whose class the page may not have loaded: see `outgoingCalls` in phone.ts). */
function isInviter(s: Inviter | Invitation): s is Inviter {
  return !(s instanceof Invitation);
}
