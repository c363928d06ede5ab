import { afterAll, beforeAll, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "@playwright/test";
import { Inviter, SessionState, UserAgent, type SessionDescriptionHandler } from "sip.js";
import "../../platform/sip/node-webrtc";
import { chromiumLaunchOptions } from "../../e2e/chromium";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { until } from "./sip-phone";

/**
 * RFC 4733 DTMF as a browser sends it. A Node phone cannot send telephone events (wrtc has no
 * RTCDTMFSender), so this phone's media is a real Chromium RTCPeerConnection (a 440 Hz oscillator
 * as microphone, `RTCDTMFSender.insertDTMF` for the keys) while its SIP is sip.js in Node: the
 * session description handler hands offers and answers to the page. The simulated party at
 * 55511000 must report the digits, and the caller must hear its tone.
 */
let platform: TestPlatform;
let browser: Browser;
let page: Page;
let ua: UserAgent | undefined;

const PAGE_SETUP = () => {
  const w = window as unknown as Record<string, unknown>;
  const legs: Record<number, { pc: RTCPeerConnection; sender: RTCRtpSender; tones: string[]; heard: number[] }> = {};
  w.legs = legs;
  w.newLeg = (id: number) => {
    const pc = new RTCPeerConnection({ iceServers: [] });
    const audio = new AudioContext();
    const oscillator = audio.createOscillator();
    oscillator.frequency.value = 440;
    const microphone = audio.createMediaStreamDestination();
    oscillator.connect(microphone);
    oscillator.start();
    const track = microphone.stream.getAudioTracks()[0]!;
    const sender = pc.addTrack(track, microphone.stream);
    const leg = { pc, sender, tones: [] as string[], heard: [] as number[] };
    sender.dtmf!.ontonechange = (e) => leg.tones.push(e.tone);
    pc.ontrack = (e) => {
      // What the phone hears: the strongest frequency of the remote audio, every 100 ms.
      const element = new Audio();
      element.srcObject = new MediaStream([e.track]);
      element.muted = true;
      void element.play();
      const analyser = audio.createAnalyser();
      analyser.fftSize = 8192;
      audio.createMediaStreamSource(new MediaStream([e.track])).connect(analyser);
      const bins = new Float32Array(analyser.frequencyBinCount);
      setInterval(() => {
        analyser.getFloatFrequencyData(bins);
        let best = 0;
        for (let i = 1; i < bins.length; i++) if (bins[i]! > bins[best]!) best = i;
        leg.heard.push((best * audio.sampleRate) / analyser.fftSize);
        if (leg.heard.length > 20) leg.heard.shift();
      }, 100);
    };
    legs[id] = leg;
  };
  w.describe = async (id: number) => {
    const { pc } = legs[id]!;
    if (pc.signalingState === "have-remote-offer") await pc.setLocalDescription(await pc.createAnswer());
    else await pc.setLocalDescription(await pc.createOffer());
    await new Promise<void>((resolve) => {
      if (pc.iceGatheringState === "complete") return resolve();
      pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && resolve());
      setTimeout(resolve, 1000);
    });
    return pc.localDescription!.sdp;
  };
  w.apply = async (id: number, sdp: string) => {
    const { pc } = legs[id]!;
    await pc.setRemoteDescription({ type: pc.signalingState === "have-local-offer" ? "answer" : "offer", sdp });
  };
};

/** sip.js's session description handler, with the media in the Chromium page. */
class PageHandler implements SessionDescriptionHandler {
  constructor(
    private readonly p: Page,
    readonly id: number,
  ) {}

  async getDescription() {
    const body = await this.p.evaluate(
      (id) => (window as unknown as { describe(id: number): Promise<string> }).describe(id),
      this.id,
    );
    return { body, contentType: "application/sdp" };
  }

  hasDescription(contentType: string): boolean {
    return contentType === "application/sdp";
  }

