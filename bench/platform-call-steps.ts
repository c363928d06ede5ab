/**
 * The local platform's side of a call's media setup, seen from inside its process (the bench runs
 * the platform in-process): when its WebSocket hands it the phone's 200 OK, when its peer
 * connection has the answer set, when its ICE and DTLS connect, and when the caller is bridged to
 * the phone's leg. (Its first RTP packet is not among them: libwebrtc's statistics are cached for
 * 50 ms, so polling them says too late when it left; the page's statistics say when it arrived.) Times are wall-clock milliseconds
 * (performance.timeOrigin + performance.now()): the page's clock reads the same system clock,
 * so both sides' steps go on one timeline.
 *
 * Install before the platform makes its first peer connection: it wraps the RTCPeerConnection
 * global the platform's sip.js uses, and listens to the messages of the `ws` sockets.
 */
import wrtc from "@roamhq/wrtc";
import { WebSocket } from "ws";
import type { Switch } from "../platform/switch/types";

export type Step = [name: string, at: number];

const now = () => performance.timeOrigin + performance.now();

export function watchPlatformCallSteps(): { steps: Step[]; watchSwitch(sw: Switch): void } {
  const steps: Step[] = [];
  const step = (name: string) => steps.push([name, now()]);

  const emit = WebSocket.prototype.emit;
  WebSocket.prototype.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]) {
    if (event === "message" && Buffer.isBuffer(args[0]) && args[0].subarray(0, 11).toString() === "SIP/2.0 200") {
      if (/^CSeq:\s*\d+\s+INVITE/im.test(args[0].toString())) step("200 OK received");
    }
    return emit.call(this, event, ...args);
  } as typeof emit;

  const Native = wrtc.RTCPeerConnection;
  (globalThis as Record<string, unknown>).RTCPeerConnection = class extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
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
    watchSwitch(sw: Switch) {
      sw.on("channel-bridge", () => step("caller bridged"));
    },
  };
}
