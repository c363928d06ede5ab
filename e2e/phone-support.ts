import type { Locator, Page } from "@playwright/test";
import { PASSWORD, expect, signIn, type Party, type PartyOptions } from "./fixtures";
import { toneWav } from "./tone-wav";

/**
 * What the phone tests need around the app: tone files for the fake microphones, a probe that
 * listens to what a page receives (WebAudio FFT of the remote audio, as a person would hear it),
 * and the platform's simulated outside world (/sim) and call records (REST).
 */

export interface Heard {
  /** Strongest frequency between 100 Hz and 4 kHz, Hz; 0 when nothing is received. */
  frequency: number;
  /** Its level, dBFS. */
  db: number;
}

/**
 * Runs in the page before the app: keeps every RTCPeerConnection the page makes, and analyses the
 * audio they receive. The analysis reads the received tracks (what the calls play to the
 * speaker), not the app's state: a label cannot pass it.
 */
function installAudioProbe() {
  const Native = window.RTCPeerConnection;
  const pcs: RTCPeerConnection[] = [];
  let created = 0;
  let closed = 0;
  let collected = 0;
  const registry = new FinalizationRegistry(() => collected++);
  class Probed extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
      created++;
      pcs.push(this);
      registry.register(this, null);
      let counted = false;
      const countClose = () => {
        if (counted || (this.connectionState !== "closed" && this.signalingState !== "closed")) return;
        counted = true;
        closed++;
        pcs.splice(pcs.indexOf(this), 1);
      };
      this.addEventListener("signalingstatechange", countClose);
      this.addEventListener("connectionstatechange", countClose);
      const close = this.close.bind(this);
      this.close = () => {
        close();
        countClose();
      };
    }
  }
  window.RTCPeerConnection = Probed;
  // Every microphone track the page opens, to tell which are still live (capturing).
  const microphones: MediaStreamTrack[] = [];
  const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (constraints) =>
    getUserMedia(constraints).then((stream) => {
      microphones.push(...stream.getAudioTracks());
      return stream;
    });
  const analysers = new Map<string, { ctx: AudioContext; analyser: AnalyserNode }>();
  /** The tracks received over every open connection that are playing (a held call's track is disabled). */
  const playing = () =>
    pcs
      .filter((pc) => pc.connectionState !== "closed")
      .flatMap((pc) => pc.getReceivers().map((r) => r.track))
      .filter((track) => track.kind === "audio" && track.readyState === "live" && track.enabled);
  const w = window as unknown as { __agentbarTest: unknown };
  w.__agentbarTest = {
    /**
     * The strongest tone received over every open connection whose track is playing: what the
     * agent hears. With `around`, the strongest within 15 Hz of that frequency: one voice in a mix.
     */
    peak(around?: number): { frequency: number; db: number } {
      let out = { frequency: 0, db: -Infinity };
      for (const track of playing()) {
        let a = analysers.get(track.id);
        if (!a) {
          const ctx = new AudioContext({ sampleRate: 48000 });
          const analyser = ctx.createAnalyser();
          analyser.fftSize = 8192;
          analyser.smoothingTimeConstant = 0;
          ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
          a = { ctx, analyser };
          analysers.set(track.id, a);
        }
        const bins = new Float32Array(a.analyser.frequencyBinCount);
        a.analyser.getFloatFrequencyData(bins);
        const hz = a.ctx.sampleRate / a.analyser.fftSize;
        const [low, high] = around ? [around - 15, around + 15] : [100, 4000];
        for (let i = Math.floor(low / hz); i < Math.ceil(high / hz); i++) {
          if (bins[i]! > out.db) out = { frequency: Math.round(i * hz), db: Math.round(bins[i]!) };
        }
      }
      return out;
    },
    playing,
    peerConnections: () => pcs.slice(),
    connections: () => ({ created, closed, open: pcs.length, collected }),
    liveMicrophones: () => microphones.filter((t) => t.readyState === "live").length,
  };
}

export async function addAudioProbe(page: Page): Promise<void> {
  await page.addInitScript(installAudioProbe);
}

export function heard(page: Page, around?: number): Promise<Heard> {
  return page.evaluate(
    (f) => (window as unknown as { __agentbarTest: { peak(around?: number): Heard } }).__agentbarTest.peak(f),
    around,
  );
}