  async setDescription(sdp: string): Promise<void> {
    await this.p.evaluate(
      ([id, s]) => (window as unknown as { apply(id: number, sdp: string): Promise<void> }).apply(id, s),
      [this.id, sdp] as [number, string],
    );
  }

  sendDtmf(): boolean {
    return false;
  }

  close(): void {
    void this.p
      .evaluate(
        (id) => (window as unknown as { legs: Record<number, { pc: RTCPeerConnection }> }).legs[id]?.pc.close(),
        this.id,
      )
      .catch(() => undefined);
  }
}

beforeAll(async () => {
  platform = await TestPlatform.start({ simRingMs: 300 });
  browser = await chromium.launch({
    ...chromiumLaunchOptions,
    // Plain IP host candidates: the platform's WebRTC stack does not resolve mDNS names.
    args: [...chromiumLaunchOptions.args, "--disable-features=WebRtcHideLocalIpsWithMdns"],
  });
  page = await browser.newPage();
  await page.evaluate(PAGE_SETUP);
});

afterAll(async () => {
  await ua?.stop().catch(() => undefined);
  await browser?.close();
  await platform?.close();
});

it("receives RFC 4733 DTMF from a browser's RTCDTMFSender", async () => {
  let legs = 0;
  ua = new UserAgent({
    uri: UserAgent.makeURI(`sip:1001@${DEMO_DOMAIN}`)!,
    authorizationUsername: "1001",
    authorizationPassword: demo.extensionPassword,
    transportOptions: { server: platform.url.replace(/^http/, "ws") + "/ws" },
    logBuiltinEnabled: false,
    gracefulShutdown: false,
    sessionDescriptionHandlerFactory: () => {
      const id = legs++;
      void page.evaluate((n) => (window as unknown as { newLeg(id: number): void }).newLeg(n), id);
      return new PageHandler(page, id);
    },
  });
  await ua.start();
  const inviter = new Inviter(ua, UserAgent.makeURI(`sip:55511000@${DEMO_DOMAIN}`)!);
  await inviter.invite();
  await until("the call is answered", () => inviter.state === SessionState.Established);
  const id = (inviter.sessionDescriptionHandler as PageHandler).id;

  // The caller hears the simulated party's 1000 Hz through Chromium.
  const heard = async () =>
    page.evaluate(
      (n) => (window as unknown as { legs: Record<number, { heard: number[] }> }).legs[n]!.heard.slice(-5),
      id,
    );
  let last: number[] = [];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    last = await heard();
    if (last.length >= 5 && last.every((f) => Math.abs(f - 1000) < 12)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(last.every((f) => Math.abs(f - 1000) < 12)).toBe(true);

  const sent = await page.evaluate((n) => {
    const leg = (window as unknown as { legs: Record<number, { sender: RTCRtpSender }> }).legs[n]!;
    if (!leg.sender.dtmf?.canInsertDTMF) return false;
    // Key presses as long as a person's (RFC 4733 carries their length). The platform's stack
    // plays the events out as tones; a moment in which a loaded machine does not run its event
    // loop costs the audio of that moment beyond 100 ms (its jitter buffer), so a press must
    // outlast such a stall: 200 ms ones were lost at a load of 8 on two cores.
    leg.sender.dtmf.insertDTMF("159#", 400, 150);
    return true;
  }, id);
  expect(sent).toBe(true);

  const sim = () => platform.platform.ctx.sim.list().find((c) => c.destinationNumber === "55511000")!;
  await until("the simulated party received all four digits", () => sim().report().digits.inband === "159#").catch(
    (e: Error) => {
      throw new Error(`${e.message}; it received "${sim().report().digits.inband}"`);
    },
  );
  const tones = await page.evaluate(
    (n) => (window as unknown as { legs: Record<number, { tones: string[] }> }).legs[n]!.tones,
    id,
  );
  expect(tones.filter((t) => t !== "").join("")).toBe("159#");
  await inviter.bye();
});
