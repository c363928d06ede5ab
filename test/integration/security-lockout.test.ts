import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultOptions } from "../../platform/config";
import { TestPlatform, type ErrorJson } from "./harness";

/**
 * Account lockout as a weapon: with the spec's captcha on (the default), a stranger must answer
 * captchas before failures count toward the lock, so a few requests no longer lock anyone out,
 * the administrator included; and the answers for a login that does not exist look like those of
 * one that does, step by step, so guessing logins tells nothing.
 */
const WRONG = "Wrong@Pass99";
let p: TestPlatform;
let admin: string;

beforeAll(async () => {
  p = await TestPlatform.start();
  admin = await p.token("admin");
});
afterAll(() => p.close());

async function captchaFor(login: string): Promise<string> {
  const res = await p.call<{ data: { captcha_id: number } }>("GET", `/api/captchas?login=${encodeURIComponent(login)}`);
  return p.platform.ctx.captchas.answerOf(res.body.data.captcha_id)!;
}

/** An error body with the lock's time written as <time>, to compare two answers by their shape. */
function shapeOf(body: ErrorJson): ErrorJson {
  return JSON.parse(JSON.stringify(body).replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, "<time>")) as ErrorJson;
}

describe("the captcha is on by default", () => {
  it("is asked for after the second failure", async () => {
    expect(defaultOptions.captcha).toBe(true);
    await p.signIn("agent1", WRONG);
    const second = await p.signIn("agent1", WRONG);
    expect(second.body).toMatchObject({ code: 403, attempts_left: 3, captcha_required: true });
    expect((await p.signIn("agent1", undefined, { captcha_str: await captchaFor("agent1") })).status).toBe(200);
  });

  it("keeps a stranger without captchas from locking the administrator", async () => {
    for (let i = 0; i < 20; i++) expect((await p.signIn("admin", WRONG)).status).toBe(403);
    const row = p.platform.ctx.users.byLogin("admin")!;
    expect(row.is_locked).toBe(0);
    expect(row.login_attempts).toBe(2);
    const own = await p.signIn("admin", undefined, { captcha_str: await captchaFor("admin") });
    expect(own.status).toBe(200);
    expect((await p.call("GET", "/api/users/info", { token: admin })).status).toBe(200);
  });
});

describe("a login that does not exist", () => {
  /** The answers to the same sequence of sign-ins: failures, a missing and a wrong captcha, the lock. */
  async function story(login: string, password: string): Promise<ErrorJson[]> {
    const out: ErrorJson[] = [];
    const send = async (pass: string, captcha?: string) => {
      const res = await p.signIn(login, pass, captcha === undefined ? {} : { captcha_str: captcha });
      expect(res.status).toBe(403);
      expect(Object.keys(res.body)).not.toContain("token");
      out.push(shapeOf(res.body));
    };
    await send(WRONG);
    await send(WRONG);
    await send(WRONG);
    await send(WRONG, "ZZZZZ");
    for (let i = 3; i <= 5; i++) await send(WRONG, await captchaFor(login));
    await send(password, await captchaFor(login));
    return out;
  }

  it("is answered like one that does, at every step up to the lock", async () => {
    const known = await story("agent4", "Agentbar@2026");
    const unknown = await story("nobody.here", "Agentbar@2026");
    expect(unknown).toEqual(known);
    expect(known.map((b) => b.text)).toEqual([
      "Wrong username or password",
      "Wrong username or password",
      "Captcha required",
      "Wrong captcha",
      "Wrong username or password",
      "Wrong username or password",
      "User is locked until <time>",
      "User is locked until <time>",
    ]);
  });

  it("a disabled user's wrong password is answered like anyone's: only the right password learns it is disabled", async () => {
    const id = p.userId("agent3");
    expect((await p.call("PUT", `/api/users/${id}`, { token: admin, body: { disabled: 1 } })).status).toBe(200);
    const wrong = await p.signIn("agent3", WRONG);
    const stranger = await p.signIn("nobody.else", WRONG);
    expect(shapeOf(wrong.body)).toEqual(shapeOf(stranger.body));
    expect((await p.signIn("agent3")).body).toMatchObject({ code: 403, text: "User is disabled" });
  });
});
