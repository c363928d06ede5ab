import type { OneWayAudioReason } from "./one-way-audio";
import type { QualityIssue, QualityMark } from "./quality-rules";

/** How a call sounds, as the watchdog last judged it: in the calls store for every surface to read. */
export interface CallQuality {
  mark: QualityMark;
  /** The latest figures (rounded): round trip and jitter in ms, loss in %, estimated MOS. */
  rttMs?: number;
  jitterMs?: number;
  lossPercent?: number;
  mos?: number;
  /** Figures bad for a while (see QualityRules), in a fixed order: loss, jitter, rtt, mos. */
  warnings: readonly QualityIssue[];
  /**
   * Audio from the other side stopped reaching us. `restarting`: the phone is renegotiating the
   * media path (an ICE restart, tried once per call); `unresolved`: that did not bring it back
   * (or was tried before), and the user must be told.
   */
  oneWayAudio?: { reason: OneWayAudioReason; since: number; state: "restarting" | "unresolved" };
}
