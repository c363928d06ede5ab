import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CALL_CENTER_CHANNEL, EventChannel, type EventChannelOptions, type SocketLike } from "./event-channel";

/** An in-memory socket the test plays the server of. */
class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: SocketLike["onopen"] = null;
  onclose: SocketLike["onclose"] = null;
  onerror: SocketLike["onerror"] = null;
  onmessage: SocketLike["onmessage"] = null;
  readonly sent: { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown }[] = [];
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000, reason = "") {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(frame: unknown) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  /** Answers the last request of `method` with a result (or an error). */
  answer(method: string, result: unknown = { message: "ok" }, error?: { code: number; message: string }) {
    const req = [...this.sent].reverse().find((m) => m.method === method);
    if (!req) throw new Error(`no ${method} sent`);
    this.push(error ? { jsonrpc: "2.0", id: req.id, error } : { jsonrpc: "2.0", id: req.id, result });
  }
  /** The server drops the connection. */
  drop() {
    this.close(1006, "");
  }
}

let sockets: FakeSocket[];
let events: [string, unknown][];
let statuses: string[];
const channels: EventChannel[] = [];

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T09:00:00Z") });
  sockets = [];
  events = [];
  statuses = [];
});
afterEach(() => {
  channels.splice(0).forEach((c) => c.close());
  vi.useRealTimers();
});

function open(o: Partial<EventChannelOptions> = {}) {
  let token = "token-1";
  const channel = new EventChannel({
    url: "ws://pbx.test/ws",
    credentials: () => ({ login: "1001@agentbar.local", token }),
    channels: [CALL_CENTER_CHANNEL],
    onEvent: (c, d) => events.push([c, d]),
    onStatus: (s) => statuses.push(s),
    socket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    random: () => 0.5,
    ...o,
  });
  channels.push(channel);
  return { channel, setToken: (t: string) => (token = t), last: () => sockets[sockets.length - 1]! };
}

/** Opens the socket, answers login and subscribe. */
function logIn(s: FakeSocket) {
  s.open();
  s.answer("login", { message: "logged in" });
  return vi
    .advanceTimersByTimeAsync(0)
    .then(() => s.answer("verto.subscribe", { subscribedChannels: [CALL_CENTER_CHANNEL] }));
}

