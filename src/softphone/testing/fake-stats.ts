/**
 * Statistics reports shaped as Chromium's (the fields the call-quality sampler reads, with the
 * entries around them), built from a running tally of a call's media.
 */
export interface MediaTally {
  /** Seconds since the call began. */
  seconds: number;
  packetsReceived: number;
  packetsLost: number;
  /** Packets due that are still on their way (counted lost until they come). */
  late: number;
  bytesReceived: number;
  packetsSent: number;
  bytesSent: number;
  /** Round-trip time from RTCP, s (undefined: no receiver report yet). */
  rtt?: number;
  /** From the ICE checks, s. */
  pairRtt?: number;
  jitter: number;
  fractionLost?: number;
  /** Sums of level² × seconds, and seconds of audio. */
  receivedEnergy: number;
  sentEnergy: number;
}

export function newTally(): MediaTally {
  return {
    seconds: 0,
    packetsReceived: 0,
    packetsLost: 0,
    late: 0,
    bytesReceived: 0,
    packetsSent: 0,
    bytesSent: 0,
    jitter: 0.002,
    receivedEnergy: 0,
    sentEnergy: 0,
  };
}

/**
 * One second more of a call: 50 packets due each way, `lost` of those due to us lost, `late` of
 * them still on their way at the reading (they come in the next second, as jitter reorders
 * packets: the browser counts them lost until then), levels as RMS 0-1.
 */
export function oneSecond(
  t: MediaTally,
  options: { lost?: number; late?: number; arriving?: boolean; receivedLevel?: number; sentLevel?: number } = {},
): MediaTally {
  const arriving = options.arriving ?? true;
  const lost = options.lost ?? 0;
  const late = arriving ? (options.late ?? 0) : 0;
  const received = arriving ? 50 - lost - late + t.late : 0;
  return {
    ...t,
    seconds: t.seconds + 1,
    packetsReceived: t.packetsReceived + received,
    packetsLost: t.packetsLost + (arriving ? lost + late - t.late : 0),
    late,
    bytesReceived: t.bytesReceived + received * 80,
    packetsSent: t.packetsSent + 50,
    bytesSent: t.bytesSent + 50 * 80,
    receivedEnergy: t.receivedEnergy + (arriving ? (options.receivedLevel ?? 0.1) ** 2 : 0),
    sentEnergy: t.sentEnergy + (options.sentLevel ?? 0.1) ** 2,
  };
}

export function statsReport(t: MediaTally): RTCStatsReport {
  const entries: Array<Record<string, unknown>> = [
    { id: "T01", type: "transport", selectedCandidatePairId: "CP1" },
    {
      id: "CP1",
      type: "candidate-pair",
      nominated: true,
      state: "succeeded",
      ...(t.pairRtt !== undefined ? { currentRoundTripTime: t.pairRtt } : {}),
    },
    { id: "CP2", type: "candidate-pair", nominated: false, state: "failed", currentRoundTripTime: 9 },
    { id: "COT01_111", type: "codec", mimeType: "audio/opus", clockRate: 48000 },
    {
      id: "IT01A1",
      type: "inbound-rtp",
      kind: "audio",
      codecId: "COT01_111",
      packetsReceived: t.packetsReceived,
      packetsLost: t.packetsLost,
      bytesReceived: t.bytesReceived,
      jitter: t.jitter,
      totalAudioEnergy: t.receivedEnergy,
      totalSamplesDuration: t.seconds,
      audioLevel: 0.1,
    },
    { id: "OT01A2", type: "outbound-rtp", kind: "audio", packetsSent: t.packetsSent, bytesSent: t.bytesSent },
    { id: "SA3", type: "media-source", kind: "audio", totalAudioEnergy: t.sentEnergy, totalSamplesDuration: t.seconds },
    ...(t.rtt !== undefined || t.fractionLost !== undefined
      ? [
          {
            id: "RI01A2",
            type: "remote-inbound-rtp",
            kind: "audio",
            ...(t.rtt !== undefined ? { roundTripTime: t.rtt } : {}),
            fractionLost: t.fractionLost ?? 0,
          },
        ]
      : []),
  ];
  return new Map(entries.map((e) => [e.id as string, e])) as unknown as RTCStatsReport;
}