const near = (h: Heard, frequency: number) => Math.abs(h.frequency - frequency) <= 15 && h.db > -70;

/** Waits until the page's newest call receives a tone of `frequency` as its strongest sound. */
export async function expectHears(page: Page, frequency: number, what: string): Promise<void> {
  // The poll yields the expected frequency once it is heard, else what is heard: a failure shows it.
  await expect
    .poll(
      async () => {
        const h = await heard(page);
        return near(h, frequency) ? frequency : `${h.frequency} Hz at ${h.db} dB`;
      },
      { message: `${what}: expected to hear ${frequency} Hz`, timeout: 15_000, intervals: [200] },
    )
    .toBe(frequency);
}

/**
 * Waits until the page receives a tone of `frequency` among others: no more than 12 dB below the
 * strongest sound, as one voice of a conference is.
 */
export async function expectHearsAmong(page: Page, frequency: number, what: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const [strongest, tone] = await Promise.all([heard(page), heard(page, frequency)]);
        return near(tone, frequency) && tone.db >= strongest.db - 12
          ? frequency
          : `${tone.frequency} Hz at ${tone.db} dB, strongest ${strongest.frequency} Hz at ${strongest.db} dB`;
      },
      { message: `${what}: expected to hear ${frequency} Hz among others`, timeout: 15_000, intervals: [200] },
    )
    .toBe(frequency);
}

/** One SIP message on the page's SIP WebSocket. */
export interface SipFrame {
  /** Sent by the page (else received). */
  sent: boolean;
  text: string;
}

/**
 * The SIP messages of a page, one list per WebSocket it opened (a reconnection opens a new one),
 * as Playwright sees them on the wire: what the phone really sent and what the platform answered.
 */
function recordSip(page: Page): SipFrame[][] {
  const sockets: SipFrame[][] = [];
  const isSip = (text: string) => /^(?:[A-Z]+ \S+ SIP\/2\.0|SIP\/2\.0 \d{3})/.test(text);
  page.on("websocket", (ws) => {
    const frames: SipFrame[] = [];
    const note = (sent: boolean, payload: string | Buffer) => {
      const text = String(payload);
      if (!isSip(text)) return;
      // Listed once it carries SIP: the page's other WebSocket (call-center events) is left out.
      if (frames.push({ sent, text }) === 1) sockets.push(frames);
    };
    ws.on("framesent", (f) => note(true, f.payload));
    ws.on("framereceived", (f) => note(false, f.payload));
  });
  return sockets;
}

/** A header of a SIP message (first value), "" when absent. */
export function sipHeader(text: string, name: string): string {
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  return new RegExp(`^${name}:[ \t]*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
}

export interface Agent extends Party {
  extension: string;
  tone: number;
  /** The page's SIP messages, per WebSocket, from sign-in on. */
  sip: SipFrame[][];
  /** The call cards of this agent's page. */
  calls: Locator;
  card(state?: string): Locator;
  dial(number: string): Promise<void>;
  hears(frequency: number, what?: string): Promise<void>;
}

/** Signs a demo agent in, in its own browser whose microphone plays `tone`, and waits for the phone to register. */
export async function agent(
  newParty: (options?: PartyOptions) => Promise<Party>,
  login: string,
  extension: string,
  tone: number,
  options: {
    layout?: "bar" | "side" | "full";
    locale?: string;
    viewport?: { width: number; height: number };
    outboundCalls?: "phone" | "call-center";
    /** Signs in on the opened page instead of with the right password at once. */
    signIn?: (page: Page) => Promise<void>;
  } = {},
): Promise<Agent> {
  const party = await newParty({
    fakeAudioWav: toneWav(tone),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
  await addAudioProbe(party.page);
  const sip = recordSip(party.page);
  // The phone's own tests dial from the phone (SIP INVITE); the toolbar's through the call center.
  const outboundCalls = options.outboundCalls ?? "phone";
  await party.page.addInitScript((value) => {
    if (!localStorage.getItem("agentbar.settings"))
      localStorage.setItem("agentbar.settings", JSON.stringify({ outboundCalls: value }));
  }, outboundCalls);
  await party.open(options.layout ? { layout: options.layout } : {});
  if (options.signIn) await options.signIn(party.page);
  else if (options.locale?.startsWith("zh")) {
    await party.page.getByLabel("登录名").fill(login);
    await party.page.getByLabel("密码", { exact: true }).fill(PASSWORD);
    await party.page.getByRole("button", { name: "登录" }).click();
  } else await signIn(party.page, login, PASSWORD);
  await expect(party.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  const calls = party.page.getByTestId("call");
  return {
    ...party,
    extension,
    tone,
    sip,
    calls,
    card: (state) => (state ? party.page.locator(`[data-testid=call][data-state=${state}]`) : calls.first()),
    dial: async (number) => {
      const field = party.page.getByLabel(options.locale?.startsWith("zh") ? "要拨打的号码" : "Number to call");
      await field.fill(number);
      await field.press("Enter");
    },
    hears: (frequency, what = `${login}'s page`) => expectHears(party.page, frequency, what),
  };
}

