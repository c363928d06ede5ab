import wrtc from "@roamhq/wrtc";
import { WebSocket } from "ws";

/**
 * sip.js's Web session description handler expects a browser: RTCPeerConnection, MediaStream and
 * MediaStreamTrackEvent as globals (and a WebSocket for a client's transport). In Node they come
 * from @roamhq/wrtc (real libwebrtc) and ws. They are only read when a call is set up, so
 * installing them at start-up, before the first UserAgent, is enough.
 *
 * A process that loaded wrtc must end with process.exit(): left to exit on its own it crashes in
 * wrtc's native teardown (exit code 139).
 */
export function installWebRtcGlobals(): void {
  const g = globalThis as Record<string, unknown>;
  g.RTCPeerConnection ??= wrtc.RTCPeerConnection;
  g.RTCSessionDescription ??= wrtc.RTCSessionDescription;
  g.RTCIceCandidate ??= wrtc.RTCIceCandidate;
  g.MediaStream ??= wrtc.MediaStream;
  g.MediaStreamTrack ??= wrtc.MediaStreamTrack;
  g.MediaStreamTrackEvent ??= class MediaStreamTrackEvent extends Event {
    readonly track: MediaStreamTrack;
    constructor(type: string, init: { track: MediaStreamTrack }) {
      super(type);
      this.track = init.track;
    }
  };
  g.WebSocket ??= WebSocket;
}

installWebRtcGlobals();
