import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PENDING_PER_LOGIN } from "../../platform/auth/captcha";
import { TestPlatform, type SessionJson } from "./harness";

const WRONG = "Wrong@Pass99";

/** A platform timestamp (local time, YYYY-MM-DD HH:MM:SS) as epoch milliseconds. */
function epochOf(ts: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(ts);
  if (!m) throw new Error(`not a platform timestamp: '${ts}'`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s).getTime();
}

describe("lock after 5 failed sign-ins (captcha option off)", () => {
  let p: TestPlatform;
  let admin: string;
  beforeAll(async () => {
    p = await TestPlatform.start({ captcha: false });
    admin = await p.token("admin");
  });
  afterAll(() => p.close());

  it("counts failures per user, never asks for a captcha, and locks for 2 hours at the fifth", async () => {
    for (let i = 1; i <= 4; i++) {
      const res = await p.signIn("agent1", WRONG);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 403, text: "Wrong username or password", attempts_left: 5 - i });
      expect(res.body).not.toHaveProperty("captcha_required");
    }
    // Another user's failures are their own.
    expect((await p.signIn("agent2")).status).toBe(200);

    const before = Date.now();
    const fifth = await p.signIn("agent1", WRONG);
    expect(fifth.status).toBe(403);
    expect(fifth.body).toMatchObject({ code: 403, locked: true, locked_until: expect.any(String) });
    const until = epochOf(fifth.body.locked_until!);
    // At least 2 hours, rounded up to the second the timestamp shows.
    expect(until).toBeGreaterThanOrEqual(before + 2 * 3600_000);
    expect(until).toBeLessThan(Date.now() + 2 * 3600_000 + 1000);

    const correct = await p.signIn("agent1");
    expect(correct.status).toBe(403);
    expect(correct.body).toMatchObject({ code: 403, locked: true, locked_until: fifth.body.locked_until });
    expect(correct.body).not.toHaveProperty("token");

    const record = await p.call<{ is_locked: number; login_attempts: number }>(
      "GET",
      `/api/users/${p.userId("agent1")}`,
      {
        token: admin,
      },
    );
    expect(record.body).toMatchObject({ is_locked: 1, login_attempts: 5 });
  });

  it("lets an administrator unlock the user by editing the record (is_locked 0)", async () => {
    const id = p.userId("agent1");
    expect((await p.signIn("agent1")).status).toBe(403);
    const unlock = await p.call("PUT", `/api/users/${id}`, { token: admin, body: { is_locked: 0 } });
    expect(unlock.status).toBe(200);
    expect(unlock.body).toEqual({ code: 200, message: "success", data: String(id) });
    const record = await p.call<{ is_locked: number; login_attempts: number }>("GET", `/api/users/${id}`, {
      token: admin,
    });
    expect(record.body).toMatchObject({ is_locked: 0, login_attempts: 0 });
    expect((await p.signIn("agent1")).status).toBe(200);
  });

  it("does not let a user unlock themselves", async () => {
    const token = await p.token("agent3");
    const res = await p.call("PUT", `/api/users/${p.userId("agent3")}`, { token, body: { is_locked: 0 } });
    expect(res.status).toBe(403);
  });

  it("counts guesses sent all at once one by one: the fifth locks, the rest find the user locked", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => p.signIn("supervisor", WRONG)));
    expect(answers.every((a) => a.status === 403)).toBe(true);
    expect(
      answers
        .map((a) => a.body.attempts_left)
        .filter((n) => n !== undefined)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(answers.filter((a) => a.body.locked)).toHaveLength(4);
    const record = await p.call<{ is_locked: number; login_attempts: number }>(
      "GET",
      `/api/users/${p.userId("supervisor")}`,
      { token: admin },
    );
    expect(record.body).toMatchObject({ is_locked: 1, login_attempts: 5 });
    expect((await p.signIn("supervisor")).body).toMatchObject({ locked: true });
  });

  it("starts counting again after a successful sign-in", async () => {
    for (let i = 0; i < 3; i++) expect((await p.signIn("agent4", WRONG)).status).toBe(403);
    expect((await p.signIn("agent4")).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const res = await p.signIn("agent4", WRONG);
      expect(res.body).toMatchObject({ attempts_left: 4 - i });
    }
    expect((await p.signIn("agent4")).status).toBe(200);
  });
});

describe("the lock ends by itself", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ captcha: false, lockSeconds: 1 });
  });
  afterAll(() => p.close());

  it("accepts the correct password once locked_until has passed", async () => {
    let last;
    for (let i = 0; i < 5; i++) last = await p.signIn("agent2", WRONG);
    expect(last!.body).toMatchObject({ locked: true });
    expect((await p.signIn("agent2")).status).toBe(403);
    p.clock.advance(Math.max(0, epochOf(last!.body.locked_until!) + 1100 - p.clock.now()));
    expect((await p.signIn("agent2")).status).toBe(200);
  });
});

