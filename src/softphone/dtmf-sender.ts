import { callMediaOf } from "./call-media";
import { invalidState, message, type CallLeg } from "./call-leg";
import { dtmfRelayBody, normaliseDtmf, type DtmfMode } from "./dtmf";
import { PhoneError } from "./phone-error";
import { SerialQueue } from "./serial-queue";

/** A call's keypad: tones in the media (RFC 4733), or as SIP INFO, one request at a time. */
export class DtmfSender {
  private readonly infos = new SerialQueue();

  constructor(private readonly leg: CallLeg) {}

  /** `how`: the way to send them for this once (the settings' way otherwise). */
  async send(tones: string, how?: DtmfMode): Promise<void> {
    const leg = this.leg;
    const n = normaliseDtmf(tones);
    if (!n.ok)
      throw new PhoneError({
        kind: "invalid-dtmf",
        detail: n.character ? `"${n.character}" is not a DTMF tone` : "no tones",
      });
    if (!leg.isEstablished) throw invalidState("the call is not connected");
    const s = leg.ctx.settings();
    let mode: DtmfMode = how ?? s.dtmfMode;
    if (mode === "rfc4733") {
      const media = callMediaOf(leg.session);
      // insertDTMF replaces the tones still waiting to be played: keys pressed in quick succession
      // would lose all but the one playing and the last. The waiting ones go again, in front.
      const waiting = media?.peerConnection?.getSenders().find((sender) => sender.dtmf)?.dtmf?.toneBuffer ?? "";
      const sent =
        media?.sendDtmf(waiting + n.tones, { duration: s.dtmfDurationMs, interToneGap: s.dtmfInterToneGapMs }) ?? false;
      if (!sent) {
        // No telephone-event negotiated (or nothing to send it on): SIP INFO still reaches the server.
        mode = "info";
        leg.ctx.notice({ kind: "dtmf-fallback", callId: leg.id });
      }
    }
    if (mode === "info") await this.infos.run(() => this.sendInfoTones(n.tones, s.dtmfDurationMs));
    leg.update((c) => ({ dtmf: { sent: c.dtmf.sent + n.tones, mode } }));
    leg.ctx.events.emit("dtmf-sent", { callId: leg.id, tones: n.tones, mode });
  }

  private async sendInfoTones(tones: string, durationMs: number): Promise<void> {
    const leg = this.leg;
    for (const tone of tones) {
      await leg.untilEnded(
        new Promise<void>((resolve, reject) => {
          leg.session
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
}
