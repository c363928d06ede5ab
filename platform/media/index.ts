/**
 * The media plane of the local platform, as the SIP side and the simulated outside world see it.
 * See docs/decisions.md ("Media plane") for the design and the measured facts behind it.
 */
export { MediaPlane, type MediaPlaneOptions, type MediaPlaneStats, type Direction } from "./media-plane";
export { WebRtcLeg, type WebRtcLegOptions, type WebRtcLegStats } from "./webrtc-leg";
export { SimulatedParty } from "./simulated-party";
export { MediaEndpoint, type FrameTap } from "./media-endpoint";
export { Room, type RoomRole } from "./room";
export { Mixer } from "./mixer";
export { MediaClock, type MediaClockStats, type MediaClockOptions } from "./media-clock";
export { SAMPLE_RATE, FRAME_MS, FRAME_SAMPLES, type Frame, type FrameSource } from "./frame";
export { ToneGenerator, sineTone } from "./tone-generator";
export { ringbackTone, busyTone, cueTone, CALL_PROGRESS_FREQUENCY, CUE_FREQUENCY } from "./call-progress-tones";
export { HoldMusic, HOLD_MUSIC_NOTES, recognizesHoldMusic } from "./music-on-hold";
export { DtmfGenerator } from "./dtmf-generator";
export { ToneDetector, hasTone, type ToneAnalysis, type DetectedTone } from "./tone-detector";
export { DtmfDetector } from "./dtmf-detector";
export { CallRecorder, completeCutRecording, type Recording } from "./call-recorder";
export { readWav, parseWav, type WavAudio } from "./wav-reader";
export {
  ImpairedLink,
  packetKind,
  type ImpairedLinkStats,
  type LinkDirectionStats,
  type PacketKind,
} from "./impaired-link";
export {
  CLEAN_LEG,
  CLEAN_LINK,
  IMPAIRMENT_LIMITS,
  isClean,
  type LegImpairment,
  type LinkImpairment,
} from "./link-impairment";
export { connectPeerConnectionPair, type PeerConnectionPair } from "./peer-connection-pair";
