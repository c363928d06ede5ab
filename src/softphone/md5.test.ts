import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Md5 as SipJsMd5 } from "sip.js/lib/core/messages/md5.js";
import { md5Hex } from "./md5";

describe("md5Hex", () => {
  it("gives RFC 1321's test values", () => {
    expect(md5Hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(md5Hex("abc")).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890")).toBe(
      "57edf4a22be3c955ac49da2e2107b67a",
    );
  });

  it("agrees with Node's and sip.js's MD5 on every length across block boundaries and on UTF-8", () => {
    const inputs = Array.from({ length: 140 }, (_, n) => "a:b".repeat(n).slice(0, n));
    inputs.push("1001:agentbar.local:eyJhbGciOiJIUzI1NiJ9.e30.x", "agent:réalm:密码", "emoji 📞 call");
    for (const s of inputs) {
      const expected = createHash("md5").update(s, "utf8").digest("hex");
      expect(md5Hex(s)).toBe(expected);
      expect(SipJsMd5.hashStr(s)).toBe(expected);
    }
  });
});
