import { afterEach, describe, expect, it } from "vitest";
import { COMMAND_ARGS, COMMAND_NAMES, checkCommand } from "./host/commands";
import { applyEvent } from "./host/connection";
import { COMMAND_RESULTS, EVENTS, snapshotInfo, type Snapshot } from "./host/protocol";
import { closeAll, connectPair, ringingCall, sampleSnapshot, until, validCommands } from "./test-support";

afterEach(closeAll);

/* Thousands of random and broken messages, both ways across the channel, seeded so that a failure repeats. */

function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  return { next, int, pick };
}

const KEYS = [
  "type",
  "id",
  "command",
  "args",
  "number",
  "callId",
  "destination",
  "status",
  "reason",
  "digits",
  "outcome",
  "notes",
  "done",
  "busy",
  "__proto__",
  "constructor",
  "platformUrl",
  "token",
  "re",
  "ok",
];
const STRINGS = [
  "",
  "command",
  "dial",
  "hold",
  "ready",
  "1002",
  "+15550100",
  "sip:a@b",
  "x".repeat(5000),
  "\u0000",
  "<script>",
  "__proto__",
  "NaN",
  "🙂",
];

function randomValue(r: ReturnType<typeof random>, depth = 0): unknown {
  switch (r.int(depth > 3 ? 6 : 10)) {
    case 0:
      return null;
    case 1:
      return r.pick([true, false]);
    case 2:
      return r.pick([0, -1, 1, 7, 2 ** 31, 2 ** 53, 1.5, NaN, Infinity, -0]);
    case 3:
      return r.pick(STRINGS);
    case 4:
      return undefined;
    case 5:
      return r.pick([new Date(0), new Map([["a", 1]]), new Uint8Array(3), 10n, /x/]);
    case 6:
    case 7: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--) o[r.pick(KEYS)] = randomValue(r, depth + 1);
      return o;
    }
    default:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
  }
}

/** A valid command with one thing wrong with it, chosen at random: invalid by construction. */
function brokenCommand(r: ReturnType<typeof random>, id: number): unknown {
  const command = r.pick(COMMAND_NAMES);
  const args: Record<string, unknown> = { ...validCommands[command] };
  const m: Record<string, unknown> = { type: "command", id, command, args };
  switch (r.int(8)) {
    case 0: // an unknown field at the top or in the arguments
      (r.next() < 0.5 ? m : args)[r.pick(["token", "platformUrl", "x", "sipUrl", "autoAnswer"])] = randomValue(r);
      break;
    case 1: {
      // a required field missing
      const required = ["type", "id", "command", "args"];
      delete m[r.pick(required)];
      break;
    }
    case 2: // a field of the wrong type
      m[r.pick(["type", "id", "command", "args"])] = r.pick([null, "x", [], true, -1]);
      break;
    case 3: // an argument of the wrong type
      if (Object.keys(args).length === 0) args.callId = r.pick([null, 5, {}, [], true]);
      else args[r.pick(Object.keys(args))] = r.pick([null, 5.5, {}, [], "x".repeat(5000)]);
      break;
    case 4: // a command that does not exist
      m.command = r.pick(["setSettings", "setPlatform", "Dial", "eval", "", "constructor", "__proto__"]);
      break;
    case 5: // an id out of range
      m.id = r.pick([0, -3, 1.5, 2 ** 31, NaN]);
      break;
    case 6: // not a plain object where one is expected
      m.args = r.pick([new Date(0), new Map(), [args], "args"]);
      break;
    default: // a missing required argument, or the envelope's type changed
      if (command === "dial") delete args.number;
      else m.type = r.pick(["reply", "event", "Command", "agentbar:connect"]);
  }
  return m;
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v));
  } catch {
    // An object whose prototype a key named __proto__ replaced, say.
    return Object.prototype.toString.call(value);
  }
}

describe("fuzzed messages", () => {
  it("thousands of broken or random shapes crash nothing, run nothing and change nothing", async () => {
    const { connection, app, events } = await connectPair();
    const r = random(20261125);
    const stateBefore = JSON.stringify(app.app.snapshot());
    const port = (connection as unknown as { port: MessagePort }).port;
    let sent = 0;
    for (let i = 0; i < 4000; i++) {
      const message = i % 2 ? brokenCommand(r, 1000 + i) : randomValue(r);
      if (checkCommand(message).ok) expect.fail(`accepted: ${show(message)}`);
      try {
        port.postMessage(message);
        sent++;
      } catch {
        // Not cloneable (none of our shapes should be); the browser would refuse it too.
      }
    }
    await until(() => events.filter((e) => e.event === "error").length === sent);
    expect(app.runs).toEqual([]);
    expect(app.tokens).toEqual([]);
    expect(JSON.stringify(app.app.snapshot())).toBe(stateBefore);
    for (const e of events.filter((x) => x.event === "error"))
      expect(e.data).toMatchObject({ error: { code: "invalid-message" } });
    // The channel still works afterwards.
    await expect(connection.send("getState", {})).resolves.toMatchObject({ user: { login: "agent1" } });
  });

  it("random shapes from the app side leave the host's state and its commands under way alone", async () => {
    const { connection, app, events } = await connectPair();
    let release = () => {};
    app.handle(() => new Promise((resolve) => (release = () => resolve({ call: ringingCall } as never))));
    const under = connection.send("hold", {});
    await until(() => app.runs.length === 1);
    const before = connection.state;
    const r = random(7);
    const receive = (connection as unknown as { receive(d: unknown): void }).receive.bind(connection);
    for (let i = 0; i < 3000; i++) {
      const m = randomValue(r);
      // A reply with a result of the wrong shape for the command under way must not settle it.
      receive(
        i % 3 === 0
          ? { type: "reply", re: 1, ok: true, result: m }
          : i % 3 === 1
            ? { type: "event", event: r.pick(Object.keys(EVENTS)), data: m }
            : m,
      );
    }
    expect(connection.state).toBe(before);
    expect(events.filter((e) => e.event !== "protocol-error")).toEqual([]);
    release();
    await expect(under).resolves.toEqual({ call: ringingCall });
  });

  it("every command's arguments and results have a schema, and applying any event keeps a valid state", () => {
    expect(Object.keys(COMMAND_ARGS).sort()).toEqual(Object.keys(COMMAND_RESULTS).sort());
    let state: Snapshot = sampleSnapshot;
    state = applyEvent(state, "call.ended", { call: ringingCall, cause: "NORMAL_CLEARING", hungUpBy: "remote" });
    state = applyEvent(state, "wrapup.ended", { wrapUp: sampleSnapshot.wrapUp! });
    state = applyEvent(state, "session", { user: null });
    expect(snapshotInfo(state)).toBeUndefined();
    expect(state).toMatchObject({ calls: [], wrapUp: null, user: null });
  });
});
