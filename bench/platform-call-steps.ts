/**
 * The local platform's side of a call's media setup, seen from inside its process (the bench runs
 * the platform in-process): when its WebSocket hands it the phone's 200 OK and sends the ACK,
 * when its peer connection has the answer set, when its ICE and DTLS connect, when the caller is
 * bridged to the phone's leg, when the phone's first audio over -40 dBFS comes out of its decoder,
 * and when the simulated caller first hears the phone's tone (the other half of the first words);
 * when it makes an outbound leg, makes its offer, has its ICE candidates, sends its INVITE and
 * the leg answers.
 * (Its first RTP packet is not among them: libwebrtc's statistics are cached for 50 ms, so polling
 * them says too late when it left; the page's statistics say when it arrived. The phone's first
 * packet's arrival is read from them once the caller has heard the phone.) Times are
 * wall-clock milliseconds (performance.timeOrigin + performance.now()): the page's clock reads the
 * same system clock, so both sides' steps go on one timeline.
 *
 * Install before the platform makes its first peer connection: it wraps the RTCPeerConnection
 * global the platform's sip.js uses, and listens to the messages of the `ws` sockets.
 */
import wrtc from "@roamhq/wrtc";
import { WebSocket } from "ws";
import { SAMPLE_RATE, type Frame } from "../platform/media";
import type { SimChannel } from "../platform/sim/sim-channel";
import type { Switch } from "../platform/switch/types";

export type Step = [name: string, at: number];

const now = () => performance.timeOrigin + performance.now();

/** Whether 16-bit samples are over -40 dBFS (RMS). */
const audible = (samples: Int16Array) => {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length)) / 32768 > 0.01;
};

/**
 * Whether most of a 10 ms frame is a tone of `hz` (Goertzel: the tone's amplitude against the
 * frame's RMS level). Another tone 150 Hz or more away (ringback's 450 Hz beside 620 Hz) keeps
 * under a fifth of it in so short a frame.
 */
function mostlyTone(frame: Frame, hz: number): boolean {
  const w = (2 * Math.PI * hz) / SAMPLE_RATE;
  let re = 0;
  let im = 0;
  let energy = 0;
  for (let i = 0; i < frame.length; i++) {
    re += frame[i]! * Math.cos(w * i);
    im -= frame[i]! * Math.sin(w * i);
    energy += frame[i]! * frame[i]!;
  }
  const amplitude = (2 * Math.hypot(re, im)) / frame.length;
  const rms = Math.sqrt(energy / frame.length);
  return amplitude > 0.7 * Math.SQRT2 * rms;
}

interface InboundRtp {
  type: string;
  kind?: string;
  packetsReceived?: number;
  lastPacketReceivedTimestamp?: number;
}

/** When a connection's first audio packet arrived: the newest one's arrival, less 20 ms (a packet time) for each since. */
async function firstPacketArrival(pc: RTCPeerConnection): Promise<number | undefined> {
  let at: number | undefined;
  try {
    (await pc.getStats()).forEach((r: InboundRtp) => {
      if (r.type === "inbound-rtp" && r.kind === "audio" && r.packetsReceived && r.lastPacketReceivedTimestamp)
        at = r.lastPacketReceivedTimestamp - (r.packetsReceived - 1) * 20;
    });
  } catch {
    // Closed meanwhile: not measured.
  }
  return at;
}

export function watchPlatformCallSteps(): { steps: Step[]; watchSwitch(sw: Switch, phoneHz: number): void } {
  const steps: Step[] = [];
  const step = (name: string) => steps.push([name, now()]);

  const emit = WebSocket.prototype.emit;
  WebSocket.prototype.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]) {
    if (event === "message" && Buffer.isBuffer(args[0]) && args[0].subarray(0, 11).toString() === "SIP/2.0 200") {
      if (/^CSeq:\s*\d+\s+INVITE/im.test(args[0].toString())) step("200 OK received");
    }
    return emit.call(this, event, ...args);
  } as typeof emit;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (typeof data === "string" && data.startsWith("ACK ")) step("ACK sent");
    if (typeof data === "string" && data.startsWith("INVITE ") && !/^(To|t):[^\r\n]*;tag=/im.test(data))
      step("INVITE sent");
    return (send as (...a: unknown[]) => void).call(this, data, ...rest);
  } as typeof send;

  // The phone's audio as the platform's decoder hands it over (each leg's sink; silence until RTP comes).
  const Sink = wrtc.nonstandard.RTCAudioSink;
  (wrtc.nonstandard as { RTCAudioSink: typeof Sink }).RTCAudioSink = function (track: MediaStreamTrack) {
    const sink = new Sink(track);
    const listener = (e: Event) => {
      if (!audible((e as Event & { samples: Int16Array }).samples)) return;
      step("first audio from the phone over -40 dBFS");
      sink.removeEventListener("data", listener);
    };
    sink.addEventListener("data", listener);
    return sink;
  } as unknown as typeof Sink;

  /** The platform's newest peer connection: the phone's leg of the call being measured. */
  let newest: WeakRef<RTCPeerConnection> | undefined;
  const Native = wrtc.RTCPeerConnection;
  (globalThis as Record<string, unknown>).RTCPeerConnection = class extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
      newest = new WeakRef(this);
      step("peer connection made");
      this.addEventListener("icecandidate", (e) => {
        if (!(e as RTCPeerConnectionIceEvent).candidate) step("ICE gathered");
      });
      const offer = this.createOffer.bind(this) as () => Promise<RTCSessionDescriptionInit>;
      this.createOffer = (() => offer().then((o) => (step("offer made"), o))) as typeof this.createOffer;
      let ice = false;
      let dtls = false;
      this.addEventListener("iceconnectionstatechange", () => {
        if (ice || (this.iceConnectionState !== "connected" && this.iceConnectionState !== "completed")) return;
        ice = true;
        step("ICE connected");
      });
      this.addEventListener("connectionstatechange", () => {
        if (dtls || this.connectionState !== "connected") return;
        dtls = true;
        step("DTLS connected");
      });
      const srd = this.setRemoteDescription.bind(this);
      this.setRemoteDescription = ((d: RTCSessionDescriptionInit) => {
        if (d.type !== "answer") return srd(d);
        step("setting the answer");
        return srd(d).then(() => step("answer set"));
      }) as typeof this.setRemoteDescription;
    }
  };

  return {
    steps,
    /** `phoneHz`: the tone the phone's microphone says, told apart from anything else the caller may hear. */
    watchSwitch(sw: Switch, phoneHz: number) {
      sw.on("channel-bridge", (a, b) => {
        step("caller bridged");
        // What the simulated caller hears from the bridge on: the first frame with sound that is
        // the phone's tone, its onset included (a frame in which the tone begins is not mostly
        // the tone, the next one is; the first frame after the bridge may still fade out ringback).
        const caller = [a, b].find((ch): ch is SimChannel => ch.kind === "sim");
        let onset: number | undefined;
        const stop = caller?.party.onHeard((frame: Frame) => {
          const at = now();
          if (!audible(frame)) return void (onset = undefined);
          if (!mostlyTone(frame, phoneHz)) return void (onset = at);
          steps.push(["the caller hears the phone", onset ?? at]);
          stop?.();
          // Read after the measured path, so that the read takes nothing from it.
          const pc = newest?.deref();
          if (pc) void firstPacketArrival(pc).then((at) => at && steps.push(["the phone's first RTP received", at]));
        });
      });
      sw.on("channel-create", (ch) => ch.direction === "outbound" && step("leg made"));
      sw.on("channel-answer", (ch) => ch.direction === "outbound" && step("leg answered"));
    },
  };
}
