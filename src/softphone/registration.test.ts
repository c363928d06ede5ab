import { afterEach, describe, expect, it, vi } from "vitest";
import { PhoneError } from "./phone-error";
import { findCall } from "./calls-store";
import { FakeSipServer, isRequest, isResponse, type RequestRecord } from "./testing/fake-sip-server";
import { ServerCall } from "./testing/server-call";
import { history, settle, startPhone, until, type PhoneRig } from "./testing/phone-rig";
import { Phone } from "./phone";
import { memoryStorage } from "./device-preferences";

const rigs: PhoneRig[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const r of rigs.splice(0)) await r.phone.stop();
});

async function rig(sw: FakeSipServer, options: Parameters<typeof startPhone>[1] = {}) {
  const r = await startPhone(sw, options);
  rigs.push(r);
  return r;
}

const registers = (sw: FakeSipServer, since = 0) =>
  sw.records((r) => r.direction === "from-ua" && isRequest(r, "REGISTER"), since);

describe("registration", () => {
  it("answers the server's digest challenge and becomes registered", async () => {
    const sw = new FakeSipServer();
    sw.passwords.set("1001", "secret");
    const { phone } = await rig(sw, { registered: false });
    const statuses = history(phone.phoneStore, (s) => s.registration.status);
    await until(phone.phoneStore, (s) => s.registration.status === "registered");

    const [first, second] = registers(sw);
    expect(first?.message.hasHeader("Authorization")).toBe(false);
    expect(sw.records((r) => r.direction === "to-ua" && isResponse(r, 401)).length).toBe(1);
    expect(second?.raw).toMatch(/^Authorization: Digest .*username="1001"/m);
    expect(statuses).toContain("registered");
    expect(phone.phoneStore.getState().transport).toBe("connected");
    expect(sw.isRegistered("1001")).toBe(true);
  });

  it("writes its own display name as a quoted-string: a name with quotes and a backslash still registers", async () => {
    const sw = new FakeSipServer();
    await rig(sw, { settings: { displayName: 'Anna "Annie" \\ Smith' } });
    const sent = registers(sw);
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) expect(r.message.getHeader("from")).toMatch(/^"Anna \\"Annie\\" \\\\ Smith" <sip:1001@/);
  });

  it("claims outbound (RFC 5626) with what it needs: an instance id kept across restarts and a reg-id", async () => {
    const sw = new FakeSipServer();
    const storage = memoryStorage();
    const first = await startPhone(sw, { storage });
    await first.phone.stop();
    const again = await rig(sw, { storage });
    const [one, two] = registers(sw).filter((r) => !/;expires=0/.test(r.raw));
    for (const r of [one!, two!]) {
      expect(r.message.getHeader("supported")).toMatch(/\boutbound\b/);
      expect(r.message.getHeader("contact")).toMatch(/;reg-id=1;\+sip\.instance="<urn:uuid:[0-9a-f-]{36}>"/);
    }
    const instance = (r: { message: { getHeader(name: string): string | undefined } }) =>
      /\+sip\.instance="([^"]+)"/.exec(r.message.getHeader("contact") ?? "")?.[1];
    expect(instance(two!)).toBe(instance(one!));
    expect(again.phone.phoneStore.getState().registration.status).toBe("registered");
  });

  it("goes from connecting through registering to registered", async () => {
    const sw = new FakeSipServer();
    const phone = new Phone({
      transportConstructor: sw.Transport,
      mediaDevices: null,
      storage: null,
      createAudioElement: null,
      window: null,
      document: null,
      logConnector: () => {},
    });
    const statuses = history(phone.phoneStore, (s) => s.registration.status);
    await phone.start({ server: "wss://pbx.test/sip", address: "1001@pbx.test", password: "secret" });
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(statuses).toEqual(["stopped", "connecting", "registering", "registered"]);
    await phone.stop();
  });

  it("fails with the reason on a wrong password (403) and does not retry by itself", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    sw.passwords.set("1001", "right");
    const { phone } = await rig(sw, { registered: false });
    const rejected: unknown[] = [];
    phone.on("credentials-rejected", (e) => rejected.push(e.error));
    const s = await until(phone.phoneStore, (s) => s.registration.status === "failed");
    expect(s.registration).toMatchObject({ status: "failed", error: { kind: "auth", status: 403 } });
    expect(rejected).toEqual([expect.objectContaining({ kind: "auth", status: 403 })]);

    const before = registers(sw).length;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(registers(sw).length).toBe(before);

    // A fresh password (e.g. a renewed extension token) registers at once.
    phone.setPassword("right");
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
  });

  it("reports a repeated 401 challenge as refused credentials", async () => {
    const sw = new FakeSipServer();
    sw.passwords.set("1001", "right");
    sw.wrongPasswordStatus = 401;
    const { phone } = await rig(sw, { registered: false });
    const s = await until(phone.phoneStore, (s) => s.registration.status === "failed");
    expect(s.registration).toMatchObject({ error: { kind: "auth", status: 401 } });
  });

  it("reports an unknown user (404) as final", async () => {
    const sw = new FakeSipServer();
    sw.registerOverride = () => ({ status: 404 });
    const { phone } = await rig(sw, { registered: false });
    const s = await until(phone.phoneStore, (s) => s.registration.status === "failed");
    expect(s.registration).toMatchObject({ error: { kind: "not-found", status: 404 } });
  });

  it("retries a 503 no sooner than its Retry-After", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    let refuse = true;
    sw.registerOverride = () => (refuse ? { status: 503, headers: ["Retry-After: 20"] } : undefined);
    const { phone } = await rig(sw, { registered: false, env: { random: () => 0 } });
    const s = await until(phone.phoneStore, (s) => s.registration.status === "reconnecting");
    const t0 = Date.now();
    expect(s.registration).toMatchObject({
      status: "reconnecting",
      attempt: 2,
      error: { kind: "server", status: 503, retryAfterSec: 20 },
    });
    expect(s.registration.status === "reconnecting" && s.registration.nextAttemptAt - t0).toBe(20_000);
    refuse = false;
    const n = registers(sw).length;
    await vi.advanceTimersByTimeAsync(19_000);
    expect(registers(sw).length).toBe(n);
    await vi.advanceTimersByTimeAsync(1_000);
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(registers(sw).length).toBe(n + 1);
  });

  it("tries again at once when asked (Retry now), long before its next attempt", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    let refuse = true;
    sw.registerOverride = () => (refuse ? { status: 503, headers: ["Retry-After: 600"] } : undefined);
    const { phone } = await rig(sw, { registered: false, env: { random: () => 0 } });
    await until(phone.phoneStore, (s) => s.registration.status === "reconnecting");
    refuse = false;
    const n = registers(sw).length;
    phone.retryNow();
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(registers(sw).length).toBe(n + 1);
  });

  it("refuses unusable settings with a reason", async () => {
    const phone = new Phone({
      mediaDevices: null,
      storage: null,
      createAudioElement: null,
      window: null,
      document: null,
    });
    await expect(
      phone.start({ server: "https://pbx.test/sip", address: "1001@pbx.test", password: "x" }),
    ).rejects.toMatchObject({ kind: "invalid-settings" });
    await expect(phone.start({ server: "wss://pbx.test/sip", address: "1001", password: "x" })).rejects.toBeInstanceOf(
      PhoneError,
    );
    expect(phone.phoneStore.getState().registration).toMatchObject({
      status: "failed",
      error: { kind: "invalid-settings" },
    });
  });
});

