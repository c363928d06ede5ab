import {
  DtmfGenerator,
  SAMPLE_RATE,
  recognizesHoldMusic,
  sineTone,
  type FrameSource,
  type MediaPlane,
  type SimulatedParty,
  type ToneAnalysis,
  type ToneDetector,
} from "../media";
import { ChannelBase, type ChannelHost, type ChannelInit } from "../switch/channel";
import type { HangupCause } from "../switch/types";
import type { SimBehaviour } from "./numbers";

/** A stretch of time during which a simulated party heard a tone. */
export interface HeardTone {
  frequency: number;
  levelDb: number;
  from: string;
  to: string;
}

export interface ReceivedDigit {
  digit: string;
  /** 'info': SIP INFO relayed by the switch; 'inband': heard as tones (also RFC 4733, which the
   * platform's WebRTC stack plays out as tones). */
  method: "info" | "inband";
  at: string;
}

/** Open tone segments end when the tone has not been heard for this long (or at a new bridge). */
const SEGMENT_GAP_MS = 250;

/**
 * A party of the simulated outside world as a channel of the switch: a customer calling in
 * (inbound, placed through /sim) or a number the platform dialled (outbound, behaving as its
 * number says). Its mouth is a tone (or an echo), its ears are a tone detector and a DTMF
 * detector on what it hears; what they found is its report, readable through /sim.
 */
export class SimChannel extends ChannelBase {
  /** How many tone segments a report keeps: the latest ones, so that a long call on and off hold
   * still shows what the party hears now. */
  static maxSegments = 300;
  readonly kind = "sim" as const;
  readonly party: SimulatedParty;
  readonly heard: HeardTone[] = [];
  readonly received: ReceivedDigit[] = [];
  /** The frequency the party says (0: silence; undefined: echo). */
  frequency: number | undefined;
  /** Its ears while it is up; dropped when it ends (the report keeps what they found). */
  private tones: ToneDetector | undefined;
  private musicAtEnd = false;
  private analysesSeen = 0;
  /** Whether it has heard the platform's hold music at any time (waiting, held, consulted). */
  musicHeard = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly open = new Map<HeardTone, number>();
  private readonly counts = new WeakMap<HeardTone, number>();
  private latest: ToneAnalysis | undefined;
  private echoing = false;

  constructor(
    host: ChannelHost,
    init: ChannelInit,
    media: MediaPlane,
    private readonly behaviour:
      SimBehaviour | { kind: "caller"; frequency: number } | { kind: "fail"; cause: HangupCause },
    private readonly ringMs: number,
  ) {
    super(host, init);
    this.party = media.createParty(
      `sim ${init.direction === "inbound" ? init.callerIdNumber : init.destinationNumber}`,
    );
    this.tones = media.detectTones(this.party, "heard");
    this.tones.onAnalysis((analysis) => this.noteTones(analysis));
    const dtmf = media.detectDtmf(this.party, "heard");
    dtmf.onDigit((digit) => this.noteDigit(digit, "inband"));
    this.context = init.direction === "inbound" ? "public" : (init.context ?? "default");
    if (behaviour.kind === "caller") this.say(behaviour.frequency);
    this.setEndpoint(this.party);
    // Bridged to another party, what it hears from now on is new even after a gap of under 250 ms.
    this.on("bridge", () => this.closeSegments());
    // The far end acts after the switch has taken the channel in and its listeners are attached.
    this.later(0, () => this.start());
  }

  /** The latest tones the party hears, strongest first (Hz, rounded). */
  get hearing(): number[] {
    return (this.latest?.tones ?? []).map((t) => Math.round(t.frequency));
  }

  /** Whether the last two and a half seconds sounded like the platform's hold music. */
  get hearsMusic(): boolean {
    return this.tones ? recognizesHoldMusic(this.tones.recent(2500)) : this.musicAtEnd;
  }

  async answer(): Promise<void> {
    // The platform picking up a simulated caller (a queue answering, say).
    if (this.direction === "inbound") this.markAnswered();
  }

  hangup(cause: HangupCause = "NORMAL_CLEARING"): void {
    if (!this.isUp) return;
    const disposition =
      this.state === "answered" ? "send_bye" : this.direction === "outbound" ? "send_cancel" : "send_refuse";
    this.finish(cause, disposition);
  }

  /** The simulated party itself hangs up. */
  farEndHangup(cause: HangupCause = "NORMAL_CLEARING"): void {
    if (!this.isUp) return;
    this.finish(cause, this.state === "answered" ? "recv_bye" : "recv_cancel");
  }

  async signalHold(): Promise<void> {
    // A simulated party has no signalling to see; the switch's music is what it hears.
  }

  deliverDtmf(digit: string, method: "info" | "inband"): void {
    if (method === "info") this.noteDigit(digit, "info");
  }

  /** Says a tone from now on (0: silence). */
  say(frequency: number): void {
    this.frequency = frequency;
    this.echoing = false;
    this.party.say(frequency > 0 ? sineTone(frequency) : null);
  }

