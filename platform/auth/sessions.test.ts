import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defaultOptions } from "../config";
import { openDatabase, type Db } from "../store/db";
import { readDemoData, seedDemoData } from "../demo-data";
import { AuthError } from "./auth-error";
import { CaptchaService } from "./captcha";
import * as passwords from "./passwords";
import { AuthService } from "./sessions";

vi.mock("./passwords", async (original) => {
  const real = await original<typeof passwords>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});

/** Sign-in of a login that does not exist costs what a wrong password of one that does costs. */
describe("password sign-in of an unknown login", () => {
  let db: Db;
  let auth: AuthService;
  beforeAll(() => {
    db = openDatabase(":memory:", (fresh) => seedDemoData(fresh, readDemoData(defaultOptions.demoFile))).db;
    auth = new AuthService(db, { ...defaultOptions, captcha: false }, new CaptchaService());
  });
  afterAll(() => db.close());

  async function refusal(login: string): Promise<{ error: AuthError; checks: number }> {
    const verify = vi.mocked(passwords.verifyPassword);
    verify.mockClear();
    const error = await auth.login({ login, password: "Wrong@Pass99" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof AuthError)) throw new Error(`expected a refusal, got ${String(error)}`);
    return { error, checks: verify.mock.calls.length };
  }

  it("checks a password hash once, as for a known login, and refuses alike", async () => {
    const known = await refusal("agent1");
    const unknown = await refusal("nobody");
    expect(known.checks).toBe(1);
    expect(unknown.checks).toBe(1);
    // The hash checked for nobody is a real scrypt hash, as long to compute as a user's.
    const checked = vi.mocked(passwords.verifyPassword).mock.calls[0]![1];
    expect(checked).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect({ kind: unknown.error.kind, message: unknown.error.message, details: unknown.error.details }).toEqual({
      kind: known.error.kind,
      message: known.error.message,
      details: known.error.details,
    });
  });

  it("checks no hash for a locked login, known or not", async () => {
    for (const login of ["agent2", "nobody.else"]) {
      for (let i = 0; i < 5; i++) await refusal(login);
      const locked = await refusal(login);
      expect(locked.error.kind).toBe("locked");
      expect(locked.checks).toBe(0);
    }
  });
});
