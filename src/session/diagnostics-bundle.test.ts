import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage as phoneMemoryStorage, Phone } from "../softphone";
import { FakeSipServer } from "../softphone/testing/fake-sip-server";
import { FakeAudioElement, FakeMediaDevices, FakePage, mockMedia } from "../softphone/testing/mock-media";
import { startPeer } from "../softphone/testing/peer";
import { until, untilCall } from "../softphone/testing/phone-rig";
import { buildDiagnosticsBundle, diagnosticsFile } from "./diagnostics-bundle";
import { createPhoneSession } from "./phone-session";
import { createSessionStore } from "./session";
import { createSettingsStore } from "./settings";
import { memoryStorage } from "./storage";
import { alice, fakePlatform, json } from "./test-support/fake-platform";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("the diagnostics bundle", () => {
  it("holds the SIP trace, registrations, calls, devices, settings and versions, and none of the secrets", async () => {
    const sw = new FakeSipServer();
    const platform = fakePlatform([{ ...alice, domain: sw.domain }]);
    const extensionToken = "eyJhbGciOiJIUzI1NiJ9.eyJleHRuIjoiMTAwMSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
    platform.overrides.push(({ method, url, body }) => {
      if (method !== "POST" || url.pathname !== "/api/users/extn_token") return undefined;
      sw.passwords.set(String(body.extn), extensionToken);
      return json(200, { extn_id: "7", token: extensionToken, domain: sw.domain });
    });
    const device = memoryStorage();
    const settings = createSettingsStore(device);
    settings.getState().change({
      iceServers: [{ urls: "turn:turn.example.com:3478", username: "agent1", credential: "turn-pass-9981" }],
    });
    const session = createSessionStore({
      settings,
      tabStorage: memoryStorage(),
      deviceStorage: device,
      fetch: platform.fetch,
      pageOrigin: "https://app.test",
    });
    const phone = new Phone({
      transportConstructor: sw.Transport,
      sessionDescriptionHandlerFactory: mockMedia().factory,
      mediaDevices: new FakeMediaDevices(),
      storage: phoneMemoryStorage(),
      createAudioElement: () => new FakeAudioElement(),
      canChooseOutput: true,
      window: new FakePage(),
      document: new FakePage(),
      logConnector: () => {},
    });
    const ps = createPhoneSession({
      session,
      settings,
      phone,
      deviceStorage: device,
      pageHref: () => "https://app.test/?layout=bar",
    });
    cleanups.push(
      () => phone.stop(),
      () => ps.dispose(),
    );
    await session
      .getState()
      .signIn({ login: "agent1", password: alice.password, platformUrl: "https://pbx.example.com" });
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    const bob = await startPeer(sw, "2000");
    cleanups.push(() => bob.stop());
    const id = await phone.call("2000");
    await (await bob.nextInvitation()).accept();
    await untilCall(phone, id, (c) => c.state === "active");
    await phone.hangup(id);
    await untilCall(phone, id, (c) => c.state === "ended");

    const bundle = buildDiagnosticsBundle({
      session,
      settings,
      phoneSession: ps,
      app: { name: "Agentbar", version: "0.1.0" },
      pageHref: "https://app.test/?layout=bar",
      pageOrigin: "https://app.test",
      navigator: {
        userAgent: "Mozilla/5.0 Chrome/140.0.0.0",
        languages: ["en-US", "zh-CN"],
        onLine: true,
        userAgentData: { brands: [{ brand: "Chromium", version: "140" }], platform: "Linux" },
      },
      secureContext: true,
      now: () => Date.UTC(2026, 10, 25, 9, 30, 5),
    });
    const file = diagnosticsFile(bundle);
    expect(file.name).toBe("agentbar-diagnostics-1001-20261125-093005Z.json");
    const parsed = JSON.parse(file.text) as typeof bundle;
    expect(parsed).toMatchObject({
      format: "agentbar-diagnostics/1",
      createdAt: "2026-11-25T09:30:05.000Z",
      app: { name: "Agentbar", version: "0.1.0", page: "https://app.test/?layout=bar" },
      browser: {
        userAgent: "Mozilla/5.0 Chrome/140.0.0.0",
        brands: [{ brand: "Chromium", version: "140" }],
        platform: "Linux",
        languages: ["en-US", "zh-CN"],
        online: true,
        secureContext: true,
      },
      platform: { address: "https://pbx.example.com", sipWebSocketUrl: "wss://pbx.example.com/ws" },
      account: { login: "agent1", extension: "1001", domain: sw.domain, role: "agent" },
      settings: { iceServers: [{ urls: "turn:turn.example.com:3478", withCredential: true }] },
      phone: { registration: { status: "registered" }, transport: "connected" },
    });
    const trace = parsed.phone.sipTrace.map((m) => `${m.direction} ${m.summary.split(" ")[0]}`);
    expect(trace).toEqual(expect.arrayContaining(["sent REGISTER", "received SIP/2.0", "sent INVITE", "sent BYE"]));
    expect(parsed.phone.registrations.some((r) => r.status === "registered")).toBe(true);
    expect(parsed.phone.calls).toHaveLength(1);
    expect(parsed.phone.devices.microphones.length).toBeGreaterThan(0);

    const token = session.getState().client!.session!.token;
    const refreshToken = session.getState().client!.session!.refreshToken!;
    for (const secret of [token, refreshToken, extensionToken, alice.password, "turn-pass-9981"]) {
      expect(file.text, `the bundle holds ${secret}`).not.toContain(secret);
    }
  });
});