describe("captcha after 2 failed sign-ins (captcha option on)", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await TestPlatform.start({ captcha: true });
  });
  afterAll(() => p.close());

  async function newCaptcha(login: string) {
    const res = await p.call<{ code: number; message: string; data: { captcha_id: number; pic_path: string } }>(
      "GET",
      `/api/captchas?login=${login}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: "success",
      data: { captcha_id: expect.any(Number), pic_path: expect.any(String) },
    });
    const pic = await p.call("GET", res.body.data.pic_path);
    expect(pic.status).toBe(200);
    expect(pic.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    // What a person reads in the picture; the platform tells it to tests in its own process only.
    const text = p.platform.ctx.captchas.answerOf(res.body.data.captcha_id)!;
    return { id: res.body.data.captcha_id, text, picture: pic.text };
  }

  it("asks for a captcha from the second failure on and accepts a sign-in that answers it", async () => {
    const first = await p.signIn("agent1", WRONG);
    expect(first.body).toMatchObject({ code: 403, attempts_left: 4 });
    expect(first.body).not.toHaveProperty("captcha_required");
    const second = await p.signIn("agent1", WRONG);
    expect(second.body).toMatchObject({ code: 403, attempts_left: 3, captcha_required: true });

    // Without the captcha even the right password is refused, and that is not one more failure.
    const bare = await p.signIn("agent1");
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ code: 403, captcha_required: true });
    expect(bare.body).not.toHaveProperty("token");

    const wrongAnswer = await newCaptcha("agent1");
    const mistaken = await p.signIn("agent1", undefined, {
      captcha_str: wrongAnswer.text === "AAAAA" ? "BBBBB" : "AAAAA",
    });
    expect(mistaken.status).toBe(403);
    expect(mistaken.body).toMatchObject({ captcha_required: true });

    const captcha = await newCaptcha("agent1");
    expect(captcha.text).toMatch(/^[A-Z0-9]{5}$/);
    const ok = await p.signIn("agent1", undefined, { captcha_str: captcha.text.toLowerCase() });
    expect(ok.status).toBe(200);
    expect((ok.body as SessionJson).token).toBeTruthy();

    // Success resets the count: the next failure needs no captcha.
    const after = await p.signIn("agent1", WRONG);
    expect(after.body).toMatchObject({ attempts_left: 4 });
    expect(after.body).not.toHaveProperty("captcha_required");
  });

  it("uses a captcha once", async () => {
    await p.signIn("agent2", WRONG);
    await p.signIn("agent2", WRONG);
    const captcha = await newCaptcha("agent2");
    const wrongPassword = await p.signIn("agent2", WRONG, { captcha_str: captcha.text });
    expect(wrongPassword.body).toMatchObject({ attempts_left: 2, captcha_required: true });
    const replay = await p.signIn("agent2", undefined, { captcha_str: captcha.text });
    expect(replay.status).toBe(403);
    expect((await p.call("GET", `/api/captchas/${captcha.id}`)).status).toBe(404);
  });

  it("locks at the fifth failure even with correct captchas", async () => {
    await p.signIn("agent3", WRONG);
    await p.signIn("agent3", WRONG);
    let last;
    for (let i = 3; i <= 5; i++) {
      const c = await newCaptcha("agent3");
      last = await p.signIn("agent3", WRONG, { captcha_str: c.text });
    }
    expect(last!.body).toMatchObject({ code: 403, locked: true });
    const c = await newCaptcha("agent3");
    const correct = await p.signIn("agent3", undefined, { captcha_str: c.text });
    expect(correct.status).toBe(403);
    expect(correct.body).toMatchObject({ locked: true });
  });

  it("draws the characters as strokes: the picture's source does not spell them", async () => {
    const captcha = await newCaptcha("nobody");
    expect(captcha.picture).toMatch(/^<svg [^>]*>.*<path d="M[\d. ML]+"/);
    expect(captcha.picture).not.toMatch(/<text|<tspan|font/i);
    expect(captcha.picture).not.toContain(captcha.text);
    for (const ch of captcha.text) expect(captcha.picture).not.toMatch(new RegExp(`>${ch}<`));
  });

  it("keeps a login's newest captchas: others asking for more, or answering wrongly, do not spoil the user's", async () => {
    await p.signIn("agent4", WRONG);
    await p.signIn("agent4", WRONG);
    const users = await newCaptcha("agent4");
    // Someone else asks for pictures for the same login and sends wrong answers.
    for (let i = 1; i < PENDING_PER_LOGIN; i++) await newCaptcha("agent4");
    const wrong = await p.signIn("agent4", WRONG, { captcha_str: users.text === "AAAAA" ? "BBBBB" : "AAAAA" });
    expect(wrong.body).toMatchObject({ text: "Wrong captcha", captcha_required: true });
    const ok = await p.signIn("agent4", undefined, { captcha_str: users.text });
    expect(ok.status).toBe(200);

    // The newest few are kept: a picture asked for before as many newer ones has gone.
    await p.signIn("agent4", WRONG);
    await p.signIn("agent4", WRONG);
    const old = await newCaptcha("agent4");
    const newer = [];
    for (let i = 0; i < PENDING_PER_LOGIN; i++) newer.push(await newCaptcha("agent4"));
    expect((await p.call("GET", `/api/captchas/${old.id}`)).status).toBe(404);
    expect((await p.signIn("agent4", undefined, { captcha_str: old.text })).body).toMatchObject({
      text: "Wrong captcha",
    });
    expect((await p.signIn("agent4", undefined, { captcha_str: newer[0]!.text })).status).toBe(200);
  });

  it("answers 404 for an unknown captcha picture and 400 for a non-numeric id", async () => {
    expect((await p.call("GET", "/api/captchas/99999")).status).toBe(404);
    const bad = await p.call<{ text: string }>("GET", "/api/captchas/abc");
    expect(bad.status).toBe(400);
    expect(bad.body.text).toContain("'id'");
  });
});
