import type { Channel } from "../switch/types";

/**
 * What the simulated customers of `/sim/queue-callers` need from the switch's simulated outside
 * world (the soft-switch's part): a party that calls into the switch with a caller id, plays a
 * tone, presses keys and tells what it heard. The soft-switch's simulated world provides it; this
 * interface is the seam, kept small so that an adapter is a few lines.
 */
export interface SimulatedWorld {
  /** A simulated party calls `destination` through the dialplan (a queue name here). */
  call(options: {
    destination: string;
    callerIdName: string;
    callerIdNumber: string;
    toneHz?: number;
    /** Headers of the call besides who calls (an IVR's input). */
    data?: Readonly<Record<string, string>>;
  }): Promise<SimulatedParty>;
}

export interface SimulatedParty {
  /** The party's leg in the switch (an inbound 'sim' channel). */
  readonly channel: Channel;
  /** Presses keys: DTMF toward whoever the party is connected to. */
  pressDtmf(digits: string): void;
  hangup(): void;
  /** What the party heard so far. */
  heard(): HeardReport;
}

export interface HeardReport {
  /** Steady tones heard (music on hold left out), in order, with when they started and stopped (ISO time). */
  tones: { frequency: number; from: string; to: string }[];
  /** Music on hold was heard (while waiting, held or consulted). */
  music: boolean;
  /** Keys heard (DTMF), in order. */
  dtmf: string;
}