/** What a simulated party reports through /sim. */
export interface SimReport {
  uuid: string;
  state: string;
  hearing: number[];
  hearingMusic: boolean;
  heard: { frequency: number; levelDb: number; from: string; to: string }[];
  digits: { info: string; inband: string };
  hangupCause: string | null;
}

export function sim(baseUrl: string) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const r = await fetch(baseUrl + path, { ...init, headers: { "content-type": "application/json" } });
    if (!r.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };
  return {
    /** Live simulated channels for a number (dialled or calling). */
    channels: async (number: string) =>
      (await json<{ data: SimReport[] }>(`/sim/channels?number=${encodeURIComponent(number)}`)).data,
    channel: (uuid: string) => json<SimReport>(`/sim/channels/${uuid}`),
    /** A simulated caller saying `frequency` Hz calls `destination`. */
    call: (destination: string, frequency: number, callerIdNumber = "5550123", callerIdName = "Casey Customer") =>
      json<SimReport>("/sim/calls", {
        method: "POST",
        body: JSON.stringify({ destination, frequency, callerIdNumber, callerIdName }),
      }),
    hangup: (uuid: string) => json<SimReport>(`/sim/channels/${uuid}/hangup`, { method: "POST", body: "{}" }),
  };
}

/** The one live simulated channel of a number, once it exists. */
export async function simChannelOf(s: ReturnType<typeof sim>, number: string): Promise<SimReport> {
  let found: SimReport | undefined;
  await expect
    .poll(async () => (found = (await s.channels(number))[0]) !== undefined, {
      message: `a simulated channel for ${number}`,
    })
    .toBe(true);
  return found!;
}

/** Waits until the simulated party hears `frequency` (strongest or among the strongest tones). */
export async function expectSimHears(
  s: ReturnType<typeof sim>,
  uuid: string,
  frequency: number,
  what: string,
): Promise<void> {
  await expect
    .poll(
      async () => {
        const hearing = (await s.channel(uuid)).hearing;
        return hearing.some((f) => Math.abs(f - frequency) <= 15) ? frequency : hearing;
      },
      { message: `${what}: expected to hear ${frequency} Hz`, timeout: 15_000, intervals: [200] },
    )
    .toBe(frequency);
}

/** Call records through the REST API, as an administrator sees them. */
export async function cdrs(
  baseUrl: string,
  query: Record<string, string>,
): Promise<{ uuid: string; hangup_cause: string; caller_id_number: string; destination_number: string }[]> {
  const session = await fetch(`${baseUrl}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login: "admin", password: PASSWORD }),
  }).then((r) => r.json() as Promise<{ token: string }>);
  const r = await fetch(`${baseUrl}/api/cdrs?${new URLSearchParams(query)}`, {
    headers: { "X-XTRA-AUTH-ID": session.token },
  });
  if (!r.ok) throw new Error(`GET /api/cdrs: ${r.status}`);
  return ((await r.json()) as { data: never[] }).data;
}

/** "1:05" → 65: a duration as the card and the history show it. */
export function seconds(shown: string | null): number {
  const [m, s] = (shown ?? "").trim().split(":").map(Number);
  return (m ?? 0) * 60 + (s ?? 0);
}
