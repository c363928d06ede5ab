import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WebSocket } from "ws";
import type { CcCaller } from "../cc/cc-caller";
import type { UserRow } from "../store/users";
import { RpcCode } from "./json-rpc";
import { DEFAULT_RPC_OPTIONS, VertoSession, type SessionHost } from "./verto-session";

/** A WebSocket as the session sees it: what was written, what the client left unread, how it ended. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: unknown[] = [];
  ended?: "closed" | "dropped";
  /** Whether the session stopped reading the socket, and each time it did. */
  paused = false;
  pauses = 0;

  pause(): void {
    this.paused = true;
    this.pauses++;
  }

  resume(): void {
    this.paused = false;
  }

  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }

  close(): void {
    this.end("closed");
  }

  terminate(): void {
    this.end("dropped");
  }

  /** A frame from the client; resolves once the session has dealt with it. */
  frame(message: unknown): Promise<void> {
    return this.frames([message]);
  }

  /** Frames arriving together (in one read of the socket). */
  async frames(messages: unknown[]): Promise<void> {
    for (const m of messages) this.emit("message", Buffer.from(typeof m === "string" ? m : JSON.stringify(m)), false);
    await new Promise((resolve) => setImmediate(resolve));
  }

  private end(how: "closed" | "dropped"): void {
    if (this.readyState !== 1) return;
    this.readyState = 3;
    this.ended = how;
    this.emit("close");
  }
}

const caller: CcCaller = { userId: 7, login: "agent1", role: "agent", agentNumber: "1001", extensions: ["1001"] };
const host: SessionHost = {
  authenticate: async (token) => (token === "good" ? { user: { id: 7, login: "agent1" } as UserRow } : undefined),
  callerFor: () => caller,
  viewerFor: (c) => ({ caller: c, queues: () => new Set(), queueExists: () => false, agentExists: () => true }),
  domain: () => "agentbar.local",
  runCc: async () => ({ code: 200, message: "success" }),
  claim: () => true,
  release: () => undefined,
  options: DEFAULT_RPC_OPTIONS,
};

const sessions: VertoSession[] = [];
function open(): { socket: FakeSocket; session: VertoSession } {
  const socket = new FakeSocket();
  const session = new VertoSession(socket as unknown as WebSocket, host);
  sessions.push(session);
  return { socket, session };
}
afterEach(() => {
  for (const s of sessions.splice(0)) s.close();
  vi.useRealTimers();
});

const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const login = (id = 1, token = "good") =>
  request(id, "login", { login: "1001@agentbar.local", passwd: "x", loginParams: { xui_sessid: token } });
const errorCode = (m: unknown) => (m as { error?: { code: number } }).error?.code;

describe("a socket that has not logged in", () => {
  it("gets three refusals, the socket dropped with the last, and nothing for what it sends after", async () => {
    const { socket } = open();
    for (let i = 1; i <= 5; i++) await socket.frame(request(i, "echo"));
    expect(socket.sent.map(errorCode)).toEqual([RpcCode.AUTH_REQUIRED, RpcCode.AUTH_REQUIRED, RpcCode.AUTH_REQUIRED]);
    expect(socket.ended).toBe("dropped");
  });

  it("runs no more of a batch once it has had its refusals", async () => {
    const { socket } = open();
    await socket.frame(Array.from({ length: 10 }, (_, i) => request(i, "verto.subscribe")));
    expect(socket.sent).toHaveLength(1);
    expect((socket.sent[0] as unknown[]).map(errorCode)).toEqual(Array(3).fill(RpcCode.AUTH_REQUIRED));
    expect(socket.ended).toBe("dropped");
  });

  it("has a frame over 8 KiB refused without reading it, and may still log in", async () => {
    const { socket } = open();
    await socket.frame(`[${Array(21_000).fill("{}").join(",")}]`);
    expect(socket.sent).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: RpcCode.INVALID_REQUEST,
          message: "Invalid Request: a frame may be at most 8192 bytes before login",
        },
      },
    ]);
    await socket.frame(login(2));
    expect(socket.sent).toContainEqual(
      expect.objectContaining({ id: 2, result: expect.objectContaining({ message: "logged in" }) }),
    );
    expect(socket.ended).toBeUndefined();
  });

  it("counts a failed login as a refusal", async () => {
    const { socket } = open();
    for (let i = 1; i <= 3; i++) await socket.frame(login(i, "wrong"));
    expect(socket.sent.map(errorCode)).toEqual(Array(3).fill(RpcCode.AUTH_FAILED));
    expect(socket.ended).toBe("dropped");
  });
});

