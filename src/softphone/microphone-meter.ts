import { rmsDbfs } from "./audio-analysis";

/**
 * A level meter on the microphone the phone would use (the chosen one, else the default), for
 * the pre-call check: opened on demand, read as often as the UI likes, stopped when the panel
 * closes. Needs Web Audio (a browser).
 */
export class MicrophoneMeter {
  private readonly buffer: Float32Array<ArrayBuffer>;

  private constructor(
    private readonly stream: MediaStream,
    private readonly ctx: AudioContext,
    private readonly tap: AnalyserNode,
  ) {
    this.buffer = new Float32Array(tap.fftSize);
  }

  static async open(phone: { microphoneStream(): Promise<MediaStream> }): Promise<MicrophoneMeter> {
    const stream = await phone.microphoneStream();
    const ctx = new AudioContext();
    await ctx.resume().catch(() => undefined);
    const tap = ctx.createAnalyser();
    tap.fftSize = 2048;
    ctx.createMediaStreamSource(stream).connect(tap);
    return new MicrophoneMeter(stream, ctx, tap);
  }

  /** The microphone's name, as the browser gives it. */
  get label(): string {
    return this.stream.getAudioTracks()[0]?.label ?? "";
  }

  /** Level of the last ~43 ms, dBFS (−90 for silence). */
  level(): number {
    this.tap.getFloatTimeDomainData(this.buffer);
    return rmsDbfs(this.buffer);
  }

  stop(): void {
    this.stream.getTracks().forEach((t) => t.stop());
    void this.ctx.close().catch(() => undefined);
  }
}
