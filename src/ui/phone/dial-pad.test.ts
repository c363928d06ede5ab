import { describe, expect, it } from "vitest";
import { normalisePaste } from "./dial-pad";

describe("pasting into the number field", () => {
  it("keeps what can be dialled, cleaned up", () => {
    expect(normalisePaste("tel:+1-201-555-0123;phone-context=x")).toBe("+12015550123");
    expect(normalisePaste(" (030) 123 456 ")).toBe("030123456");
    expect(normalisePaste("sip:alice@example.com")).toBe("alice@example.com");
    expect(normalisePaste("call me")).toBe("call me");
  });
});
