/** Layout of a canonical 16-bit PCM WAV file: a 44-byte RIFF header followed by the samples. */
export const WAV_HEADER_BYTES = 44;
/** Offsets of the two size fields that are only known when the recording ends. */
export const RIFF_SIZE_OFFSET = 4;
export const DATA_SIZE_OFFSET = 40;

export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = channels * 2;
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, RIFF_SIZE_OFFSET);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, DATA_SIZE_OFFSET);
  return header;
}
