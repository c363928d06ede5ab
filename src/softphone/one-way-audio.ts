import type { CallStatsSample } from "./call-stats";

/**
 * Why we think the other side cannot be heard:
 * - `no-packets`: no audio has arrived at all (packets and bytes received stopped growing);
 * - `no-sound`: audio packets arrive but play as silence while the far end says (RFC 6464 level
 *   in its RTP headers) that it sends sound.
 */
export type OneWayAudioReason = "no-packets" | "no-sound";

/** How long it must last before it counts, ms. */
export const ONE_WAY_AUDIO_MS = 3000;
/** Under this level (RMS, 0-1; about −60 dBFS) what we play is silence. */
export const SILENT_LEVEL = 0.001;
/** Over this level (about −46 dBov) the far end is sending sound. */
export const SOUNDING_LEVEL = 0.005;

/**
 * Watches a call's readings for audio that stopped coming in while the call is not on hold
 * (either side's hold rightly stops it, and so do the seconds around it).
 */
export class OneWayAudioDetector {
  private flowingAt: number | undefined;
  private soundAt: number | undefined;
  private last: CallStatsSample | undefined;

  /**
   * Takes the newest reading; `held` is whether either side holds the call (or a hold is being
   * negotiated). Says whether audio is coming in now (packets arriving, and not as silence the
   * far end says is sound), and the problem once it has lasted ONE_WAY_AUDIO_MS, with since when.
   */
  update(
    sample: CallStatsSample,
    held: boolean,
  ): { flowing: boolean; problem?: { reason: OneWayAudioReason; since: number } } {
    const previous = this.last;
    this.last = sample;
    const arriving =
      !!previous &&
      (sample.packetsReceived > previous.packetsReceived || sample.bytesReceived > previous.bytesReceived);
    const muffled =
      sample.receivedLevel !== undefined &&
      sample.remoteSentLevel !== undefined &&
      sample.receivedLevel < SILENT_LEVEL &&
      sample.remoteSentLevel > SOUNDING_LEVEL;
    const flowing = arriving && !muffled;
    if (held || !previous) {
      this.reset(sample.at);
      return { flowing };
    }
    if (arriving) this.flowingAt = sample.at;
    if (!muffled) this.soundAt = sample.at;
    const flowingAt = this.flowingAt ?? sample.at;
    const soundAt = this.soundAt ?? sample.at;
    if (sample.at - flowingAt >= ONE_WAY_AUDIO_MS)
      return { flowing, problem: { reason: "no-packets", since: flowingAt } };
    if (sample.at - soundAt >= ONE_WAY_AUDIO_MS) return { flowing, problem: { reason: "no-sound", since: soundAt } };
    return { flowing };
  }

  /** Starts the clock again (after a hold, or once the media path was renegotiated). */
  reset(at: number): void {
    this.flowingAt = at;
    this.soundAt = at;
  }
}
