/**
 * MD5 of a string's UTF-8 bytes, as lowercase hex (RFC 1321): what SIP digest authentication
 * hashes (RFC 2617/7616). sip.js carries a general-purpose MD5 class (incremental hashing, state
 * export) four times this size; the build gives sip.js this one instead (build/sip-patches.ts), and the
 * phone's own digest answers use it too.
 */
export function md5Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const blocks = ((bytes.length + 8) >>> 6) + 1;
  const words = new Uint32Array(blocks * 16);
  for (let i = 0; i < bytes.length; i++) words[i >> 2]! |= bytes[i]! << ((i % 4) * 8);
  words[bytes.length >> 2]! |= 0x80 << ((bytes.length % 4) * 8);
  words[blocks * 16 - 2] = bytes.length * 8;
  words[blocks * 16 - 1] = Math.floor(bytes.length / 0x20000000);
  const state = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  for (let block = 0; block < words.length; block += 16) {
    let [a, b, c, d] = state as [number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const round = i >> 4;
      const f =
        round === 0 ? (b & c) | (~b & d) : round === 1 ? (d & b) | (~d & c) : round === 2 ? b ^ c ^ d : c ^ (b | ~d);
      const g = round === 0 ? i : round === 1 ? (5 * i + 1) % 16 : round === 2 ? (3 * i + 5) % 16 : (7 * i) % 16;
      const x = (a + f + K[i]! + words[block + g]!) | 0;
      const s = SHIFTS[round * 4 + (i % 4)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    state[0] = (state[0]! + a) | 0;
    state[1] = (state[1]! + b) | 0;
    state[2] = (state[2]! + c) | 0;
    state[3] = (state[3]! + d) | 0;
  }
  let hex = "";
  for (const w of state) for (let j = 0; j < 4; j++) hex += ((w >>> (8 * j)) & 0xff).toString(16).padStart(2, "0");
  return hex;
}

const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
/** floor(|sin(i + 1)| · 2³²), RFC 1321 §3.4 (exact in IEEE doubles). */
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32));

/** The shape sip.js's digest authentication calls (`Md5.hashStr`). */
export const Md5 = { hashStr: md5Hex };
