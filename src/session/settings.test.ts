import { describe, expect, it } from "vitest";
import {
  SETTINGS_KEY,
  createSettingsStore,
  defaultSettings,
  effectiveEventChannelUrl,
  effectiveSipWebSocketUrl,
  followOtherTabs,
} from "./settings";
import { memoryStorage } from "./storage";

describe("settings", () => {
  it("starts from the defaults and keeps only what differs from them", () => {
    const storage = memoryStorage();
    const settings = createSettingsStore(storage);
    expect(settings.getState()).toMatchObject(defaultSettings);
    settings.getState().change({ language: "zh-CN", platformUrl: "https://pbx.example.com" });
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!)).toEqual({
      language: "zh-CN",
      platformUrl: "https://pbx.example.com",
    });

    const again = createSettingsStore(storage);
    expect(again.getState()).toMatchObject({
      language: "zh-CN",
      platformUrl: "https://pbx.example.com",
      sipWebSocketUrl: "",
    });
  });

  it("drops stored values it does not understand", () => {
    const storage = memoryStorage({
      [SETTINGS_KEY]: JSON.stringify({
        platformUrl: "javascript:alert(1)",
        language: 7,
        sipWebSocketUrl: "wss://sip.example.com/sip",
        other: 1,
      }),
    });
    const settings = createSettingsStore(storage);
    expect(settings.getState()).toMatchObject({ ...defaultSettings, sipWebSocketUrl: "wss://sip.example.com/sip" });
    settings.getState().change({ eventChannelUrl: "http://not-a-socket" });
    expect(settings.getState().eventChannelUrl).toBe("");
  });

  it("survives a corrupt record", () => {
    const settings = createSettingsStore(memoryStorage({ [SETTINGS_KEY]: "{not json" }));
    expect(settings.getState()).toMatchObject(defaultSettings);
  });

  it("resets one setting or all", () => {
    const settings = createSettingsStore(memoryStorage());
    settings.getState().change({ language: "en", sipWebSocketUrl: "wss://a.example.com/sip" });
    settings.getState().reset("language");
    expect(settings.getState()).toMatchObject({ language: "", sipWebSocketUrl: "wss://a.example.com/sip" });
    settings.getState().reset();
    expect(settings.getState()).toMatchObject(defaultSettings);
  });

  it("follows changes made in another tab", () => {
    const storage = memoryStorage();
    const settings = createSettingsStore(storage);
    let listener: ((e: StorageEvent) => void) | undefined;
    followOtherTabs(settings, {
      addEventListener: ((_: string, l: (e: StorageEvent) => void) => (listener = l)) as Window["addEventListener"],
    });
    storage.setItem(SETTINGS_KEY, JSON.stringify({ language: "zh-CN" }));
    listener!({ key: SETTINGS_KEY } as StorageEvent);
    expect(settings.getState().language).toBe("zh-CN");
  });

  it("the SIP and event channel URLs default to the platform's /ws, separately", () => {
    const page = "https://app.example.com/agent/?layout=bar";
    const settings = { ...defaultSettings };
    expect(effectiveSipWebSocketUrl(settings, "", page)).toBe("wss://app.example.com/ws");
    expect(effectiveEventChannelUrl(settings, "http://10.0.0.5:8080", page)).toBe("ws://10.0.0.5:8080/ws");
    expect(
      effectiveSipWebSocketUrl(
        { ...settings, sipWebSocketUrl: "wss://pbx.example.com/sip" },
        "https://pbx.example.com",
        page,
      ),
    ).toBe("wss://pbx.example.com/sip");
    expect(effectiveEventChannelUrl(settings, "https://pbx.example.com/tenant", page)).toBe(
      "wss://pbx.example.com/tenant/ws",
    );
  });

  it("keeps the phone's settings, checking each value", () => {
    const storage = memoryStorage();
    const settings = createSettingsStore(storage);
    expect(settings.getState()).toMatchObject({
      iceServers: [],
      autoAnswer: "platform",
      dtmfMode: "rfc4733",
      referPolicy: "ask",
      desktopAlerts: true,
    });
    const turn = { urls: "turn:turn.example.com:3478", username: "u", credential: "p" };
    settings.getState().change({ iceServers: [turn], autoAnswer: "never", dtmfMode: "info", desktopAlerts: false });
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!)).toEqual({
      iceServers: [turn],
      autoAnswer: "never",
      dtmfMode: "info",
      desktopAlerts: false,
    });
    settings.getState().change({
      iceServers: [{ urls: "turn:turn.example.com" }],
      autoAnswer: "sometimes" as never,
      referPolicy: "accept" as never,
    });
    expect(settings.getState()).toMatchObject({ iceServers: [turn], autoAnswer: "never", referPolicy: "ask" });
    // An empty list is the default again, and not written.
    settings.getState().change({ iceServers: [] });
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!)).not.toHaveProperty("iceServers");
  });

  it("an unchanged ICE server list keeps its identity when another setting changes", () => {
    const settings = createSettingsStore(memoryStorage());
    settings.getState().change({ iceServers: [{ urls: "stun:s.example.com" }] });
    const before = settings.getState().iceServers;
    settings.getState().change({ language: "en" });
    expect(settings.getState().iceServers).toBe(before);
  });
});
