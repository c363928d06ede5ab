import { signal, type ReadonlySignal } from "@preact/signals";

/**
 * The phone's own sounds, made with WebAudio instead of shipped as files: the ringtone, the local
 * ringback (when the far end rings without sending early media), the call-waiting beep and the
 * short cue before an auto-answered call. Each output (ringer, speaker) has its own AudioContext
 * routed to the chosen device.
 */
export type ToneName = "ring" | "ringback" | "waiting" | "cue";
export type ToneOutput = "ringer" | "speaker";

interface Pattern {
  freqs: number[];
  /** Seconds of one cycle; the cycle repeats unless `once`. */
  cycle: number;
  /** [from, to] seconds within the cycle where the tone sounds. */
  on: [number, number][];
  once?: boolean;
}

const PATTERNS: Record<ToneName, Pattern> = {
  // A double ring, 400+450 Hz: distinct from the ringback, audible over office noise.
  ring: {
    freqs: [400, 450],
    cycle: 3,
    on: [
      [0, 0.4],
      [0.6, 1],
    ],
  },
  // ITU-T E.180 style ringback: 440+480 Hz, 2 s on, 4 s off.
  ringback: { freqs: [440, 480], cycle: 6, on: [[0, 2]] },
  waiting: {
    freqs: [440],
    cycle: 4,
    on: [
      [0, 0.25],
      [0.45, 0.7],
    ],
  },
  cue: {
    freqs: [880, 1320],
    cycle: 0.4,
    on: [
      [0, 0.12],
      [0.22, 0.34],
    ],
    once: true,
  },
};

interface Output {
  ctx: AudioContext;
  /** Where the context cannot choose its device itself: an element that can. */
  element?: HTMLAudioElement & { setSinkId?(id: string): Promise<void> };
  sink: string;
}

type SinkContext = AudioContext & { setSinkId?(id: string): Promise<void> };

export class TonePlayer {
  private readonly outputs = new Map<ToneOutput, Output>();
  private readonly buffers = new Map<string, AudioBuffer>();
  private readonly _blocked = signal(false);
  private readonly sinks: Record<ToneOutput, string> = { ringer: "", speaker: "" };

  /** The browser keeps sound off until the user interacts with the page. */
  get blocked(): ReadonlySignal<boolean> {
    return this._blocked;
  }

  /** Whether WebAudio exists here at all (not in tests under Node). */
  get available(): boolean {
    return typeof AudioContext === "function";
  }

  /** Finds out early whether sound is allowed, so the note shows before the first call rings. */
  probe(): void {
    if (!this.available) return;
    const policy = (navigator as { getAutoplayPolicy?: (type: string) => string }).getAutoplayPolicy?.("audiocontext");
    if (policy) this._blocked.value = policy === "disallowed";
    else this.output("ringer");
  }

  /** Called from a user gesture: lets the contexts run. */
  unlock(): void {
    if (!this.available) return;
    for (const name of ["ringer", "speaker"] as const) {
      const o = this.output(name);
      void o.ctx.resume().then(() => this.updateBlocked());
      void o.element?.play().catch(() => {});
    }
  }

  setSink(output: ToneOutput, deviceId: string): void {
    this.sinks[output] = deviceId;
    const o = this.outputs.get(output);
    if (o && o.sink !== deviceId) this.route(o, deviceId);
  }

  /** Starts a tone; the returned function stops it. */
  play(name: ToneName, output: ToneOutput): () => void {
    if (!this.available) return () => {};
    const o = this.output(output);
    const source = o.ctx.createBufferSource();
    source.buffer = this.buffer(o.ctx, name);
    source.loop = !PATTERNS[name].once;
    source.connect(o.ctx.destination);
    source.start();
    if (o.ctx.state === "suspended") void o.ctx.resume().then(() => this.updateBlocked());
    this.updateBlocked();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      try {
        source.stop();
      } catch {
        // Never started (closed context): nothing to stop.
      }
      source.disconnect();
    };
  }

  private updateBlocked(): void {
    this._blocked.value = [...this.outputs.values()].some((o) => o.ctx.state === "suspended");
  }

  private output(name: ToneOutput): Output {
    let o = this.outputs.get(name);
    if (!o) {
      const ctx: SinkContext = new AudioContext({ latencyHint: "interactive" });
      o = { ctx, sink: "" };
      ctx.addEventListener("statechange", () => this.updateBlocked());
      this.outputs.set(name, o);
      if (this.sinks[name]) this.route(o, this.sinks[name]);
      this.updateBlocked();
    }
    return o;
  }

  /** AudioContext.setSinkId where there is one, else through an audio element that has setSinkId. */
  private route(o: Output, deviceId: string): void {
    o.sink = deviceId;
    const ctx = o.ctx as SinkContext;
    if (typeof ctx.setSinkId === "function") {
      ctx
        .setSinkId(deviceId)
        .catch((e: unknown) => console.warn("agentbar: could not route tones to the chosen device", e));
      return;
    }
    if (!("setSinkId" in HTMLMediaElement.prototype)) return;
    if (!o.element) {
      const dest = ctx.createMediaStreamDestination();
      // Everything goes to the element from now on; the context's own output would double it.
      const el = new Audio() as NonNullable<Output["element"]>;
      el.srcObject = dest.stream;
      o.element = el;
      Object.defineProperty(ctx, "destination", { value: dest });
      void el.play().catch(() => {});
    }
    o.element
      .setSinkId?.(deviceId)
      .catch((e: unknown) => console.warn("agentbar: could not route tones to the chosen device", e));
  }

  /** One cycle of a pattern as PCM, computed once per context rate (a few ms of work). */
  private buffer(ctx: AudioContext, name: ToneName): AudioBuffer {
    const key = `${name}@${ctx.sampleRate}`;
    let b = this.buffers.get(key);
    if (b) return b;
    const p = PATTERNS[name];
    const rate = ctx.sampleRate;
    b = ctx.createBuffer(1, Math.round(p.cycle * rate), rate);
    const data = b.getChannelData(0);
    const ramp = 0.008 * rate;
    const amplitude = 0.22 / p.freqs.length;
    for (const [from, to] of p.on) {
      const start = Math.round(from * rate);
      const end = Math.min(Math.round(to * rate), data.length);
      for (let i = start; i < end; i++) {
        // Short fades in and out: a tone switched on and off abruptly clicks.
        const env = Math.min(1, (i - start) / ramp, (end - i) / ramp);
        let v = 0;
        for (const f of p.freqs) v += Math.sin((2 * Math.PI * f * i) / rate);
        data[i] = v * amplitude * env;
      }
    }
    this.buffers.set(key, b);
    return b;
  }
}
