import { readFile } from "node:fs/promises";

export interface WavAudio {
  sampleRate: number;
  /** One array per channel, de-interleaved. */
  channels: Int16Array[];
  /** True when the header's data size was missing or wrong (a recording that never closed). */
  truncatedHeader: boolean;
}

/** Reads 16-bit PCM WAV files, such as the recorder's, walking the chunks rather than assuming 44 bytes. */
export function parseWav(bytes: Buffer): WavAudio {
  if (bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE")
    throw new Error("not a RIFF/WAVE file");
  let offset = 12;
  let format: { channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") {
      const audioFormat = bytes.readUInt16LE(body);
      format = {
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
      if (audioFormat !== 1 || format.bits !== 16)
        throw new Error(`unsupported WAV format ${audioFormat}/${format.bits} bit`);
    } else if (id === "data") {
      if (!format) throw new Error("WAV data chunk before its fmt chunk");
      const available = bytes.length - body;
      const truncatedHeader = size === 0 || size > available;
      const length = truncatedHeader ? available : size;
      const frames = Math.floor(length / (2 * format.channels));
      const channels = Array.from({ length: format.channels }, () => new Int16Array(frames));
      for (let f = 0; f < frames; f++) {
        for (let c = 0; c < format.channels; c++)
          channels[c]![f] = bytes.readInt16LE(body + 2 * (f * format.channels + c));
      }
      return { sampleRate: format.sampleRate, channels, truncatedHeader };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV file without a data chunk");
}

export async function readWav(path: string): Promise<WavAudio> {
  return parseWav(await readFile(path));
}