describe("the event channel", () => {
  it("logs in with the token and a client sessid, subscribes, and delivers events", async () => {
    const { channel, last } = open();
    const s = last();
    s.open();
    expect(s.sent[0]).toMatchObject({
      method: "login",
      params: {
        login: "1001@agentbar.local",
        passwd: "x",
        loginParams: { xui_sessid: "token-1" },
        sessid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
    s.answer("login", { message: "logged in" });
    await vi.advanceTimersByTimeAsync(0);
    expect(s.sent[1]).toMatchObject({ method: "verto.subscribe", params: { eventChannel: [CALL_CENTER_CHANNEL] } });
    s.answer("verto.subscribe", { subscribedChannels: [CALL_CENTER_CHANNEL] });
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.status).toBe("open");

    s.push({
      jsonrpc: "2.0",
      id: 7,
      method: "verto.event",
      params: { eventChannel: CALL_CENTER_CHANNEL, data: { "CC-Action": "agent-status-change" } },
    });
    expect(events).toEqual([[CALL_CENTER_CHANNEL, { "CC-Action": "agent-status-change" }]]);
    // Server requests are answered with a result, events and pings alike, batches too.
    s.push([
      { jsonrpc: "2.0", id: 8, method: "verto.ping", params: { serno: 1 } },
      { jsonrpc: "2.0", id: 9, method: "verto.event", params: { eventChannel: CALL_CENTER_CHANNEL, data: { n: 2 } } },
    ]);
    expect(s.sent.filter((m) => m.result).map((m) => m.id)).toEqual([7, 8, 9]);
    expect(events).toHaveLength(2);
  });

  it("ignores frames it cannot read and keeps the connection", async () => {
    const { channel, last } = open();
    await logIn(last());
    last().push("not json {");
    last().push([42, null]);
    last().push({ jsonrpc: "2.0", id: 1234, result: {} });
    expect(channel.status).toBe("open");
    expect(sockets).toHaveLength(1);
  });

  it("reconnects after a drop with the same sessid and a fresh token, and subscribes again", async () => {
    const { channel, last, setToken } = open();
    await logIn(last());
    const sessid = last().sent[0]!.params!.sessid;
    last().drop();
    expect(channel.status).toBe("reconnecting");
    setToken("token-2");
    await vi.advanceTimersByTimeAsync(1500);
    expect(sockets).toHaveLength(2);
    const s = last();
    await logIn(s);
    expect(channel.status).toBe("open");
    expect(s.sent[0]!.params).toMatchObject({ sessid, loginParams: { xui_sessid: "token-2" } });
    expect(s.sent[1]).toMatchObject({ method: "verto.subscribe", params: { eventChannel: [CALL_CENTER_CHANNEL] } });
  });

  it("waits 1 s, 2 s, 4 s ... up to the cap between attempts, and starts again from 1 s once logged in", async () => {
    const nextAttempts: number[] = [];
    const { last } = open({
      backoffMs: { first: 1000, max: 4000 },
      onStatus: (s, d) => {
        if (s === "reconnecting" && d.nextAttemptAt) nextAttempts.push(d.nextAttemptAt - Date.now());
      },
    });
    await logIn(last());
    for (let i = 0; i < 4; i++) {
      last().drop();
      await vi.advanceTimersByTimeAsync(nextAttempts[nextAttempts.length - 1]!);
    }
    expect(nextAttempts).toEqual([1000, 2000, 4000, 4000]);
    await logIn(last());
    last().drop();
    expect(nextAttempts.at(-1)).toBe(1000);
  });

  it("a refused token is reported, and tried again later rather than at once", async () => {
    const failures: string[] = [];
    const details: { error?: string }[] = [];
    const { channel, last } = open({ onAuthFailure: (m) => failures.push(m), onStatus: (s, d) => details.push(d) });
    const s = last();
    s.open();
    s.answer("login", undefined, { code: -32001, message: "Authentication Failure" });
    await vi.advanceTimersByTimeAsync(0);
    expect(failures).toEqual(["Authentication Failure"]);
    expect(channel.status).toBe("reconnecting");
    expect(details.at(-1)?.error).toBe("Authentication Failure");
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1500);
    expect(sockets).toHaveLength(2);
  });

  it("takes a connection with no frame for too long for dead, and connects again; frames arm no timer each", async () => {
    const { channel, last } = open({ silenceMs: 75_000 });
    await logIn(last());
    // A busy channel's frames arm no timer each: the one timer compares the time of the last.
    const timers = vi.spyOn(globalThis, "setTimeout");
    for (let i = 0; i < 1000; i++)
      last().push({ jsonrpc: "2.0", method: "verto.event", params: { eventChannel: CALL_CENTER_CHANNEL, data: {} } });
    expect(timers).not.toHaveBeenCalled();
    timers.mockRestore();
    await vi.advanceTimersByTimeAsync(60_000);
    last().push({ jsonrpc: "2.0", id: 1, method: "verto.ping", params: {} });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(16_000);
    expect(channel.status).toBe("reconnecting");
    await vi.advanceTimersByTimeAsync(1500);
    expect(sockets).toHaveLength(2);
  });

  it("subscribes and unsubscribes the difference when the channels change", async () => {
    const { channel, last } = open();
    await logIn(last());
    channel.setChannels([CALL_CENTER_CHANNEL, "cc.queue.support"]);
    channel.setChannels(["cc.queue.support"]);
    const s = last();
    expect(s.sent.slice(2).map((m) => [m.method, m.params?.eventChannel])).toEqual([
      ["verto.subscribe", ["cc.queue.support"]],
      ["verto.unsubscribe", [CALL_CENTER_CHANNEL]],
    ]);
  });

  it("close() stops for good: no reconnection, no timers", async () => {
    const { channel, last } = open();
    await logIn(last());
    channel.close();
    expect(channel.status).toBe("closed");
    expect(last().readyState).toBe(3);
    await vi.advanceTimersByTimeAsync(300_000);
    expect(sockets).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
