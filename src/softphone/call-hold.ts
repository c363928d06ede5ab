import type { Core } from "sip.js";
import { answeredState } from "./call";
import type { PhoneSdhOptions } from "./call-media";
import { invalidState, message, type CallLeg } from "./call-leg";
import { rollbackUnsentOffer } from "./offer-answer";
import { PhoneError, type PhoneErrorInfo } from "./phone-error";
import { isHoldOffer } from "./sdp-direction";
import { SerialQueue } from "./serial-queue";

type ReinviteOutcome = { ok: true } | { ok: false; status?: number; reasonPhrase?: string; detail?: string };

/**
 * Failures of our re-INVITE before it left that mean the other side's re-INVITE got in first: sip.js
 * refuses to send while theirs is open, or the browser was asked for an offer and an answer at once.
 */
const LOCAL_GLARE =
  /ongoing re-INVITE|cannot create an answer in a state other than have-remote-offer|Invalid signaling state|Reinvite in progress/i;

/** Longest wait for the other side's re-INVITE to finish before ours is tried again (RFC 3261 §14.1's longest). */
const LOCAL_GLARE_WAIT_MS = 4000;

/**
 * A call's re-INVITEs: hold and resume, the ICE restart (both ours, one at a time, sent again
 * after glare), and the other side's re-INVITEs (which may put us on hold).
 */
export class CallHold {
  private readonly reinvites = new SerialQueue();
  private holdRequest: { hold: boolean; done: Promise<void> } | undefined;
  /** Counts re-INVITEs received that are over (answered and acknowledged, or refused). */
  private remoteReinvitesDone = 0;
  private readonly remoteReinviteWaiters = new Set<() => void>();

  constructor(private readonly leg: CallLeg) {}

  hold(): Promise<void> {
    return this.changeHold(true);
  }

  resume(): Promise<void> {
    return this.changeHold(false);
  }

  /** New ICE credentials (the media path changed or failed), keeping the hold state; resolves with whether the far end accepted them. */
  async restartIce(): Promise<boolean> {
    const leg = this.leg;
    if (!leg.isEstablished) return false;
    const outcome = await this.reinvite(() => ({ hold: leg.call?.held ?? false, offerOptions: { iceRestart: true } }));
    // Later re-INVITEs must not restart ICE again.
    leg.session.sessionDescriptionHandlerOptionsReInvite = { hold: leg.call?.held ?? false } as PhoneSdhOptions;
    if (!outcome.ok && !leg.isFinished)
      leg.ctx.notice({ kind: "ice-restart-failed", callId: leg.id, error: reinviteError(outcome) });
    return outcome.ok;
  }

  /** sip.js answered a re-INVITE by itself; we only learn whether it put us on hold. */
  onReinvite(request: Core.IncomingRequestMessage, statusCode: number): void {
    // A refusal ends that transaction; an acceptance ends with its ACK.
    if (statusCode >= 300) this.remoteReinviteDone();
    if (statusCode < 200 || statusCode >= 300 || !request.body) return;
    const remoteHeld = isHoldOffer(request.body);
    this.leg.update((c) => ({ remoteHeld, state: c.state === "ended" ? c.state : answeredState(c.held, remoteHeld) }));
  }

  /** A re-INVITE received is over (its ACK came, or it was refused). */
  remoteReinviteDone(): void {
    this.remoteReinvitesDone++;
    for (const w of [...this.remoteReinviteWaiters]) w();
  }

  private changeHold(hold: boolean): Promise<void> {
    if (this.holdRequest?.hold === hold) return this.holdRequest.done;
    const c = this.leg.call;
    if (!c || !this.leg.isEstablished) return Promise.reject(invalidState("the call is not connected"));
    if (c.held === hold && !this.holdRequest) return Promise.resolve();
    const done = this.doChangeHold(hold).finally(() => {
      if (this.holdRequest?.done === done) this.holdRequest = undefined;
    });
    this.holdRequest = { hold, done };
    return done;
  }

  private async doChangeHold(hold: boolean): Promise<void> {
    const leg = this.leg;
    const before = leg.update({ holdPending: true });
    // Silence us at once when holding; the re-INVITE then tells the other side.
    if (hold && before) leg.applyTracks({ ...before, held: true });
    const outcome = await this.reinvite(() => ({ hold }));
    if (outcome.ok) {
      const c = leg.update((c) => ({ held: hold, holdPending: false, state: answeredState(hold, c.remoteHeld) }));
      if (c) leg.applyTracks(c);
      return;
    }
    // sip.js keeps the failed attempt's options for later offers and answers: put ours back.
    leg.session.sessionDescriptionHandlerOptionsReInvite = { hold: !hold } as PhoneSdhOptions;
    const c = leg.update({ holdPending: false });
    if (c) leg.applyTracks(c);
    const error = reinviteError(outcome);
    if (!leg.isFinished) leg.ctx.notice({ kind: "hold-failed", callId: leg.id, resume: !hold, error });
    throw new PhoneError(error);
  }

  /**
   * Sends a re-INVITE, and again after glare: a 491 (both sides' re-INVITEs crossed; sip.js has
   * rolled our offer back) or theirs getting in while ours was being prepared.
   */
  private reinvite(options: () => PhoneSdhOptions): Promise<ReinviteOutcome> {
    const leg = this.leg;
    return this.reinvites.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const doneBefore = this.remoteReinvitesDone;
        const outcome = await leg.untilEnded(
          this.sendReinvite(options()),
          () => ({ ok: false, detail: "the call ended" }) as const,
        );
        if (outcome.ok || attempt >= 3 || leg.isFinished) return outcome;
        if (outcome.status === 491) {
          // RFC 3261 §14.1: the Call-ID owner waits 2.1-4 s, the other side 0-2 s.
          const owner = leg.direction === "outbound";
          await this.wait(owner ? 2100 + leg.ctx.random() * 1900 : leg.ctx.random() * 2000);
        } else if (!outcome.status && LOCAL_GLARE.test(outcome.detail ?? "")) {
          await this.wait(LOCAL_GLARE_WAIT_MS, () => this.remoteReinvitesDone > doneBefore);
        } else return outcome;
      }
    });
  }

  private sendReinvite(options: PhoneSdhOptions): Promise<ReinviteOutcome> {
    const leg = this.leg;
    return new Promise((resolve) => {
      if (!leg.isEstablished) return resolve({ ok: false, detail: "the call is not connected" });
      leg.session
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
          await rollbackUnsentOffer(leg.session.sessionDescriptionHandler);
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
      this.leg.schedule(ms, () => {
        this.remoteReinviteWaiters.delete(check);
        resolve();
      });
      check();
    });
  }
}

function reinviteError(o: Extract<ReinviteOutcome, { ok: false }>): PhoneErrorInfo {
  return {
    kind: "sip",
    ...(o.status ? { status: o.status, reasonPhrase: o.reasonPhrase ?? "" } : {}),
    ...(o.detail ? { detail: o.detail } : {}),
  };
}
