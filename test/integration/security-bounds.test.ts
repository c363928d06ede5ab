import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DOMAIN, DEMO_PASSWORD, TestPlatform } from "./harness";
import { RpcClient, type RpcMessage } from "./rpc-client";

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

  /** Sends one frame holding `n` requests and waits for the array that answers it. */
  async function batch(
    c: RpcClient,
    n: number,
    message: (i: number) => Record<string, unknown>,
  ): Promise<RpcMessage[]> {
    const ids = Array.from({ length: n }, (_, i) => `b${i}`);
    c.raw(JSON.stringify(ids.map((id, i) => ({ jsonrpc: "2.0", id, ...message(i) }))));
    await c.until(() => ids.every((id) => c.stray.some((m) => m.id === id)));
    return ids.map((id) => c.stray.find((m) => m.id === id)!);
  }

  it("counts every message of a batch toward the rate limit", async () => {
    const c = await signedIn();
    const jsapi = () => ({
      method: "jsapi",
      params: { command: "lua", data: { method: "ccc", func: "ccGoBreak", data: { agent: "1001" } } },
    });
    const answers = await batch(c, 300, jsapi);
    const limited = answers.filter((m) => m.error?.code === -32005);
    const served = answers.filter((m) => m.result !== undefined);
    expect(served.length + limited.length).toBe(300);
    // The burst allowance (100 messages, the login took one) and no more.
    expect(served.length).toBeLessThanOrEqual(100);
    expect(limited.length).toBeGreaterThanOrEqual(200);
    expect(limited[0]!.error!.message).toBe("Too many messages: slow down");
  });

  it("closes a connection that does not log in within the time allowed", async () => {
    const c = await RpcClient.connect(p.url);
    clients.push(c);
    await c.until(() => c.closed);
    expect(c.closed).toBe(true);
  });
});
