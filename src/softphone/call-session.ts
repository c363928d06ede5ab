import { Invitation, SessionState, type Inviter, type Bye, type Cancel, type Core, type URI } from "sip.js";
import {
  answeredState,
  endKindForStatus,
  type Call,
  type CallDirection,
  type CallEnd,
  type CallId,
  type CallTransfer,
} from "./call";
import { CallHold } from "./call-hold";
import { invalidState, message, type CallLeg, type CallSessionContext } from "./call-leg";
import { applyTrackState, callMediaOf, type PhoneSdhOptions } from "./call-media";
import { CallTransfers } from "./call-transfer";
import { findCall, updateCall } from "./calls-store";
import type { StatsSource } from "./call-stats";
import type { DtmfMode } from "./dtmf";
import { DtmfSender } from "./dtmf-sender";
import { PhoneError } from "./phone-error";
import { prepareAnswer } from "./pre-answer";
import type { WatchedCall } from "./quality-watchdog";
import { isCompletedElsewhere, parseReasonHeader } from "./reason-header";
import { calleeOf } from "./remote-party";

export type { CallSessionContext } from "./call-leg";

/**
 * One call: the sip.js session behind a `Call` in the store. It keeps the store record in step
 * with the session and owns everything attached to the session (listeners, timers, the audio
 * element, the microphone), all of which it lets go when the call ends, so that sessions and
 * their peer connections can be collected.
 */
export class CallSession implements CallLeg {
  private readonly cleanups: Array<() => void> = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private end: CallEnd | undefined;
  private earlyMedia = false;
  private finished = false;
  private readonly endedWaiters = new Set<() => void>();
  private openedMicrophone: MediaStream | undefined;
  private unwatchMicrophone: (() => void) | undefined;
  /** Counts microphone switches: only the latest one asked for is put under the call. */
  private microphoneSwitches = 0;
  private stopQualityWatch: (() => void) | undefined;
  /** The conversation began before this session (a call given back after a reload): answered then. */
  continuesFrom: number | undefined;
  /** Left to the server when the page goes away, rather than hung up. */
  keepOnUnload = false;

  /** The answer made while the call rings (prepareAnswer): its microphone, or undefined when none was prepared. */
  private prepared: Promise<MediaStream | undefined> | undefined;
  /** The call's parts, each a file of its own; built before the session's events can reach them. */
  private readonly holding: CallHold;
  private readonly transfers: CallTransfers;
  private readonly dtmf: DtmfSender;

  constructor(
    readonly ctx: CallSessionContext,
    readonly id: CallId,
    readonly session: Inviter | Invitation,
    readonly direction: CallDirection,
  ) {
    this.holding = new CallHold(this);
    this.transfers = new CallTransfers(this);
    this.dtmf = new DtmfSender(this);
    const onState = (s: SessionState) => this.onSessionState(s);
    session.stateChange.addListener(onState);
    this.cleanups.push(() => session.stateChange.removeListener(onState));
    session.delegate = {
      onBye: (bye) => this.onBye(bye),
      onCancel: (cancel) => this.onCancel(cancel),
      onInvite: (request, _response, statusCode) => this.holding.onReinvite(request, statusCode),
      onAck: () => this.holding.remoteReinviteDone(),
      onRefer: (referral) => this.transfers.onRefer(referral),
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
    const onEnded = () => this.ctx.microphoneEnded(this.id, track);
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
    this.transfers.expectReplacement(expect);
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

  /** Makes the answer while the call rings (see pre-answer.ts), once. */
  prepareAnswer(openMicrophone: () => Promise<MediaStream>): void {
    this.prepared ??= prepareAnswer(this, openMicrophone);
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
    return this.holding.hold();
  }

  resume(): Promise<void> {
    return this.holding.resume();
  }

  /** New ICE credentials (the media path changed or failed), keeping the hold state; resolves with whether the far end accepted them. */
  restartIce(): Promise<boolean> {
    return this.holding.restartIce();
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
  sendDtmf(tones: string, how?: DtmfMode): Promise<void> {
    return this.dtmf.send(tones, how);
  }

  // ---- transfer ----

  /** A REFER to `referTo` (see call-transfer.ts); our leg ends once the transferee reports success. */
  transfer(referTo: URI, target: string, kind: CallTransfer["kind"]): Promise<void> {
    return this.transfers.transfer(referTo, target, kind);
  }

  /** Follows the REFER waiting on this call (referPolicy 'ask'): resolves with the new call's id. */
  acceptReferral(): Promise<CallId> {
    return this.transfers.acceptReferral();
  }

  rejectReferral(): void {
    this.transfers.rejectReferral();
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
    const kind = isCompletedElsewhere(reasons)
      ? "completed-elsewhere"
      : this.transfers.byeMeansTransferred
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

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const waiter of [...this.endedWaiters]) waiter();
    this.endedWaiters.clear();
    this.transfers.rejectReferral();
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
    this.ctx.release(this.id);
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

  whenEnded(fn: () => void): () => void {
    this.endedWaiters.add(fn);
    return () => this.endedWaiters.delete(fn);
  }

  untilEnded<T>(p: Promise<T>, onEnd: () => T | Error): Promise<T> {
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

  applyTracks(c: Call): void {
    applyTrackState(callMediaOf(this.session), !(c.muted || c.held), !c.held);
  }

  attachAudio(ahead = false): void {
    const media = callMediaOf(this.session);
    if (media && !this.finished) this.ctx.remoteAudio.attach(this.id, media.remoteMediaStream, ahead);
  }

  update(patch: Partial<Call> | ((call: Call) => Partial<Call>)): Call | undefined {
    return updateCall(this.ctx.calls, this.id, patch);
  }
}

/** A call this phone placed (sip.js's `Inviter`, whose class the page may not have loaded: see `outgoingCalls` in phone.ts). */
function isInviter(s: Inviter | Invitation): s is Inviter {
  return !(s instanceof Invitation);
}
