import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, publicSettings, resolveSettings } from "./settings";

const base = { server: "wss://pbx.example.com/sip", address: "1001@pbx.example.com", password: "token-123" };

describe("resolveSettings", () => {
  it("fills the defaults: no public STUN, short ICE wait, refuse REFERs, platform-only auto-answer", () => {
    const s = resolveSettings(base);
    expect(s).toMatchObject({
      user: "1001",
      domain: "pbx.example.com",
      authorizationUsername: "1001",
      iceServers: [],
      iceGatheringTimeoutMs: 1000,
    });
    expect(s.referPolicy).toBe("reject");
    expect(s.autoAnswer).toBe("platform");
    expect(s.dtmfMode).toBe("rfc4733");
    expect(s.keepAlive).toEqual(DEFAULT_SETTINGS.keepAlive);
  });

  it("accepts a sip: prefix and a separate digest user name", () => {
    const s = resolveSettings({ ...base, address: "sip:1001@pbx.example.com", authorizationUsername: "agent-1001" });
    expect(s).toMatchObject({ address: "1001@pbx.example.com", authorizationUsername: "agent-1001" });
  });

  it("refuses what cannot work, saying what", () => {
    expect(() => resolveSettings({ ...base, server: "https://pbx.example.com" })).toThrow(/wss:\/\/ or ws:\/\//);
    expect(() => resolveSettings({ ...base, server: "not a url" })).toThrow(/not a URL/);
    expect(() => resolveSettings({ ...base, address: "1001" })).toThrow(/user@domain/);
    expect(() => resolveSettings({ ...base, password: "" })).toThrow(/password/);
    expect(() => resolveSettings({ ...base, maxCalls: -1 })).toThrow(/maxCalls/);
  });

  it("never puts the password in what the store shows", () => {
    const shown = publicSettings(resolveSettings(base));
    expect(JSON.stringify(shown)).not.toContain("token-123");
    expect(shown).not.toHaveProperty("password");
  });
});