describe("a signed-in socket", () => {
  async function signedIn() {
    const opened = open();
    await opened.socket.frame(login());
    expect(opened.socket.sent).toContainEqual(
      expect.objectContaining({ result: expect.objectContaining({ message: "logged in" }) }),
    );
    opened.socket.sent.length = 0;
    return opened;
  }

  it("has a batch of up to 20 run and a longer one refused whole with one answer, and stays open", async () => {
    const { socket } = await signedIn();
    await socket.frame(`[${Array(21_000).fill("{}").join(",")}]`);
    expect(socket.sent.splice(0)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: RpcCode.INVALID_REQUEST,
          message: "Invalid Request: a batch may hold at most 20 messages, not 21000",
        },
      },
    ]);
    await socket.frame(Array.from({ length: 20 }, (_, i) => request(i, "echo", { n: i })));
    await socket.frame(Array.from({ length: 21 }, (_, i) => request(i, "echo", { n: i })));
    for (let i = 1; i <= 5; i++) await socket.frame(request(100 + i, "nope"));
    const answers = socket.sent.filter((m) => (m as { method?: string }).method === undefined);
    expect(answers[0]).toHaveLength(20);
    expect(errorCode(answers[1])).toBe(RpcCode.INVALID_REQUEST);
    expect(answers.slice(2).map(errorCode)).toEqual(Array(5).fill(RpcCode.METHOD_NOT_FOUND));
    expect(socket.ended).toBeUndefined();
  });

  it("is dropped, unsent output and all, once its client leaves more than the budget unread", async () => {
    const { socket, session } = await signedIn();
    const before = socket.sent.length;
    session.publish("cc.agent.1001", "cc.agent.1001", { n: 1 });
    expect(socket.sent).toHaveLength(before + 1);
    socket.bufferedAmount = DEFAULT_RPC_OPTIONS.maxUnreadBytes + 1;
    session.publish("cc.agent.1001", "cc.agent.1001", { n: 2 });
    await socket.frame(request(9, "echo"));
    expect(socket.sent).toHaveLength(before + 1);
    expect(socket.ended).toBe("dropped");
  });

  it("is not read while it sends faster than it may, and read again once its allowance is back", async () => {
    // The allowances' clock stands still: nothing refills while the frames are dealt with.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { socket } = await signedIn();
    // 100 messages in a burst (the login took one), then 50 a second.
    await socket.frames(Array.from({ length: 150 }, (_, i) => request(i, "echo")));
    const refused = socket.sent.filter((m) => errorCode(m) === RpcCode.RATE_LIMITED);
    expect(refused).toHaveLength(51);
    expect(socket.pauses).toBe(1);
    expect(socket.paused).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(socket.paused).toBe(false);
    expect(socket.ended).toBeUndefined();
  });

  it("is not read while its frames outrun 64 KiB a second after a burst of 256 KiB", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { socket } = await signedIn();
    const big = JSON.stringify(request(1, "echo", { pad: "p".repeat(60 * 1024) }));
    await socket.frames(Array(5).fill(big));
    expect(socket.sent.filter((m) => errorCode(m) === RpcCode.RATE_LIMITED)).toHaveLength(1);
    expect(socket.pauses).toBe(1);
    expect(socket.paused).toBe(true);
  });
});