describe("connection loss", () => {
  const fakeTimers = () =>
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });

  it("reconnects with growing, capped, jittered delays and registers again with a new REGISTER", async () => {
    fakeTimers();
    const sw = new FakeSipServer();
    const { phone } = await rig(sw, {
      env: { random: () => 1 },
      settings: { reconnect: { initialDelayMs: 1000, maxDelayMs: 4000 } },
    });
    const registeredBefore = registers(sw).length;

    sw.refuseConnections = true;
    sw.drop("1001");
    const delays: number[] = [];
    for (let attempt = 2; attempt <= 5; attempt++) {
      const s = await until(
        phone.phoneStore,
        (s) => s.registration.status === "reconnecting" && s.registration.attempt === attempt,
      );
      if (s.registration.status !== "reconnecting") throw new Error("unreachable");
      expect(s.registration.error.kind).toBe("transport");
      const delay = s.registration.nextAttemptAt - Date.now();
      delays.push(delay);
      await vi.advanceTimersByTimeAsync(delay);
    }
    // random() = 1 takes the top of each step: 1 s, 2 s, 4 s, then the 4 s cap.
    expect(delays).toEqual([1000, 2000, 4000, 4000]);

    sw.refuseConnections = false;
    const s = await until(phone.phoneStore, (s) => s.registration.status === "reconnecting");
    await vi.advanceTimersByTimeAsync(
      s.registration.status === "reconnecting" ? s.registration.nextAttemptAt - Date.now() : 0,
    );
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(registers(sw).length).toBe(registeredBefore + 1);
    // The registerer of the dead connection never unregistered over the new one.
    expect(registers(sw).filter((r) => /expires=0/.test(r.raw))).toEqual([]);
    expect(sw.isRegistered("1001")).toBe(true);
  });

  it("keeps its registration state honest: a dropped socket is not 'registered'", async () => {
    const sw = new FakeSipServer();
    const { phone } = await rig(sw);
    sw.refuseConnections = true;
    sw.drop("1001");
    const s = await until(phone.phoneStore, (s) => s.registration.status !== "registered");
    expect(s.transport).toBe("disconnected");
    expect(s.registration.status).toMatch(/reconnecting|connecting/);
  });

  it("retries at once when the browser comes back online", async () => {
    fakeTimers();
    const sw = new FakeSipServer();
    const { phone, page } = await rig(sw, {
      env: { random: () => 1 },
      settings: { reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } },
    });
    sw.refuseConnections = true;
    sw.drop("1001");
    await until(phone.phoneStore, (s) => s.registration.status === "reconnecting");
    sw.refuseConnections = false;
    page.fire("online");
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
  });

  it("detects a dead socket with OPTIONS keep-alives and reconnects", async () => {
    fakeTimers();
    const sw = new FakeSipServer();
    const { phone } = await rig(sw, {
      env: { random: () => 0 },
      settings: { keepAlive: { mode: "options", intervalSec: 30, timeoutSec: 10 } },
    });
    await vi.advanceTimersByTimeAsync(30_000);
    const options = sw.records((r): r is RequestRecord => r.direction === "from-ua" && isRequest(r, "OPTIONS"));
    expect(options.length).toBe(1);
    expect(options[0]?.message.ruri?.toString()).toBe("sip:pbx.test");
    expect(phone.phoneStore.getState().registration.status).toBe("registered");

    sw.silence("1001");
    await vi.advanceTimersByTimeAsync(40_000);
    const s = phone.phoneStore.getState();
    expect(s.registration).toMatchObject({
      status: "reconnecting",
      error: { kind: "transport", detail: "no answer to keep-alive" },
    });
    await vi.advanceTimersByTimeAsync(1000);
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
  });

  it("a page woken from freezing checks its socket at once instead of at the next keep-alive", async () => {
    fakeTimers();
    const sw = new FakeSipServer();
    const { phone, page } = await rig(sw, {
      env: { random: () => 0 },
      settings: { keepAlive: { mode: "options", intervalSec: 30, timeoutSec: 10 } },
    });
    // The socket died while the page slept; the next keep-alive would be 30 s away.
    sw.silence("1001");
    await vi.advanceTimersByTimeAsync(5_000);
    page.fire("resume");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(phone.phoneStore.getState().registration).toMatchObject({
      status: "reconnecting",
      error: { detail: "no answer to keep-alive" },
    });
  });

  it("a page frozen with no call unregisters before it stops, so a call to it is not rung into nothing; woken, it registers again and takes calls", async () => {
    const sw = new FakeSipServer();
    const { phone, page } = await rig(sw);
    const m = sw.mark();
    page.fire("freeze");
    // Sent within the event and its microtasks: no timer or later task runs in a frozen page.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(registers(sw, m).filter((r) => /;expires=0/.test(r.raw))).toHaveLength(1);
    await settle();
    expect(sw.isRegistered("1001")).toBe(false);

    page.fire("resume");
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(sw.isRegistered("1001")).toBe(true);
    new ServerCall(sw, { to: "1001", fromName: "After" }).invite();
    await until(phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing" && c.remote.name === "After"));
  });

  it("a frozen page whose un-REGISTER is challenged (stale nonce) answers the challenge once awake and ends up registered", async () => {
    const sw = new FakeSipServer();
    sw.strictRegistrar = true;
    sw.passwords.set("1001", "secret");
    const { phone, page } = await rig(sw);
    sw.expireNonces();
    // The page reads nothing while frozen: the challenge waits until it is awake.
    sw.gate("1001");
    page.fire("freeze");
    await settle();
    page.fire("resume");
    sw.release("1001");
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    await settle();
    expect(sw.isRegistered("1001")).toBe(true);
    expect(phone.phoneStore.getState().registration.status).toBe("registered");
  });

  it("a page frozen during a call keeps its registration", async () => {
    const sw = new FakeSipServer();
    const { phone, page } = await rig(sw);
    new ServerCall(sw, { to: "1001", fromName: "Ringing" }).invite();
    await until(phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
    const m = sw.mark();
    page.fire("freeze");
    page.fire("resume");
    await settle();
    expect(registers(sw, m).filter((r) => /;expires=0/.test(r.raw))).toHaveLength(0);
    expect(sw.isRegistered("1001")).toBe(true);
    expect(phone.phoneStore.getState().registration.status).toBe("registered");
  });

  it("unregisters when stopped and when the page goes away", async () => {
    const sw = new FakeSipServer();
    const a = await startPhone(sw);
    await a.phone.stop();
    expect(registers(sw).filter((r) => /;expires=0/.test(r.raw)).length).toBe(1);
    expect(a.phone.phoneStore.getState().registration.status).toBe("stopped");

    const sw2 = new FakeSipServer();
    const b = await rig(sw2);
    b.page.fire("pagehide");
    await settle();
    expect(registers(sw2).filter((r) => /;expires=0/.test(r.raw)).length).toBe(1);
    expect(b.phone.phoneStore.getState().registration.status).toBe("stopped");
  });

  it("stopping removes the binding from a registrar that challenges the un-REGISTER (stale nonce) before the socket closes", async () => {
    const sw = new FakeSipServer();
    sw.strictRegistrar = true;
    sw.passwords.set("1001", "secret");
    const { phone } = await startPhone(sw);
    expect(sw.isRegistered("1001")).toBe(true);
    sw.expireNonces();
    const m = sw.mark();
    await phone.stop();
    // The binding is gone: the challenged un-REGISTER was answered and sent again, then accepted.
    expect(sw.isRegistered("1001")).toBe(false);
    const unregisters = registers(sw, m).filter((r) => /;expires=0/.test(r.raw));
    expect(unregisters).toHaveLength(2);
    expect(sw.records((r) => r.direction === "to-ua" && isResponse(r, 401), m)).toHaveLength(1);
    expect(sw.records((r) => r.direction === "to-ua" && isResponse(r, 200, "REGISTER"), m)).toHaveLength(1);
    expect(phone.phoneStore.getState().registration.status).toBe("stopped");
  });

  it("refreshes with the last nonce and a growing count: no 401 while the nonce is valid, one once it has expired", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const sw = new FakeSipServer();
    sw.strictRegistrar = true;
    sw.passwords.set("1001", "secret");
    const { phone } = await rig(sw, { settings: { registerExpiresSec: 60, keepAlive: { mode: "off" } } });
    const challenges = () => sw.records((r) => r.direction === "to-ua" && isResponse(r, 401)).length;
    expect(challenges()).toBe(1);
    // Two refreshes (every 48 s) while the nonce stays valid: each accepted at once.
    await vi.advanceTimersByTimeAsync(100_000);
    const refreshes = registers(sw).slice(2);
    expect(refreshes).toHaveLength(2);
    expect(refreshes.map((r) => /nc=([0-9a-f]+)/i.exec(r.message.getHeader("authorization") ?? "")?.[1])).toEqual([
      "00000002",
      "00000003",
    ]);
    expect(challenges()).toBe(1);
    // The nonce runs out: the next refresh meets one 401 (stale) and registers with the new nonce.
    sw.expireNonces();
    await vi.advanceTimersByTimeAsync(48_000);
    expect(challenges()).toBe(2);
    expect(phone.phoneStore.getState().registration.status).toBe("registered");
    expect(sw.isRegistered("1001")).toBe(true);
  });

  it("comes back from the back/forward cache: registers again over a new connection, ringing calls of before gone", async () => {
    const sw = new FakeSipServer();
    const { phone, page } = await rig(sw);
    new ServerCall(sw, { to: "1001", fromName: "Before" }).invite();
    const ringing = await until(phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing"));
    const id = ringing.calls[0]!.id;

    page.fire("pagehide", { persisted: true });
    await settle();
    expect(phone.phoneStore.getState().registration.status).toBe("stopped");
    expect(sw.isRegistered("1001")).toBe(false);
    // Its socket closed, the server gave the call up: it must not ring on after the page is back.
    expect(findCall(phone.callsStore.getState(), id)).toMatchObject({
      state: "ended",
      end: { kind: "connection-lost", by: "system" },
    });
    expect(phone.diagnostics()).toMatchObject({ sessions: 0 });

    // A pageshow that is a fresh load, not a return, changes nothing.
    page.fire("pageshow", { persisted: false });
    await settle();
    expect(phone.phoneStore.getState().registration.status).toBe("stopped");

    const m = sw.mark();
    page.fire("pageshow", { persisted: true });
    await until(phone.phoneStore, (s) => s.registration.status === "registered");
    expect(registers(sw, m).length).toBeGreaterThan(0);
    expect(sw.isRegistered("1001")).toBe(true);
    // The phone works again: a new call rings.
    new ServerCall(sw, { to: "1001", fromName: "After" }).invite();
    await until(phone.callsStore, (s) => s.calls.some((c) => c.state === "ringing" && c.remote.name === "After"));
  });
});
