import wrtc from "@roamhq/wrtc";

/**
 * Two wrtc peer connections in one process, negotiated with each other over loopback: what tests
 * and benchmarks use in place of a browser and the SIP side. Real ICE, DTLS, SRTP and Opus run
 * in between, so audio crossing a pair has been encoded and decoded once.
 */
export interface PeerConnectionPair {
  offerer: RTCPeerConnection;
  answerer: RTCPeerConnection;
  close(): void;
}

/** Creates the pair; `prepare` adds tracks (e.g. legs' `attach`) before the offer is made. */
export async function connectPeerConnectionPair(
  prepare: (offerer: RTCPeerConnection, answerer: RTCPeerConnection) => void,
): Promise<PeerConnectionPair> {
  const offerer = new wrtc.RTCPeerConnection({ iceServers: [] }) as RTCPeerConnection;
  const answerer = new wrtc.RTCPeerConnection({ iceServers: [] }) as RTCPeerConnection;
  offerer.addEventListener(
    "icecandidate",
    (e) => void (e.candidate && answerer.addIceCandidate(e.candidate).catch(() => undefined)),
  );
  answerer.addEventListener(
    "icecandidate",
    (e) => void (e.candidate && offerer.addIceCandidate(e.candidate).catch(() => undefined)),
  );
  const pair: PeerConnectionPair = {
    offerer,
    answerer,
    close() {
      offerer.close();
      answerer.close();
    },
  };
  try {
    prepare(offerer, answerer);
    const connected = Promise.all([waitConnected(offerer), waitConnected(answerer)]);
    const offer = await offerer.createOffer();
    await offerer.setLocalDescription(offer);
    await answerer.setRemoteDescription(offer);
    const answer = await answerer.createAnswer();
    await answerer.setLocalDescription(answer);
    await offerer.setRemoteDescription(answer);
    await connected;
    return pair;
  } catch (error) {
    pair.close();
    throw error;
  }
}

function waitConnected(pc: RTCPeerConnection, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`peer connection still ${pc.connectionState} after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = (error?: Error) => {
      clearTimeout(timer);
      pc.removeEventListener("connectionstatechange", check);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      if (pc.connectionState === "connected") finish();
      else if (pc.connectionState === "failed" || pc.connectionState === "closed")
        finish(new Error(`peer connection ${pc.connectionState}`));
    };
    pc.addEventListener("connectionstatechange", check);
    check();
  });
}
