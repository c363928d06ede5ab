/**
 * Child process of the media capacity benchmark: the simulated browsers of all calls, kept out
 * of the platform's process so that the platform's clock and CPU figures are its own. Talks to
 * the parent over the IPC channel: the parent offers or answers for its legs, this process
 * answers or offers for the browsers; SDP carries all candidates (no trickle).
 */
import wrtc from "@roamhq/wrtc";
import { LightBrowser, gatheringComplete } from "./light-browser";

export type BrowserRequest =
  | { op: "offer"; id: number; frequency: number }
  | { op: "answer"; id: number; frequency: number; sdp: string }
  | { op: "accept"; id: number; key: number; sdp: string }
  | { op: "check"; id: number; browsers: number[] }
  | { op: "cpu"; id: number }
  | { op: "close"; id: number };

export interface BrowserReply {
  id: number;
  /** Which browser a new connection belongs to. */
  key?: number;
  sdp?: string;
  heard?: (number | undefined)[];
  cpuMicros?: number;
  error?: string;
}

const browsers = new Map<number, { browser: LightBrowser; pc: RTCPeerConnection }>();
let next = 0;

function create(frequency: number) {
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] }) as RTCPeerConnection;
  const browser = new LightBrowser(frequency);
  browser.prepare(pc);
  const key = next++;
  browsers.set(key, { browser, pc });
  return { key, pc };
}

async function handle(request: BrowserRequest): Promise<Omit<BrowserReply, "id">> {
  switch (request.op) {
    case "offer": {
      const { key, pc } = create(request.frequency);
      await pc.setLocalDescription(await pc.createOffer());
      await gatheringComplete(pc);
      return { key, sdp: pc.localDescription!.sdp };
    }
    case "answer": {
      const { key, pc } = create(request.frequency);
      await pc.setRemoteDescription({ type: "offer", sdp: request.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await gatheringComplete(pc);
      return { key, sdp: pc.localDescription!.sdp };
    }
    case "accept":
      await browsers.get(request.key)!.pc.setRemoteDescription({ type: "answer", sdp: request.sdp });
      return {};
    case "check":
      return { heard: request.browsers.map((key) => browsers.get(key)?.browser.dominantHeard()) };
    case "cpu": {
      const usage = process.cpuUsage();
      return { cpuMicros: usage.user + usage.system };
    }
    case "close":
      for (const { browser } of browsers.values()) browser.close();
      for (const { pc } of browsers.values()) pc.close();
      setTimeout(() => process.exit(0), 200);
      return {};
  }
}

// The browsers keep their own 10 ms cadence, as real ones do, independent of the platform's.
let due = performance.now();
function speakAll() {
  const now = performance.now();
  let burst = 0;
  while (due <= now && burst++ < 3) {
    for (const { browser } of browsers.values()) browser.speak();
    due += 10;
  }
  if (due <= now) due = now + 10;
  setTimeout(speakAll, Math.max(0, due - performance.now()));
}
speakAll();

process.on("message", (request: BrowserRequest) => {
  handle(request).then(
    (reply) => process.send!({ id: request.id, ...reply }),
    (error: unknown) => process.send!({ id: request.id, error: String(error) }),
  );
});
process.on("disconnect", () => process.exit(0));
