import { createWriteStream, type WriteStream } from "node:fs";
import { open, stat, truncate, writeFile } from "node:fs/promises";
import { FRAME_SAMPLES, SAMPLE_RATE, type Frame } from "./frame";
import type { MediaEndpoint } from "./media-endpoint";
import { DATA_SIZE_OFFSET, RIFF_SIZE_OFFSET, WAV_HEADER_BYTES, wavHeader } from "./wav-format";

export interface Recording {
  path: string;
  /** Whole 10 ms frames written. */
  frames: number;
  durationMs: number;
  bytes: number;
}

export interface CallRecorderOptions {
  /** Frames gathered in memory before they are handed to the file (50 = half a second). */
  flushFrames?: number;
}

const CHANNELS = 2;
/** One sample of each channel. */
const SAMPLE_FRAME_BYTES = CHANNELS * 2;
const FRAME_BYTES = FRAME_SAMPLES * SAMPLE_FRAME_BYTES;

/**
 * Records a call as heard by one endpoint into a stereo WAV file, 48 kHz 16-bit: the left
 * channel is what the endpoint says, the right channel what it hears (the other party, or the
 * mix of all others in a conference). Keeping the sides apart lets a listener or a test tell who
 * said what, which a mono mix cannot. Audio is streamed to disk as the call goes; the header's
 * sizes are written when the recording stops. A file cut short by a crash has a zero data size in
 * its header until `completeCutRecording` gives it its true length (the platform does so when it
 * starts again).
 */
export class CallRecorder {
  private readonly stream: WriteStream;
  private readonly flushFrames: number;
  private pending: Buffer[] = [];
  private frames = 0;
  private failure: Error | undefined;
  private readonly untap: () => void;
  private readonly unwatchClose: () => void;
  private finished: Promise<Recording> | undefined;

  constructor(
    readonly path: string,
    readonly endpoint: MediaEndpoint,
    options: CallRecorderOptions = {},
  ) {
    this.flushFrames = options.flushFrames ?? 50;
    this.stream = createWriteStream(path);
    this.stream.on("error", (error) => (this.failure ??= error));
    this.stream.write(wavHeader(SAMPLE_RATE, CHANNELS, 0));
    this.untap = endpoint.tap((said, heard) => this.append(said, heard));
    this.unwatchClose = endpoint.onClose(() => void this.stop().catch(() => undefined));
  }

  get stopped(): boolean {
    return this.finished !== undefined;
  }

  get framesRecorded(): number {
    return this.frames;
  }

  /** Ends the recording and completes the file; calling it again returns the same result. */
  stop(): Promise<Recording> {
    this.finished ??= this.finish();
    return this.finished;
  }

  private append(said: Frame | null, heard: Frame): void {
    const chunk = Buffer.allocUnsafe(FRAME_BYTES);
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      chunk.writeInt16LE(said ? said[i]! : 0, 4 * i);
      chunk.writeInt16LE(heard[i]!, 4 * i + 2);
    }
    this.pending.push(chunk);
    this.frames++;
    if (this.pending.length >= this.flushFrames) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.stream.write(Buffer.concat(this.pending));
    this.pending = [];
  }

  private async finish(): Promise<Recording> {
    this.untap();
    this.unwatchClose();
    this.flush();
    await new Promise<void>((resolve, reject) => {
      this.stream.end(() => (this.failure ? reject(this.failure) : resolve()));
      this.stream.once("error", reject);
    });
    const dataBytes = this.frames * FRAME_BYTES;
    await writeSizes(this.path, dataBytes);
    return { path: this.path, frames: this.frames, durationMs: this.frames * 10, bytes: WAV_HEADER_BYTES + dataBytes };
  }
}

/**
 * Completes a recording whose recorder never stopped (the platform was killed): the audio that
 * reached the disk is kept to its last whole sample frame and the header is given its size. A
 * file too short to hold a header (or missing) becomes an empty recording. Resolves with what the
 * file now holds.
 */
export async function completeCutRecording(path: string): Promise<{ durationMs: number; bytes: number }> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size < WAV_HEADER_BYTES) {
    await writeFile(path, wavHeader(SAMPLE_RATE, CHANNELS, 0));
    return { durationMs: 0, bytes: WAV_HEADER_BYTES };
  }
  const dataBytes = Math.floor((size - WAV_HEADER_BYTES) / SAMPLE_FRAME_BYTES) * SAMPLE_FRAME_BYTES;
  await truncate(path, WAV_HEADER_BYTES + dataBytes);
  await writeSizes(path, dataBytes);
  return {
    durationMs: Math.round((dataBytes / SAMPLE_FRAME_BYTES / SAMPLE_RATE) * 1000),
    bytes: WAV_HEADER_BYTES + dataBytes,
  };
}

/** Writes the two sizes of the header of a file of `dataBytes` of samples. */
async function writeSizes(path: string, dataBytes: number): Promise<void> {
  const file = await open(path, "r+");
  try {
    const sizes = Buffer.alloc(4);
    sizes.writeUInt32LE(36 + dataBytes);
    await file.write(sizes, 0, 4, RIFF_SIZE_OFFSET);
    sizes.writeUInt32LE(dataBytes);
    await file.write(sizes, 0, 4, DATA_SIZE_OFFSET);
  } finally {
    await file.close();
  }
}
