import { describe, expect, it } from "vitest";
import { OriginPolicy } from "./origins";

describe("OriginPolicy", () => {
  const policy = new OriginPolicy(() => ["https://crm.example.com"]);

  it("trusts the origin a request was addressed to and the configured ones", () => {
    expect(policy.trusts("http://localhost:8080", "localhost:8080")).toBe(true);
    expect(policy.trusts("http://127.0.0.1:8080", "127.0.0.1:8080")).toBe(true);
    expect(policy.trusts("https://pbx.example.com", "PBX.example.com")).toBe(true);
    expect(policy.trusts("https://crm.example.com", "localhost:8080")).toBe(true);
  });

  it("trusts nothing else: another host or port, null, other schemes, look-alikes", () => {
    for (const origin of [
      "http://localhost:9999",
      "https://evil.example",
      "null",
      "file://",
      "https://crm.example.com.evil.example",
      "https://crm.example.com:8443",
      "http://crm.example.com",
      "http://localhost:8080/path",
      "",
    ]) {
      expect(policy.trusts(origin, "localhost:8080"), origin).toBe(false);
    }
    expect(policy.trusts("http://localhost:8080", undefined)).toBe(false);
  });
});
