import { HOLD_MUSIC_NOTES } from "../media";
import type { Channel } from "../switch/types";
import type { SimChannel } from "./sim-channel";
import type { SimWorld } from "./sim-world";

/**
 * The simulated world as the call-center engine's simulated queue callers use it (the seam
 * `SimulatedWorld` of platform/cc/simulated-world.ts, matched structurally): a party calls a
 * destination through the dialplan with a caller id and a tone, presses keys, hangs up and tells
 * what it heard.
 */
export interface QueueCallerParty {
  readonly channel: Channel;
  pressDtmf(digits: string): void;
  hangup(): void;
  heard(): { tones: { frequency: number; from: string; to: string }[]; music: boolean; dtmf: string };
}

export interface QueueCallerWorld {
  call(options: {
    destination: string;
    callerIdName: string;
    callerIdNumber: string;
    toneHz?: number;
    /** Headers of the call besides who calls (an IVR's input). */
    data?: Readonly<Record<string, string>>;
  }): Promise<QueueCallerParty>;
}

/** A tone heard this long without a break is a steady tone (a hold-music note lasts 250 ms). */
const STEADY_MS = 400;

/** A tone of the hold melody (or one of its overtones): left out of "steady tones heard". */
function isHoldMusicTone(frequency: number): boolean {
  return HOLD_MUSIC_NOTES.some((note) => [1, 2, 3].some((k) => Math.abs(frequency - note * k) <= note * k * 0.015));
}

export function queueCallerWorld(sim: SimWorld): QueueCallerWorld {
  return {
    async call(options) {
      const ch: SimChannel = sim.placeCall({
        destination: options.destination,
        callerIdName: options.callerIdName,
        callerIdNumber: options.callerIdNumber,
        frequency: options.toneHz ?? 0,
        ...(options.data ? { data: options.data } : {}),
      });
      return {
        channel: ch,
        pressDtmf: (digits) => ch.sayDigits(digits, "inband"),
        hangup: () => ch.farEndHangup("NORMAL_CLEARING"),
        heard: () => {
          const report = ch.report();
          return {
            tones: report.heard
              .filter((t) => Date.parse(t.to) - Date.parse(t.from) >= STEADY_MS && !isHoldMusicTone(t.frequency))
              .map(({ frequency, from, to }) => ({ frequency, from, to })),
            music: ch.musicHeard,
            dtmf: report.dtmf.map((d) => d.digit).join(""),
          };
        },
      };
    },
  };
}
