import { estimateMos } from "./mos";

/**
 * One reading of a call's media statistics (taken every second while the call is up). Counters
 * are totals since the call began; the figures are for the time since the previous reading, and
 * absent when the statistics do not give them (no previous reading, nothing received, a browser
 * that does not report the field).
 */
export interface CallStatsSample {
  /** ms since epoch. */
  at: number;
  /** Audio received: packets, packets the network lost on the way, bytes. */
  packetsReceived: number;
  packetsLost: number;
  bytesReceived: number;
  /** Audio sent: packets and bytes. */
  packetsSent: number;
  bytesSent: number;
  /** Round-trip time of the media path, ms (RTCP, else the ICE checks). */
  rttMs?: number;
  /** Interarrival jitter of what we receive, ms (RFC 3550). */
  jitterMs?: number;
  /** Share of our audio the far end lost, as its last receiver report tells, %. */
  sentLossPercent?: number;
  /**
   * Share of the audio due to us in the interval that never came, %: how far the lost count rose
   * above the highest it had read before (it falls as late packets arrive), over that plus the
   * packets received. Never negative.
   */
  receivedLossPercent?: number;
  /** The worse of the two directions' loss, %. */
  lossPercent?: number;
  /** Estimated MOS (E-model) from round trip, jitter and loss. */
  mos?: number;
  /** Mean level (RMS, 0-1) of the audio we received over the interval, as played. */
  receivedLevel?: number;
  /** Mean level (RMS, 0-1) of our microphone over the interval. */
  sentLevel?: number;
  /** The level the far end says it sends (RFC 6464, in its RTP headers), 0-1, when it says. */
  remoteSentLevel?: number;
  /** The codec received, e.g. "opus". */
  codec?: string;
}

/** What the sampler reads from a peer connection: its statistics and, when present, the far end's own level. */
export interface StatsSource {
  getStats(): Promise<RTCStatsReport>;
  getReceivers?(): ReadonlyArray<{
    track: { kind: string } | null;
    getSynchronizationSources?(): ReadonlyArray<{ audioLevel?: number }>;
  }>;
}

type Entry = Record<string, unknown> & { type: string; id: string };

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** Reads one sample from a peer connection. */
export async function sampleCallStats(
  pc: StatsSource,
  previous: CallStatsSample | undefined,
  at: number,
): Promise<CallStatsSample> {
  const report = await pc.getStats();
  const receiver = pc.getReceivers?.().find((r) => r.track?.kind === "audio");
  const remoteSentLevel = num(receiver?.getSynchronizationSources?.()[0]?.audioLevel);
  return sampleFromReport(report, previous, at, remoteSentLevel);
}

/**
 * The sample of a statistics report (the standard WebRTC statistics: inbound-rtp,
 * outbound-rtp, remote-inbound-rtp, media-source, candidate-pair, codec), given the one before it.
 */