  /** Says DTMF digits: in band as tones, or as SIP INFO relayed by the switch to its partner. */
  sayDigits(digits: string, method: "inband" | "info"): void {
    if (method === "info") {
      for (const digit of digits.toUpperCase()) this.host.dtmfFrom(this, digit, "info");
      return;
    }
    const after = this.frequency;
    const generator = new DtmfGenerator(digits);
    const tone = after && after > 0 ? sineTone(after) : null;
    // Digits first, then back to the tone it was saying.
    const sequence: FrameSource = {
      label: `dtmf ${digits}`,
      nextFrame: () => (generator.finished ? (tone?.nextFrame() ?? null) : generator.nextFrame()),
    };
    this.party.say(sequence);
  }

  report() {
    return {
      uuid: this.uuid,
      direction: this.direction,
      number: this.direction === "inbound" ? this.callerIdNumber : this.destinationNumber,
      callerIdName: this.callerIdName,
      callerIdNumber: this.callerIdNumber,
      destinationNumber: this.destinationNumber,
      state: this.state,
      behaviour: this.behaviour.kind,
      frequency: this.echoing ? null : (this.frequency ?? null),
      echo: this.echoing,
      hearing: this.hearing,
      hearingMusic: this.hearsMusic,
      heardMusic: this.musicHeard,
      heard: this.heard.map((t) => ({
        ...t,
        frequency: Math.round(t.frequency * 10) / 10,
        levelDb: Math.round(t.levelDb * 10) / 10,
      })),
      dtmf: this.received,
      digits: {
        info: this.received
          .filter((d) => d.method === "info")
          .map((d) => d.digit)
          .join(""),
        inband: this.received
          .filter((d) => d.method === "inband")
          .map((d) => d.digit)
          .join(""),
      },
      createdAt: this.createdAt.toISOString(),
      answeredAt: this.answeredAt?.toISOString() ?? null,
      endedAt: this.endedAt?.toISOString() ?? null,
      hangupCause: this.hangupCause ?? null,
    };
  }

  private start(): void {
    if (!this.isUp) return;
    const b = this.behaviour;
    switch (b.kind) {
      case "caller":
        return;
      case "fail":
        this.finish(b.cause, "send_refuse");
        return;
      case "busy":
        this.later(100, () => this.finish("USER_BUSY", "recv_refuse", "sip:486"));
        return;
      case "no-answer":
        this.markProgress(false);
        return;
      case "reject":
        this.markProgress(false);
        this.later(this.ringMs, () => this.finish("CALL_REJECTED", "recv_refuse", "sip:603"));
        return;
      case "answer":
      case "echo":
        this.markProgress(false);
        this.later(this.ringMs, () => {
          if (!this.isUp) return;
          if (b.kind === "echo") {
            this.echoing = true;
            this.party.echo(200);
          } else this.say(b.frequency);
          this.markAnswered();
        });
    }
  }

  private finish(cause: HangupCause, disposition: string, detail = ""): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.closeSegments();
    this.musicAtEnd = this.hearsMusic;
    this.tones = undefined;
    this.latest = undefined;
    this.markHungup(cause, disposition, detail);
    this.party.close();
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      if (this.isUp) action();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private noteDigit(digit: string, method: "info" | "inband"): void {
    this.received.push({ digit, method, at: new Date().toISOString() });
    if (method === "inband") this.digits += digit;
  }

  private noteTones(analysis: ToneAnalysis): void {
    this.latest = analysis;
    // Hold music is recognised over seconds of analyses; looking twice a second is enough.
    if (!this.musicHeard && ++this.analysesSeen % 10 === 0 && this.hearsMusic) this.musicHeard = true;
    // Times are media time (samples heard since the party was made), which is wall time in a
    // running platform and stays exact when a test turns the clock by hand.
    const now = this.createdAt.getTime() + analysis.endSample / (SAMPLE_RATE / 1000);
    const at = new Date(now).toISOString();
    for (const tone of analysis.tones) {
      const tolerance = Math.max(3, tone.frequency * 0.01);
      let segment: HeardTone | undefined;
      for (const open of this.open.keys()) if (Math.abs(open.frequency - tone.frequency) <= tolerance) segment = open;
      if (segment) {
        // The segment's frequency is the mean of its analyses (the first can be a cross-fade).
        const n = this.counts.get(segment) ?? 1;
        segment.frequency = (segment.frequency * n + tone.frequency) / (n + 1);
        this.counts.set(segment, n + 1);
        segment.to = at;
        segment.levelDb = Math.max(segment.levelDb, tone.levelDb);
        this.open.set(segment, now);
      } else {
        segment = { frequency: tone.frequency, levelDb: tone.levelDb, from: at, to: at };
        this.heard.push(segment);
        this.open.set(segment, now);
        if (this.heard.length > SimChannel.maxSegments) {
          const oldest = this.heard.shift()!;
          this.open.delete(oldest);
        }
      }
    }
    for (const [segment, last] of this.open) if (now - last > SEGMENT_GAP_MS) this.open.delete(segment);
  }

  private closeSegments(): void {
    this.open.clear();
  }
}
