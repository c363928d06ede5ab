import { afterEach, describe, expect, it, vi } from "vitest";
import { Phone } from "../softphone";
import { FakeSipServer, isRequest, type WireRecord } from "../softphone/testing/fake-sip-server";
import { FakeAudioElement, FakeMediaDevices, FakePage, mockMedia } from "../softphone/testing/mock-media";
import { until } from "../softphone/testing/phone-rig";
import { memoryStorage as phoneMemoryStorage } from "../softphone";
import { REDIAL_KEY, createPhoneSession, jwtExpiry, type PhoneSession } from "./phone-session";
import { createSessionStore } from "./session";
import { createSettingsStore } from "./settings";
import type { TabCoordination } from "./phone-owner";
import { memoryStorage } from "./storage";
import { FakeBrowser } from "./test-support/fake-tabs";
import { alice, fakePlatform, json } from "./test-support/fake-platform";

const BASE = "https://pbx.example.com";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.useRealTimers();
});

/** A JWT-shaped token (header.payload.signature) that expires in `seconds`. */
function jwt(serial: number, seconds: number): string {
  const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${b64({ alg: "HS256" })}.${b64({ sub: "3", n: serial, exp: Math.floor(Date.now() / 1000) + seconds })}.sig${serial}`;
}

function setup(
  opts: {
    tokenSeconds?: number;
    extension?: string;
    tabs?: TabCoordination;
    sameBrowserAs?: { sw: FakeSipServer; platform: ReturnType<typeof fakePlatform> };
  } = {},
) {
  const sw = opts.sameBrowserAs?.sw ?? new FakeSipServer();
  const platform =
    opts.sameBrowserAs?.platform ?? fakePlatform([{ ...alice, domain: sw.domain, extn: opts.extension ?? alice.extn }]);
  const issued: string[] = [];
  let refuseTokens: number | undefined;
  if (!opts.sameBrowserAs)
    platform.overrides.push(({ method, url, body }) => {
      if (method !== "POST" || url.pathname !== "/api/users/extn_token") return undefined;
      if (refuseTokens)
        return json(refuseTokens, {
          code: refuseTokens,
          text: refuseTokens === 403 ? "no permission: extension 1001 is disabled" : "Bad Gateway",
        });
      const token = jwt(issued.length + 1, opts.tokenSeconds ?? 3600);
      issued.push(token);
      // The switch accepts the newest token as the digest password, as the platform does.
      sw.passwords.set(String(body.extn), token);
      return json(200, { extn_id: "7", token, domain: sw.domain });
    });
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  const media = mockMedia();
  const phone = new Phone({
    transportConstructor: sw.Transport,
    sessionDescriptionHandlerFactory: media.factory,
    mediaDevices: new FakeMediaDevices(),
    storage: phoneMemoryStorage(),
    createAudioElement: () => new FakeAudioElement(),
    canChooseOutput: true,
    window: new FakePage(),
    document: new FakePage(),
    logConnector: () => {},
  });
  const ps: PhoneSession = createPhoneSession({
    session,
    settings,
    phone,
    deviceStorage: device,
    pageHref: () => "https://app.test/agent/",
    ...(opts.tabs ? { tabs: opts.tabs } : {}),
  });
  cleanups.push(
    () => phone.stop(),
    () => ps.dispose(),
  );
  const signIn = () => session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: BASE });
  return {
    sw,
    platform,
    issued,
    settings,
    session,
    phone,
    ps,
    device,
    signIn,
    refuseTokens: (status: number | undefined) => (refuseTokens = status),
  };
}

const registered = (phone: Phone) => until(phone.phoneStore, (s) => s.registration.status === "registered");
const registersFrom = (r: WireRecord) => r.direction === "from-ua" && isRequest(r, "REGISTER");

describe("the phone of the signed-in user", () => {
  it("after sign-in gets the extension token and registers with it at the platform's /ws", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    expect(t.platform.calls.find((c) => c.path === "/api/users/extn_token")).toMatchObject({
      method: "POST",
      body: { extn: "1001", domain: t.sw.domain, jwt: true },
    });
    expect(t.sw.isRegistered("1001")).toBe(true);
    expect(t.ps.store.getState()).toMatchObject({
      status: "on",
      problem: null,
      address: `1001@${t.sw.domain}`,
      server: "wss://pbx.example.com/ws",
    });
    const settings = t.phone.phoneStore.getState().settings!;
    expect(settings).toMatchObject({
      iceServers: [],
      autoAnswer: "platform",
      dtmfMode: "rfc4733",
      referPolicy: "ask",
      displayName: "Alice Agent",
    });
    expect(settings.iceGatheringTimeoutMs).toBeLessThanOrEqual(500);
    // The digest password is the token: the switch checked it.
    expect(t.sw.passwords.get("1001")).toBe(t.issued[0]);
  });

  it("uses the SIP WebSocket URL and ICE servers from the settings", async () => {
    const t = setup();
    t.settings.getState().change({
      sipWebSocketUrl: "wss://sip.example.com/sip",
      iceServers: [{ urls: "turn:turn.example.com", username: "u", credential: "p" }],
    });
    await t.signIn();
    await registered(t.phone);
    expect(t.ps.store.getState().server).toBe("wss://sip.example.com/sip");
    expect(t.phone.phoneStore.getState().settings!.iceServers).toEqual([
      { urls: "turn:turn.example.com", username: "u", credential: "p" },
    ]);
  });

  it("sign-out unregisters and stops the phone, and forgets the calls", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    const mark = t.sw.mark();
    await t.session.getState().signOut();
    await until(t.ps.store, (s) => s.status === "off");
    await until(t.phone.phoneStore, (s) => s.registration.status === "stopped");
    const unregister = await t.sw.waitFor((r) => registersFrom(r) && /expires=0|Expires: 0/i.test(r.raw), mark);
    expect(unregister).toBeDefined();
    expect(t.sw.isRegistered("1001")).toBe(false);
    expect(t.phone.callsStore.getState().calls).toEqual([]);
  });

  it("the end of the session stops the phone too", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    t.platform.endAllSessions();
    // The next REST request finds the session over.
    await t.session
      .getState()
      .client!.request("GET", "/api/users/info", { schema: (await import("valibot")).unknown() })
      .catch(() => {});
    expect(t.session.getState().status).toBe("session-expired");
    await until(t.phone.phoneStore, (s) => s.registration.status === "stopped");
    expect(t.ps.store.getState().status).toBe("off");
  });

  it("renews the extension token before it expires and gives it to the phone", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const t = setup({ tokenSeconds: 100 });
    await t.signIn();
    await vi.waitFor(() => expect(t.sw.isRegistered("1001")).toBe(true));
    expect(t.issued).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(79_000);
    expect(t.issued).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.issued).toHaveLength(2);
    // The next REGISTER (a refresh, a reconnection) answers the challenge with the new token.
    const mark = t.sw.mark();
    t.sw.drop("1001");
    await vi.advanceTimersByTimeAsync(35_000);
    await vi.waitFor(() => expect(t.sw.isRegistered("1001")).toBe(true));
    expect(t.sw.records(registersFrom, mark).length).toBeGreaterThan(0);
    expect(t.phone.phoneStore.getState().registration.status).toBe("registered");
  });

  it("a refused token is renewed at once and the phone registers again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const t = setup();
    await t.signIn();
    await vi.waitFor(() => expect(t.sw.isRegistered("1001")).toBe(true));
    await vi.advanceTimersByTimeAsync(60_000);
    // The platform forgot the token (it restarted): the next REGISTER is refused.
    t.sw.passwords.set("1001", "something-else");
    t.sw.drop("1001");
    await vi.advanceTimersByTimeAsync(2_000);
    await vi.waitFor(() => expect(t.issued).toHaveLength(2));
    await vi.waitFor(() => expect(t.phone.phoneStore.getState().registration.status).toBe("registered"));
    expect(t.sw.passwords.get("1001")).toBe(t.issued[1]);
  });

  it("a token refused right after it was issued is not fetched again in a loop", async () => {
    const t = setup();
    t.platform.overrides.unshift(({ method, url }) =>
      method === "POST" && url.pathname === "/api/users/extn_token"
        ? json(200, { extn_id: "7", token: `wrong-${t.issued.push("wrong")}`, domain: t.sw.domain })
        : undefined,
    );
    t.sw.passwords.set("1001", "the-real-one");
    await t.signIn();
    const s = await until(t.phone.phoneStore, (s) => s.registration.status === "failed");
    expect(s.registration).toMatchObject({ status: "failed", error: { kind: "auth" } });
    expect(t.issued).toHaveLength(1);
  });

  it("says why when the token is refused, and retries network trouble by itself", async () => {
    const t = setup();
    t.refuseTokens(403);
    await t.signIn();
    await until(t.ps.store, (s) => s.status === "unavailable");
    expect(t.ps.store.getState().problem).toEqual({
      kind: "token",
      error: { kind: "http", status: 403, message: "no permission: extension 1001 is disabled" },
    });
    expect(t.session.getState().status).toBe("signed-in");

    t.refuseTokens(undefined);
    t.ps.store.getState().retry();
    await registered(t.phone);
    expect(t.ps.store.getState().status).toBe("on");
  });

  it("a user without an extension has no phone, and is told so", async () => {
    const t = setup({ extension: "" });
    await t.signIn();
    await until(t.ps.store, (s) => s.status === "unavailable");
    expect(t.ps.store.getState().problem).toEqual({ kind: "no-extension" });
    expect(t.platform.calls.some((c) => c.path === "/api/users/extn_token")).toBe(false);
  });

  it("applies auto-answer, DTMF and REFER settings at once, without reconnecting", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    const mark = t.sw.mark();
    t.settings.getState().change({ autoAnswer: "never", dtmfMode: "info", referPolicy: "reject" });
    expect(t.phone.phoneStore.getState().settings).toMatchObject({
      autoAnswer: "never",
      dtmfMode: "info",
      referPolicy: "reject",
    });
    expect(t.sw.records(registersFrom, mark)).toHaveLength(0);
  });

  it("a new SIP server or ICE servers restart the phone once no call is up", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    t.settings.getState().change({ iceServers: [{ urls: "stun:stun.example.com" }] });
    await until(
      t.phone.phoneStore,
      (s) => s.settings?.iceServers.length === 1 && s.registration.status === "registered",
    );
    expect(t.issued).toHaveLength(2);
    expect(t.ps.store.getState().restartPending).toBe(false);
  });

  it("remembers the last number dialled for Redial", async () => {
    const t = setup();
    await t.signIn();
    await registered(t.phone);
    await t.ps.store.getState().dial(" 1002 ");
    expect(t.ps.store.getState().lastDialled).toBe("1002");
    expect(t.device.getItem(REDIAL_KEY)).toBe("1002");
  });

  it("passes the call-center hook to the phone", async () => {
    const t = setup();
    const hook = vi.fn(() => ({ context: { queue: "support" } }));
    t.ps.setCallCenterHook(hook);
    await t.signIn();
    await registered(t.phone);
    const { startPeer } = await import("../softphone/testing/peer");
    const bob = await startPeer(t.sw, "2000");
    cleanups.push(() => bob.stop());
    const { Inviter, UserAgent } = await import("sip.js");
    await new Inviter(bob.ua, UserAgent.makeURI(`sip:1001@${t.sw.domain}`)!).invite();
    const s = await until(t.phone.callsStore, (s) => s.calls.length === 1);
    expect(hook).toHaveBeenCalledTimes(1);
    expect(s.calls[0]!.context).toEqual({ queue: "support" });
  });
});

describe("extension token lifetime", () => {
  it("reads exp from a JWT and nothing from an opaque token", () => {
    const token = jwt(1, 60);
    expect(Math.abs(jwtExpiry(token)! - (Date.now() + 60_000))).toBeLessThan(2000);
    expect(jwtExpiry("6b0f2f8e-4bd4-4e36-a3c1-0e0b7f1c1f6d")).toBeUndefined();
    expect(jwtExpiry("a.b.c")).toBeUndefined();
  });
});

describe("one phone per agent across the tabs of a browser", () => {
  it("a second tab of the agent does not register; when the first one closes, it does", async () => {
    const browser = new FakeBrowser();
    const [tabA, tabB] = [browser.tab(), browser.tab()];
    const a = setup({ tabs: tabA.coordination() });
    await a.signIn();
    await registered(a.phone);
    const b = setup({ tabs: tabB.coordination(), sameBrowserAs: a });
    const since = a.sw.mark();
    await b.signIn();
    await until(b.ps.store, (s) => s.status === "elsewhere");
    expect(b.ps.store.getState().address).toBe(`1001@${a.sw.domain}`);
    // A negative check as long as the positive one below takes: no REGISTER from the second tab.
    await new Promise((r) => setTimeout(r, 300));
    expect(b.phone.phoneStore.getState().registration.status).toBe("stopped");
    expect(a.sw.records(registersFrom, since)).toHaveLength(0);
    expect(a.ps.owner.store.getState()).toMatchObject({ role: "owner", others: 1 });

    // The first tab goes away: the browser hands its lock on, the second tab registers.
    tabA.close();
    await a.phone.stop();
    await registered(b.phone);
    expect(b.ps.store.getState().status).toBe("on");
    expect(b.ps.owner.store.getState().role).toBe("owner");
  });

  it("Use the phone here: the first tab unregisters, the second registers", async () => {
    const browser = new FakeBrowser();
    const a = setup({ tabs: browser.tab().coordination() });
    await a.signIn();
    await registered(a.phone);
    const b = setup({ tabs: browser.tab().coordination(), sameBrowserAs: a });
    await b.signIn();
    await until(b.ps.store, (s) => s.status === "elsewhere");
    expect(await b.ps.owner.takeOver()).toBe(true);
    await registered(b.phone);
    expect(a.ps.store.getState().status).toBe("elsewhere");
    expect(a.phone.phoneStore.getState().registration.status).toBe("stopped");
  });
});
