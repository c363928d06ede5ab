import type { Referral, URI } from "sip.js";
import type { CallId, CallTransfer } from "./call";
import { invalidState, message, type CallLeg } from "./call-leg";
import { PhoneError, type PhoneErrorInfo } from "./phone-error";
import { parseSipfrag } from "./sipfrag";

/** A final NOTIFY that never comes should not leave a transfer hanging for ever. */
export const TRANSFER_TIMEOUT_MS = 60_000;

/**
 * A call's transfers: ours out (REFER, then the transferee's NOTIFYs until the final one), and a
 * REFER received (refused, asked about or followed, by the settings' `referPolicy`).
 */
export class CallTransfers {
  private pendingReferral: Referral | undefined;
  /** This is the consultation of an attended transfer under way: the far end will hang up on us. */
  private replacedByTransfer = false;

  constructor(private readonly leg: CallLeg) {}

  /**
   * Marks this call as the consultation leg of an attended transfer: the party we consulted drops
   * it (BYE) once the transferee's INVITE/Replaces reaches them, and that is the transfer working.
   */
  expectReplacement(expect: boolean): void {
    this.replacedByTransfer = expect;
  }

  /** Whether a BYE now is the transfer working rather than a hang-up. */
  get byeMeansTransferred(): boolean {
    const t = this.leg.call?.transfer;
    return (
      this.replacedByTransfer || (!!t && (t.state === "accepted" || t.state === "trying" || t.state === "succeeded"))
    );
  }

  /**
   * Transfers the call with a REFER: to an address (blind), or to the other party of a
   * consultation (attended, Refer-To with Replaces; see refer-to.ts). sip.js leaves the call up after a REFER succeeds (#1069);
   * we hang up once the transferee reports a 2xx in its sipfrag NOTIFY.
   */
  transfer(referTo: URI, target: string, kind: CallTransfer["kind"]): Promise<void> {
    const leg = this.leg;
    if (!leg.isEstablished) return Promise.reject(invalidState("the call is not connected"));
    const current = leg.call?.transfer;
    if (current && (current.state === "requested" || current.state === "accepted" || current.state === "trying")) {
      return Promise.reject(invalidState("a transfer is already under way"));
    }
    leg.update({ transfer: { kind, target, state: "requested" } });
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      let stopWaiting = () => {};
      const settle = (ok: boolean, error?: PhoneErrorInfo) => {
        if (settled) return;
        settled = true;
        stopWaiting();
        if (ok) resolve();
        else reject(new PhoneError(error ?? { kind: "sip" }));
      };
      const succeed = (status?: number, reasonPhrase?: string) => {
        this.patchTransfer({ state: "succeeded", ...(status ? { status, reasonPhrase: reasonPhrase ?? "" } : {}) });
        leg.setEnd({ kind: "transferred", by: "local" }, true);
        if (leg.isEstablished) leg.session.bye().catch(() => {});
        settle(true);
      };
      const fail = (error: PhoneErrorInfo) => {
        if (settled) return;
        this.patchTransfer({
          state: "failed",
          ...(error.status ? { status: error.status, reasonPhrase: error.reasonPhrase ?? "" } : {}),
        });
        leg.ctx.notice({ kind: "transfer-failed", callId: leg.id, error });
        settle(false, error);
      };
      // The server may end our leg before (or instead of) the final NOTIFY: that is success
      // when it had accepted the REFER.
      stopWaiting = leg.whenEnded(() => {
        const t = leg.call?.transfer;
        if (t && (t.state === "accepted" || t.state === "trying")) {
          leg.setEnd({ kind: "transferred", by: "remote" }, true);
          settle(true);
        } else settle(false, { kind: "invalid-state", detail: "the call ended during the transfer" });
      });
      leg.schedule(TRANSFER_TIMEOUT_MS, () => fail({ kind: "timeout", detail: "no final transfer report (NOTIFY)" }));
      leg.session
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
    this.leg.update((c) => (c.transfer ? { transfer: { ...c.transfer, ...patch } } : {}));
  }

  // ---- REFER received ----

  onRefer(referral: Referral): void {
    const leg = this.leg;
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
    const policy = leg.ctx.settings().referPolicy;
    if (policy === "reject") {
      referral.reject({ statusCode: 603 }).catch(() => {});
      leg.update({ referRequest: { ...request, state: "rejected" } });
      leg.ctx.notice({ kind: "refer-refused", callId: leg.id, target });
      leg.ctx.events.emit("refer-request", { callId: leg.id, ...request, decision: "rejected" });
      return;
    }
    this.pendingReferral = referral;
    leg.update({ referRequest: { ...request, state: "pending" } });
    if (policy === "ask") {
      leg.schedule(leg.ctx.settings().referAskTimeoutSec * 1000, () => this.rejectReferral());
      leg.ctx.events.emit("refer-request", { callId: leg.id, ...request, decision: "pending" });
      return;
    }
    leg.ctx.events.emit("refer-request", { callId: leg.id, ...request, decision: "accepted" });
    this.acceptReferral().catch(() => {});
  }

  /** Follows the pending REFER: 202, then a new call to its target (reported back by NOTIFYs). */
  async acceptReferral(): Promise<CallId> {
    const referral = this.pendingReferral;
    if (!referral) throw invalidState("no transfer request is waiting");
    this.pendingReferral = undefined;
    this.leg.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, state: "accepted" } } : {}));
    const followCallId = await this.leg.ctx.followReferral(this.leg.id, referral);
    this.leg.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, followCallId } } : {}));
    return followCallId;
  }

  rejectReferral(): void {
    const referral = this.pendingReferral;
    if (!referral) return;
    this.pendingReferral = undefined;
    referral.reject({ statusCode: 603 }).catch(() => {});
    this.leg.update((c) => (c.referRequest ? { referRequest: { ...c.referRequest, state: "rejected" } } : {}));
  }
}
