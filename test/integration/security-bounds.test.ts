import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, DEMO_PASSWORD, TestPlatform } from "./harness";
import { RpcClient } from "./rpc-client";

/**
 * Bounded everything: numbers and texts a client sends have limits that get a 400 naming the
 * field (not a 500 from the database), and the event channel's rate limit counts every message,
 * those in batches too.
 */
let p: TestPlatform;
let admin: string;
const clients: RpcClient[] = [];

beforeAll(async () => {
  p = await TestPlatform.start({ rpcLoginSeconds: 1 });
  admin = await p.token("admin");
});
afterAll(async () => {
  for (const c of clients) c.close();
  await p.close();
});

describe("paging and numbers in queries", () => {
  const PAGED: Record<string, string[]> = {
    "/api/users": ["page", "perPage"],
    "/api/cdrs": ["page", "perPage", "startBillsec", "endBillsec", "groupValue", "last"],
    "/api/cdrs/records": ["page", "perPage"],
    "/api/media_files": ["page", "perPage"],
  };

  it("answers 400 naming the field for page=1e300 and other numbers out of range, on every paged list", async () => {
    const wrong: string[] = [];
    for (const [path, fields] of Object.entries(PAGED)) {
      for (const field of fields) {
        for (const value of [
          "1e300",
          "9007199254740993",
          "99999999999",
          "1.5",
          "NaN",
          ...(field === "groupValue" ? [] : ["-1"]),
        ]) {
          const res = await p.call<{ text: string }>("GET", `${path}?${field}=${value}`, { token: admin });
          if (res.status !== 400 || !res.body.text.includes(`'${field}'`))
            wrong.push(`${path}?${field}=${value} -> ${res.status} ${res.text}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("still pages past the last row with an empty page", async () => {
    const res = await p.call<{ data: unknown[]; page: number }>("GET", "/api/users?page=100000&perPage=1000", {
      token: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 100000, data: [] });
  });

  it("refuses texts longer than any the field can hold", async () => {
    const long = "a".repeat(5000);
    for (const path of [
      `/api/users?login=${long}`,
      `/api/users?name=${long}`,
      `/api/captchas?login=${long}`,
      `/api/media_files?uuid=${long}`,
    ]) {
      const res = await p.call("GET", path, { token: admin });
      expect(res.status, path.slice(0, 30)).toBe(400);
    }
    for (const body of [
      { login: long, password: DEMO_PASSWORD },
      { login: "agent1", password: long },
      { login: "agent1", password: "x", captcha_str: long },
    ]) {
      const res = await p.call<{ text: string }>("POST", "/api/sessions", { body });
      expect(res.status).toBe(400);
    }
    // Nothing was counted against agent1.
    expect(p.platform.ctx.users.byLogin("agent1")!.login_attempts).toBe(0);
  });
});

describe("the event channel's limits", () => {
  async function signedIn(): Promise<RpcClient> {
    const c = await RpcClient.connect(p.url);
    clients.push(c);
    expect((await c.login(await p.token("agent1"), `1001@${DEMO_DOMAIN}`)).result).toMatchObject({
      message: "logged in",
    });
    return c;
  }

  it("counts every message of a batch toward the rate limit", async () => {
    const c = await signedIn();
    const ids = Array.from({ length: 300 }, (_, i) => `b${i}`);
    const jsapi = (id: string) => ({
      jsonrpc: "2.0",
      id,
      method: "jsapi",
      params: { command: "lua", data: { method: "ccc", func: "ccGoBreak", data: { agent: "1001" } } },
    });
    // Fifteen batches of twenty, sent at once. A message beyond the allowance is refused in its
    // batch's answer; a frame that finds none left is refused whole, with one answer.
    for (let b = 0; b < 15; b++) c.raw(JSON.stringify(ids.slice(b * 20, b * 20 + 20).map(jsapi)));
    const byId = () => ids.flatMap((id) => c.stray.filter((m) => m.id === id));
    const framesRefused = () => c.stray.filter((m) => m.id === null && m.error?.code === -32005);
    await c.until(() => byId().length + 20 * framesRefused().length >= 300);
    const served = byId().filter((m) => m.result !== undefined);
    const limited = [...byId().filter((m) => m.error?.code === -32005), ...framesRefused()];
    expect(byId().length + 20 * framesRefused().length).toBe(300);
    // The burst allowance (100 messages, the login took one), and the little that refilled while
    // the frames came in.
    expect(served.length).toBeLessThanOrEqual(105);
    expect(framesRefused().length).toBeGreaterThanOrEqual(9);
    expect(limited[0]!.error!.message).toBe("Too many messages: slow down");
  });

  it("refuses a batch of more than 20 messages whole, with one answer, and runs none of it", async () => {
    const c = await signedIn();
    const ids = Array.from({ length: 21 }, (_, i) => `big${i}`);
    c.raw(JSON.stringify(ids.map((id) => ({ jsonrpc: "2.0", id, method: "echo", params: { id } }))));
    const refusal = await c.until(() => c.stray.find((m) => m.error?.code === -32600));
    expect(refusal.error!.message).toBe("Invalid Request: a batch may hold at most 20 messages, not 21");
    // The next request is answered, and nothing of the batch came before it.
    expect((await c.call("echo", { after: true })).result).toMatchObject({ after: true });
    expect(c.stray.filter((m) => ids.includes(String(m.id)))).toEqual([]);
  });

  it("gives a connection that has not logged in three refusals, then closes it", async () => {
    const c = await RpcClient.connect(p.url);
    clients.push(c);
    for (let i = 0; i < 6; i++) c.raw(JSON.stringify({ jsonrpc: "2.0", id: `x${i}`, method: "echo" }));
    await c.until(() => c.closed);
    expect(c.stray.map((m) => [m.id, m.error?.code])).toEqual([
      ["x0", -32000],
      ["x1", -32000],
      ["x2", -32000],
    ]);
  });

  it("closes a connection that does not log in within the time allowed", async () => {
    const c = await RpcClient.connect(p.url);
    clients.push(c);
    await c.until(() => c.closed);
    expect(c.closed).toBe(true);
  });
});