export function sampleFromReport(
  report: RTCStatsReport,
  previous: CallStatsSample | undefined,
  at: number,
  remoteSentLevel?: number,
): CallStatsSample {
  const entries: Entry[] = [];
  report.forEach((s: Entry) => entries.push(s));
  const byId = new Map(entries.map((s) => [s.id, s]));
  const audio = (type: string) => entries.find((s) => s.type === type && (s.kind ?? s.mediaType) === "audio");
  const inbound = audio("inbound-rtp");
  const outbound = audio("outbound-rtp");
  const remoteInbound = audio("remote-inbound-rtp");
  const source = audio("media-source");

  const sample: CallStatsSample = {
    at,
    packetsReceived: num(inbound?.packetsReceived) ?? 0,
    // Counted against the highest sequence number seen: it goes down again when packets that
    // arrive late (out of order) fill the gaps they left, and below zero for duplicates.
    packetsLost: num(inbound?.packetsLost) ?? 0,
    bytesReceived: num(inbound?.bytesReceived) ?? 0,
    packetsSent: num(outbound?.packetsSent) ?? 0,
    bytesSent: num(outbound?.bytesSent) ?? 0,
  };

  const rtt = num(remoteInbound?.roundTripTime) ?? num(selectedPair(entries, byId)?.currentRoundTripTime);
  if (rtt !== undefined) sample.rttMs = rtt * 1000;
  const jitter = num(inbound?.jitter);
  if (jitter !== undefined) sample.jitterMs = jitter * 1000;
  const fractionLost = num(remoteInbound?.fractionLost);
  if (fractionLost !== undefined) sample.sentLossPercent = fractionLost * 100;
  const prior = previous ? carried.get(previous) : undefined;
  // A rise the count later takes back was packets on their way (jitter reorders them), not loss:
  // only a rise above every count read before is new loss, and it is counted once.
  const highestBefore = prior?.highestLost ?? previous?.packetsLost;
  if (previous && highestBefore !== undefined) {
    const received = sample.packetsReceived - previous.packetsReceived;
    const lost = Math.max(0, sample.packetsLost - highestBefore);
    if (received + lost > 0) sample.receivedLossPercent = (lost / (received + lost)) * 100;
  }
  const losses = [sample.receivedLossPercent, sample.sentLossPercent].filter((x): x is number => x !== undefined);
  if (losses.length) sample.lossPercent = Math.max(...losses);
  if (sample.rttMs !== undefined && sample.jitterMs !== undefined && sample.lossPercent !== undefined) {
    sample.mos = estimateMos({ rttMs: sample.rttMs, jitterMs: sample.jitterMs, lossPercent: sample.lossPercent });
  }

  const levels = levelsOf(inbound, source);
  carried.set(sample, { ...levels, highestLost: Math.max(sample.packetsLost, highestBefore ?? -Infinity) });
  if (prior) {
    const receivedLevel = meanLevel(levels.received, prior.received);
    if (receivedLevel !== undefined) sample.receivedLevel = receivedLevel;
    const sentLevel = meanLevel(levels.sent, prior.sent);
    if (sentLevel !== undefined) sample.sentLevel = sentLevel;
  }
  if (remoteSentLevel !== undefined) sample.remoteSentLevel = remoteSentLevel;
  const codec = byId.get(String(inbound?.codecId ?? ""))?.mimeType;
  if (typeof codec === "string") sample.codec = codec.replace(/^audio\//i, "").toLowerCase();
  return sample;
}

interface Energy {
  energy: number;
  duration: number;
}

/**
 * What each sample carries to the next: the audio energy totals behind it and the highest lost
 * count read so far (kept off the sample, which is plain data for the store and the bundle).
 */
const carried = new WeakMap<CallStatsSample, { received?: Energy; sent?: Energy; highestLost: number }>();

function levelsOf(inbound: Entry | undefined, source: Entry | undefined): { received?: Energy; sent?: Energy } {
  const energy = (s: Entry | undefined): Energy | undefined => {
    const e = num(s?.totalAudioEnergy);
    const d = num(s?.totalSamplesDuration);
    return e !== undefined && d !== undefined ? { energy: e, duration: d } : undefined;
  };
  const received = energy(inbound);
  const sent = energy(source);
  return { ...(received ? { received } : {}), ...(sent ? { sent } : {}) };
}

/** RMS level over an interval, from the totals at its ends (totalAudioEnergy sums level² × seconds). */
function meanLevel(now: Energy | undefined, before: Energy | undefined): number | undefined {
  if (!now || !before) return undefined;
  const seconds = now.duration - before.duration;
  if (seconds <= 0) return undefined;
  return Math.sqrt(Math.max(0, now.energy - before.energy) / seconds);
}

function selectedPair(entries: Entry[], byId: Map<string, Entry>): Entry | undefined {
  const transport = entries.find((s) => s.type === "transport" && typeof s.selectedCandidatePairId === "string");
  const chosen = transport ? byId.get(transport.selectedCandidatePairId as string) : undefined;
  return chosen ?? entries.find((s) => s.type === "candidate-pair" && s.nominated === true && s.state === "succeeded");
}
