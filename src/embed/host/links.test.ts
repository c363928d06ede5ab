import { describe, expect, it } from "vitest";
import { dialStringOf } from "./links";

describe("tel: and sip: links", () => {
  it("give what to dial, without tel: parameters", () => {
    expect(dialStringOf("tel:+1-201-555-0123")).toBe("+1-201-555-0123");
    expect(dialStringOf("tel:+1-201-555-0123;ext=12;phone-context=example.com")).toBe("+1-201-555-0123");
    expect(dialStringOf("TEL:%2B86%2010%201234")).toBe("+86 10 1234");
    expect(dialStringOf("tel://5550100")).toBe("5550100");
    expect(dialStringOf("sip:bob@example.com")).toBe("sip:bob@example.com");
    expect(dialStringOf("sips:bob@example.com")).toBe("sips:bob@example.com");
  });

  it("leave every other link alone", () => {
    for (const href of [
      "https://example.com/tel:123",
      "mailto:a@b",
      "javascript:alert(1)",
      "/customers/5",
      "#",
      "tel:%E0%A4%A",
    ]) {
      expect(dialStringOf(href), href).toBeUndefined();
    }
  });
});
