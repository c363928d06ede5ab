import { afterEach, describe, expect, it, vi } from "vitest";
import { COMMAND_NAMES, checkCommand, chooseVersion } from "./host/commands";
import { AgentbarError, Connection, handshake, type PortLike } from "./host/connection";
import { checkAppMessage, snapshotInfo, type CommandResult } from "./host/protocol";
import { MAX_COMMANDS_UNDER_WAY, redact, startEndpoint } from "./endpoint";
import {
  HOST_ORIGIN,
  appWindow,
  closeAll,
  configWith,
  connectPair,
  fakeApp,
  ringingCall,
  sampleSnapshot,
  until,
  validCommands,
} from "./test-support";

afterEach(closeAll);

describe("message schemas", () => {
  it("accept one valid message of every command", () => {
    expect(Object.keys(validCommands).sort()).toEqual([...COMMAND_NAMES].sort());
    for (const [command, args] of Object.entries(validCommands)) {
      expect(checkCommand({ type: "command", id: 7, command, args }), command).toEqual({
        ok: true,
        value: { type: "command", id: 7, command, args },
      });
    }
  });

  it("refuse unknown fields, missing fields, wrong types and things that are not plain data, naming the field", () => {
    const base = { type: "command", id: 3, command: "dial", args: { number: "1002" } };
    const refused = (m: unknown) => checkCommand(m);
    expect(refused({ ...base, extra: 1 })).toEqual({ ok: false, problem: "extra: is not a known field", id: 3 });
    expect(refused({ ...base, args: { number: "1002", platformUrl: "https://evil.example" } })).toEqual({
      ok: false,
      problem: "args.platformUrl: is not a known field",
      id: 3,
    });
    expect(refused({ ...base, args: {} })).toEqual({ ok: false, problem: "args.number: is missing", id: 3 });
    expect(refused({ ...base, args: { number: 1002 } })).toEqual({
      ok: false,
      problem: "args.number: must be a string",
      id: 3,
    });
    expect(refused({ ...base, command: "setSettings" })).toMatchObject({ ok: false, id: 3 });
    expect(refused({ ...base, id: 0 })).toMatchObject({ ok: false, problem: expect.stringContaining("id:") });
    expect(refused({ ...base, id: 0 })).not.toHaveProperty("id");
    expect(refused({ ...base, args: new Map([["number", "1"]]) })).toMatchObject({
      ok: false,
      problem: "args: must be an object",
    });
    expect(refused({ ...base, args: { number: "1".repeat(257) } })).toMatchObject({
      ok: false,
      problem: "args.number: must be at most 256 characters",
    });
    expect(refused({ ...base, command: "sendDtmf", args: { digits: "1;2" } })).toMatchObject({
      ok: false,
      problem: "args.digits: has a wrong format",
    });
    expect(refused({ ...base, command: "setStatus", args: { status: "Available" } })).toMatchObject({ ok: false });
    expect(refused([base])).toMatchObject({ ok: false });
    expect(
      refused(JSON.parse('{"type":"command","id":3,"command":"dial","args":{"number":"1","__proto__":{"x":1}}}')),
    ).toMatchObject({ ok: false, problem: "args.__proto__: is not a known field" });
  });

  it("check an app message against what its command or event returns", () => {
    const reply = { type: "reply", re: 4, ok: true, result: { call: ringingCall } };
    expect(checkAppMessage(reply, () => "answer")).toMatchObject({ ok: true });
    expect(checkAppMessage(reply, () => "getState")).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^result\.|^result: /),
    });
    expect(checkAppMessage(reply, () => undefined)).toEqual({ ok: false, problem: "re: answers no command under way" });
    expect(
      checkAppMessage({ type: "event", event: "call.ringing", data: { call: ringingCall } }, () => undefined),
    ).toMatchObject({ ok: true });
    expect(
      checkAppMessage(
        { type: "event", event: "call.ringing", data: { call: { ...ringingCall, token: "x" } } },
        () => undefined,
      ),
    ).toMatchObject({ ok: false });
    expect(checkAppMessage({ type: "event", event: "settings", data: {} }, () => undefined)).toMatchObject({
      ok: false,
    });
    expect(snapshotInfo(sampleSnapshot)).toBeUndefined();
  });

  it("take a call's data only as header names to one-line values, within bounds", () => {
    const ringing = (data: unknown) =>
      checkAppMessage(
        { type: "event", event: "call.ringing", data: { call: { ...ringingCall, data } } },
        () => undefined,
      );
    expect(ringing({ "X-IVR-Account": "12345" })).toMatchObject({ ok: true });
    expect(ringing({ "X-IVR Account": "1" })).toEqual({
      ok: false,
      problem: 'call.data: has a field name that is not allowed ("X-IVR Account")',
    });
    expect(ringing({ "X-IVR-Account": 12345 })).toEqual({
      ok: false,
      problem: "call.data.X-IVR-Account: must be a string",
    });
    expect(ringing({ "X-IVR-Note": "x".repeat(1025) })).toMatchObject({ ok: false });
    expect(ringing(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-IVR-${i}`, "1"])))).toEqual({
      ok: false,
      problem: "call.data: must have at most 32 fields",
    });
    expect(ringing(["12345"])).toMatchObject({ ok: false });
  });
});

describe("handshake", () => {
  it("an allowed origin from the parent window gets the snapshot and its scopes", async () => {
    const { connection } = await connectPair({ scopes: ["status", "caller-data"] });
    expect(connection.version).toBe(3);
    expect(connection.scopes).toEqual(["status", "caller-data"]);
    expect(connection.state.calls[0]?.party).toEqual({ number: "+15550100", name: "Carla" });
  });

  it("an origin that is not allowed gets no answer at all", async () => {
    const pending = connectPair({ origin: "https://evil.example.com", timeoutMs: 400 });
    await expect(pending).rejects.toMatchObject({ code: "no-answer" });
  });

  it("a frame that never answers is posted to less and less often (not 60 times in 15 s), then embed is told no-answer once", async () => {
    vi.useFakeTimers();
    try {
      const start = Date.now();
      const posts: number[] = [];
      const result = handshake({
        post: () => void posts.push(Date.now() - start),
        instance: "nobody-listens",
        timeoutMs: 15_000,
        commandTimeoutMs: 1000,
        emit: () => undefined,
        cancelled: () => false,
      }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(20_000);
      expect(await result).toMatchObject({ name: "AgentbarError", code: "no-answer" });
      expect(posts).toEqual([0, 250, 750, 1750, 3750, 5750, 7750, 9750, 11750, 13750]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a message from another window than the parent gets no answer, even from an allowed origin", async () => {
    await expect(connectPair({ source: "other", timeoutMs: 400 })).rejects.toMatchObject({ code: "no-answer" });
  });

  it("the same origin with a different port or scheme is another origin", async () => {
    await expect(connectPair({ origin: `${HOST_ORIGIN}:8443`, timeoutMs: 300 })).rejects.toMatchObject({
      code: "no-answer",
    });
    await expect(connectPair({ origin: HOST_ORIGIN.replace("https", "http"), timeoutMs: 300 })).rejects.toMatchObject({
      code: "no-answer",
    });
  });

  it("a host speaking only versions the app does not know is refused with the versions it does", async () => {
    const err = await connectPair({ versions: [4, 5] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentbarError);
    expect(err).toMatchObject({ code: "unsupported-version", message: expect.stringContaining("1, 2, 3") });
  });

  it("the highest common version is chosen", () => {
    expect(chooseVersion([1, 2], [1, 2, 3])).toBe(2);
    expect(chooseVersion([1], [1, 2])).toBe(1);
    expect(chooseVersion([4], [1, 2])).toBeUndefined();
    expect(chooseVersion([])).toBeUndefined();
  });

  it("a credential passed in the handshake reaches the app's sign-in, and nothing else", async () => {
    const { app } = await connectPair({ credential: "dev-key-123" });
    expect(app.tokens).toEqual(["dev-key-123"]);
    expect(app.runs).toEqual([]);
  });

  it("a repeated connect of the same page is ignored; a new page's replaces the connection", async () => {
    const { app, win } = await connectPair();
    expect(app.listening).toBe(1);
    const answers: unknown[] = [];
    const again = new MessageChannel();
    again.port1.onmessage = (e) => answers.push(e.data);
    win.deliver({ type: "agentbar:connect", versions: [1], instance: "test" }, HOST_ORIGIN, win.parent, [again.port2]);
    const fresh = new MessageChannel();
    fresh.port1.onmessage = (e) => answers.push(e.data);
    win.deliver({ type: "agentbar:connect", versions: [1], instance: "reloaded" }, HOST_ORIGIN, win.parent, [
      fresh.port2,
    ]);
    await until(() => answers.length === 1);
    expect(answers[0]).toMatchObject({ type: "hello" });
    expect(app.listening).toBe(1);
    for (const c of [again, fresh]) c.port1.close();
  });
});

describe("commands and replies", () => {
  it("replies are matched to their commands by id, whatever order they come in", async () => {
    const { connection, app } = await connectPair();
    const resolvers: (() => void)[] = [];
    app.handle(
      (command, args) =>
        new Promise((resolve) =>
          resolvers.push(() =>
            resolve({ call: { ...ringingCall, callId: `${command}:${JSON.stringify(args)}` } } as never),
          ),
        ),
    );
    const a = connection.send("hold", { callId: "a" });
    const b = connection.send("mute", { callId: "b" });
    const c = connection.send("answer", {});
    await until(() => resolvers.length === 3);
    resolvers.reverse().forEach((r) => r());
    expect(((await a) as CommandResult<"hold">).call.callId).toBe('hold:{"callId":"a"}');
    expect(((await b) as CommandResult<"mute">).call.callId).toBe('mute:{"callId":"b"}');
    expect(((await c) as CommandResult<"answer">).call.callId).toBe("answer:{}");
  });

  it("a failure is a typed error with the app's code and words", async () => {
    const { connection, app } = await connectPair();
    const { EmbedCommandError } = await import("./endpoint");
    app.handle(() => Promise.reject(new EmbedCommandError("refused", "no permission: agent not in queue")));
    const err = await connection.send("setStatus", { status: "ready" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentbarError);
    expect(err).toMatchObject({ code: "refused", message: "no permission: agent not in queue" });
  });

  it("a command the app never confirms times out on the host; one under way when the channel closes is disconnected", async () => {
    const { connection, app } = await connectPair({ commandTimeoutMs: 300 });
    app.handle(() => new Promise(() => {}));
    const slow = connection.send("hold", {});
    await expect(slow).rejects.toMatchObject({ code: "timeout" });
    const cut = connection.send("resume", {});
    connection.close();
    await expect(cut).rejects.toMatchObject({ code: "disconnected" });
    await expect(connection.send("resume", {})).rejects.toMatchObject({ code: "disconnected" });
  });

  it("more than the allowed number of commands under way are refused as busy, and done nothing", async () => {
    const { connection, app } = await connectPair();
    app.handle(() => new Promise(() => {}));
    for (let i = 0; i < MAX_COMMANDS_UNDER_WAY; i++) void connection.send("hold", {}).catch(() => {});
    await expect(connection.send("dial", { number: "1002" })).rejects.toMatchObject({ code: "busy" });
    expect(app.runs.filter((r) => r.command === "dial")).toEqual([]);
  });
});

describe("liveness", () => {
  const hello = (version: number) => ({
    type: "hello" as const,
    version,
    appVersion: "0.1.0",
    scopes: [],
    state: sampleSnapshot,
  });
  /** A port whose app never answers again (its frame crashed or hangs). */
  const silentPort = () => {
    const sent: unknown[] = [];
    const port: PortLike = { postMessage: (m) => void sent.push(m), onmessage: null, close: () => undefined };
    return { port, sent };
  };

  it("an app that stops answering the heartbeat is reported within 3.5 s, and the command under way rejects at once with disconnected", async () => {
    vi.useFakeTimers();
    try {
      const { port, sent } = silentPort();
      const lost: number[] = [];
      const start = Date.now();
      const connection = new Connection(
        port,
        hello(2),
        60_000,
        () => undefined,
        () => void lost.push(Date.now() - start),
      );
      const pending = connection.send("getState", {}).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(3000);
      expect(lost).toEqual([]);
      await vi.advanceTimersByTimeAsync(500);
      expect(lost).toEqual([3500]);
      expect(await pending).toMatchObject({ name: "AgentbarError", code: "disconnected" });
      // One ping, left unanswered: no flood of pings to a dead frame.
      expect(sent.filter((m) => (m as { type: string }).type === "ping")).toHaveLength(1);
      await expect(connection.send("getState", {})).rejects.toMatchObject({ code: "disconnected" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("an app that answers keeps the connection however long; an app of version 1 is sent no ping", async () => {
    vi.useFakeTimers();
    try {
      const lost: string[] = [];
      const alive = silentPort();
      const connection = new Connection(
        alive.port,
        hello(2),
        60_000,
        () => undefined,
        (r) => void lost.push(r),
      );
      alive.port.postMessage = (m) => {
        if ((m as { type: string }).type === "ping")
          queueMicrotask(() => alive.port.onmessage?.({ data: { type: "pong" } } as MessageEvent));
      };
      await vi.advanceTimersByTimeAsync(60_000);
      expect(lost).toEqual([]);
      connection.close();
      const old = silentPort();
      const old1 = new Connection(
        old.port,
        hello(1),
        60_000,
        () => undefined,
        (r) => void lost.push(r),
      );
      await vi.advanceTimersByTimeAsync(60_000);
      expect(old.sent).toEqual([]);
      expect(lost).toEqual([]);
      old1.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("the app answers a version-2 host's ping with pong at once; to a version-1 host a ping is an invalid message", async () => {
    for (const [versions, answer] of [
      [[1, 2], { type: "pong" }],
      [[1], { type: "event", event: "error" }],
    ] as const) {
      const win = appWindow();
      const stop = startEndpoint({
        window: win.window,
        config: configWith([{ origin: HOST_ORIGIN, scopes: ["status"] }]),
        app: fakeApp().app,
        appVersion: "0.1.0",
      });
      const channel = new MessageChannel();
      const received: { type: string }[] = [];
      channel.port1.onmessage = (e) => void received.push(e.data as { type: string });
      win.deliver({ type: "agentbar:connect", versions, instance: "ping" }, HOST_ORIGIN, win.parent, [channel.port2]);
      await until(() => received.some((m) => m.type === "hello"));
      channel.port1.postMessage({ type: "ping" });
      await until(() => received.length === 2);
      expect(received[1]).toMatchObject(answer);
      stop();
      channel.port1.close();
    }
  });
});

describe("scopes", () => {
  it("a command outside the origin's scopes is refused with not-permitted and never runs", async () => {
    const { connection, app, events } = await connectPair({ scopes: ["status", "caller-data"] });
    for (const [command, args] of [
      ["dial", { number: "1002" }],
      ["answer", {}],
      ["transfer", { destination: "1002" }],
      ["getDiagnostics", {}],
      ["getDiagnosticsFile", {}],
    ] as const) {
      await expect(connection.send(command, args as never), command).rejects.toMatchObject({ code: "not-permitted" });
    }
    expect(app.runs).toEqual([]);
    expect(events.filter((e) => e.event === "error")).toHaveLength(5);
    await expect(connection.send("setStatus", { status: "ready" })).resolves.toBeDefined();
    await expect(connection.send("getState", {})).resolves.toMatchObject({ agent: { status: "ready" } });
  });

  it("the diagnostics file, which holds who called, needs caller-data besides diagnostics", async () => {
    const without = await connectPair({ scopes: ["diagnostics"] });
    await expect(without.connection.send("getDiagnosticsFile", {})).rejects.toMatchObject({
      code: "not-permitted",
      message: expect.stringContaining("'caller-data'"),
    });
    await expect(without.connection.send("getDiagnostics", {})).resolves.toMatchObject({ appVersion: "0.1.0" });
    expect(without.app.runs.map((r) => r.command)).toEqual(["getDiagnostics"]);
    const both = await connectPair({ scopes: ["diagnostics", "caller-data"] });
    await expect(both.connection.send("getDiagnosticsFile", {})).resolves.toMatchObject({ type: "application/json" });
  });

  it("without caller-data a host sees that calls come and go, but not who calls nor the notes", async () => {
    const { connection, app, events } = await connectPair({ scopes: ["status"] });
    expect(connection.state.calls[0]).not.toHaveProperty("party");
    expect(connection.state.calls[0]?.callId).toBe("c1");
    expect(connection.state.wrapUp).not.toHaveProperty("notes");
    expect(connection.state.wrapUp).not.toHaveProperty("outcome");
    expect(connection.state.registration).toEqual({ state: "registered" });
    app.emit("call.ringing", { call: { ...ringingCall, callId: "c2" } });
    await until(() => events.some((e) => e.event === "call.ringing"));
    expect(events.find((e) => e.event === "call.ringing")?.data).toEqual({
      call: expect.not.objectContaining({ party: expect.anything() }),
    });
    const state = await connection.send("getState", {});
    expect(JSON.stringify(state)).not.toContain("Carla");
    expect(JSON.stringify(state)).not.toContain("Friday");
  });

  it("redacts by field name at any depth", () => {
    const value = { a: [{ party: 1, data: { "X-IVR-Account": "1" }, keep: { notes: "x", detail: "y" } }] };
    expect(redact(value, new Set(), 3)).toEqual({ a: [{ keep: {} }] });
    expect(redact(value, new Set(["caller-data", "diagnostics"]), 3)).toEqual(value);
    // An SDK of protocol 1 or 2 would refuse the field its schema does not know.
    expect(redact(value, new Set(["caller-data", "diagnostics"]), 2)).toEqual({
      a: [{ party: 1, keep: { notes: "x", detail: "y" } }],
    });
  });

  it("a call's data reaches a host with caller-data (protocol 3), never one without it or of an older protocol", async () => {
    const withData = await connectPair();
    expect(withData.connection.version).toBe(3);
    expect(withData.connection.state.calls[0]?.data).toEqual({ "X-IVR-Account": "12345", "X-IVR-Choice": "billing" });
    withData.app.emit("call.ringing", { call: { ...ringingCall, callId: "c2", data: { "X-IVR-Account": "777" } } });
    await until(() => withData.events.some((e) => e.event === "call.ringing"));
    expect(withData.events.find((e) => e.event === "call.ringing")?.data).toMatchObject({
      call: { callId: "c2", data: { "X-IVR-Account": "777" } },
    });

    for (const o of [{ scopes: ["status" as const] }, { versions: [1, 2] }]) {
      const { connection, app, events } = await connectPair(o);
      expect(connection.state.calls[0]).not.toHaveProperty("data");
      app.emit("call.ringing", { call: { ...ringingCall, callId: "c2" } });
      await until(() => events.some((e) => e.event === "call.ringing"));
      const seen = JSON.stringify([events, await connection.send("getState", {})]);
      expect(seen, JSON.stringify(o)).toContain('"callId":"c2"');
      expect(seen, JSON.stringify(o)).not.toContain("12345");
      expect(events.filter((e) => e.event === "protocol-error")).toEqual([]);
    }
  });
});

describe("destinations", () => {
  it("dial takes what the dial pad takes, cleaned up", async () => {
    const { connection, app } = await connectPair();
    await connection.send("dial", { number: "tel:+1 (555) 010-0200" });
    await connection.send("dial", { number: "sip:bob@example.com" });
    expect(app.runs.map((r) => r.args)).toEqual([{ number: "+15550100200" }, { number: "sip:bob@example.com" }]);
    await expect(connection.send("dial", { number: "call me" })).rejects.toMatchObject({ code: "invalid-destination" });
    await expect(connection.send("dial", { number: "+1+2" })).rejects.toMatchObject({ code: "invalid-destination" });
    expect(app.runs).toHaveLength(2);
  });

  it("the configured pattern limits dial and transfer; a transfer may name one of the agent's queues", async () => {
    const { connection, app } = await connectPair({ destinations: "\\+1555[0-9]{7}|1[0-9]{3}" });
    await connection.send("dial", { number: "+1 555 010 0200" });
    await connection.send("transfer", { destination: "1002" });
    await connection.send("transfer", { destination: "support" });
    for (const number of ["+449001234567", "900", "sip:bob@example.com", "+15550100200#"]) {
      await expect(connection.send("dial", { number }), number).rejects.toMatchObject({
        code: "destination-not-allowed",
      });
    }
    await expect(connection.send("transfer", { destination: "+86 10 1234 5678" })).rejects.toMatchObject({
      code: "destination-not-allowed",
    });
    await expect(connection.send("transfer", { destination: "sales" })).rejects.toMatchObject({
      code: "invalid-destination",
    });
    expect(app.runs.map((r) => r.args)).toEqual([
      { number: "+15550100200" },
      { destination: "1002" },
      { destination: "support" },
    ]);
  });
});

describe("events", () => {
  it("the host's state follows the events after the snapshot", async () => {
    const { connection, app } = await connectPair({ snapshot: { ...sampleSnapshot, calls: [], wrapUp: null } });
    const answered = { ...ringingCall, state: "connected" as const, answeredAt: ringingCall.startedAt + 4000 };
    app.emit("call.ringing", { call: ringingCall });
    app.emit("call.answered", { call: answered });
    await until(() => connection.state.calls[0]?.state === "connected");
    expect(connection.state.calls).toEqual([answered]);
    app.emit("call.ended", { call: { ...answered, state: "ended" }, cause: "NORMAL_CLEARING", hungUpBy: "remote" });
    app.emit("wrapup.started", { wrapUp: { callId: "c1", queue: "support", endsAt: 1 } });
    await until(() => connection.state.wrapUp !== null);
    expect(connection.state.calls).toEqual([]);
  });

  it("an event the app sends with a wrong shape is ignored by the host and reported as a protocol error", async () => {
    const { connection, app, events } = await connectPair();
    const before = connection.state;
    app.emit("agent", { agent: { status: "on-strike" } } as never);
    await until(() => events.some((e) => e.event === "protocol-error"));
    expect(connection.state).toBe(before);
    expect(events.some((e) => e.event === "agent")).toBe(false);
  });
});

// ---- Fuzzing ----

/** A small deterministic random source, so that a failure can be replayed. */
