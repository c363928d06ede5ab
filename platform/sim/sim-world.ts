import type { MediaPlane, SimulatedParty } from "../media";
import type { ChannelHost, ChannelInit } from "../switch/channel";
import type { SimulatedLegs, SoftSwitch } from "../switch/soft-switch";
import type { HangupCause } from "../switch/types";
import { sipHeaderVariables } from "../switch/sip-header-variables";
import { simBehaviourOf } from "./numbers";
import { SimChannel } from "./sim-channel";

export interface SimWorldOptions {
  /** How long a simulated party rings before it answers (or rejects), ms. */
  ringMs: number;
  /** Ended channels whose reports stay readable. */
  historySize: number;
}

export interface PlaceCallRequest {
  destination: string;
  callerIdNumber: string;
  callerIdName: string;
  /** The tone the caller says, Hz (0: silence). */
  frequency: number;
  /**
   * What the caller's INVITE carries besides who calls, as headers (`X-IVR-Account: 12345`, an
   * IVR's input): kept as the caller leg's `sip_h_` variables, as FreeSWITCH keeps them, and
   * handed on with the call.
   */
  data?: Readonly<Record<string, string>>;
}

/**
 * The simulated outside world: customers that call in (placed through /sim) and the parties
 * behind numbers the platform dials (see numbers.ts). They are media endpoints inside the
 * platform, not WebRTC: cheap enough for many at once.
 */
export class SimWorld implements SimulatedLegs {
  private readonly live = new Map<string, SimChannel>();
  private readonly history: SimChannel[] = [];

  constructor(
    private readonly sw: SoftSwitch,
    private readonly media: MediaPlane,
    private readonly options: SimWorldOptions,
  ) {
    sw.sims = this;
  }

  handles(number: string): boolean {
    return simBehaviourOf(number) !== undefined;
  }

  outbound(host: ChannelHost, init: ChannelInit, number: string): SimChannel {
    const behaviour = simBehaviourOf(number) ?? { kind: "fail" as const, cause: "UNALLOCATED_NUMBER" as const };
    return this.track(new SimChannel(host, init, this.media, behaviour, this.options.ringMs));
  }

  failing(host: ChannelHost, init: ChannelInit, cause: HangupCause): SimChannel {
    return this.track(new SimChannel(host, init, this.media, { kind: "fail", cause }, 0));
  }

  party(label: string): SimulatedParty {
    return this.media.createParty(label);
  }

  /** A simulated customer calls `destination` (an extension, a queue, a number). */
  placeCall(request: PlaceCallRequest): SimChannel {
    const ch = this.track(
      new SimChannel(
        this.sw,
        {
          direction: "inbound",
          callerIdName: request.callerIdName,
          callerIdNumber: request.callerIdNumber,
          destinationNumber: request.destination,
          domain: this.sw.defaultDomain(),
          context: "public",
          ...(request.data ? { variables: sipHeaderVariables(request.data) } : {}),
        },
        this.media,
        { kind: "caller", frequency: request.frequency },
        this.options.ringMs,
      ),
    );
    this.sw.add(ch);
    this.sw.route(ch, request.destination);
    return ch;
  }

  get(uuid: string): SimChannel | undefined {
    return this.live.get(uuid) ?? this.history.find((ch) => ch.uuid === uuid);
  }

  list(includeEnded = false): SimChannel[] {
    const live = [...this.live.values()];
    return includeEnded ? [...live, ...this.history] : live;
  }

  private track(ch: SimChannel): SimChannel {
    this.live.set(ch.uuid, ch);
    ch.once("hangup", () => {
      this.live.delete(ch.uuid);
      this.history.unshift(ch);
      if (this.history.length > this.options.historySize) this.history.length = this.options.historySize;
    });
    return ch;
  }
}
