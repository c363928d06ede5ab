import { DtmfGenerator, type DtmfGeneratorOptions } from "./dtmf-generator";
import type { Frame, FrameSource } from "./frame";
import { MediaEndpoint } from "./media-endpoint";

/**
 * A party of the simulated outside world (a customer, an IVR, an echo line) whose mouth is a
 * generator and whose ears are whatever detectors are attached to what it hears. What it says
 * can be changed at any time: a tone, DTMF digits, silence, or an echo of what it hears.
 */
export class SimulatedParty extends MediaEndpoint {
  private voice: FrameSource | null;
  private echoQueue: Frame[] | undefined;
  private echoDelayFrames = 0;

  constructor(label: string, voice: FrameSource | null = null) {
    super(label);
    this.voice = voice;
  }

  /** From the next tick on, says what this source produces (null: silence). */
  say(voice: FrameSource | null): void {
    this.voice = voice;
    this.echoQueue = undefined;
  }

  /** Says DTMF digits in band; the returned generator's `finished` tells when the last tone has played. */
  sayDigits(digits: string, options?: DtmfGeneratorOptions): DtmfGenerator {
    const generator = new DtmfGenerator(digits, options);
    this.say(generator);
    return generator;
  }

  /** Says back what it hears after a delay, as an echo-test line does. */
  echo(delayMs = 200): void {
    this.voice = null;
    this.echoQueue = [];
    this.echoDelayFrames = Math.max(1, Math.round(delayMs / 10));
  }

  protected readInput(): Frame | null {
    if (this.echoQueue) return this.echoQueue.length >= this.echoDelayFrames ? this.echoQueue.shift()! : null;
    return this.voice ? this.voice.nextFrame() : null;
  }

  protected writeOutput(frame: Frame): void {
    this.echoQueue?.push(frame);
  }

  protected release(): void {
    this.voice = null;
    this.echoQueue = undefined;
  }
}
