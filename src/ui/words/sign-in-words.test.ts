import { describe, expect, it } from "vitest";
import type { SignInErrorInfo } from "../../session";
import { catalogues } from "../i18n/all";
import { signInErrorText } from "./sign-in-words";

const now = new Date(2031, 4, 6, 9, 0).getTime();
const words = (error: SignInErrorInfo, language: "en" | "zh-CN" = "en") =>
  signInErrorText(error, catalogues[language], language, now);

describe("sign-in errors in words", () => {
  it("says what went wrong and what to do", () => {
    expect(words({ kind: "wrong-credentials", attemptsLeft: 3 })).toBe(
      "Wrong login name or password. 3 attempts left before the account is locked for 2 hours.",
    );
    expect(words({ kind: "wrong-credentials", attemptsLeft: null })).toBe(
      "Wrong login name or password. Check both and try again.",
    );
    expect(words({ kind: "captcha-required", wrongCaptcha: false })).toContain("type the characters in the picture");
    expect(words({ kind: "captcha-required", wrongCaptcha: true })).toContain("did not match the picture");
    expect(words({ kind: "disabled" })).toContain("disabled");
    expect(words({ kind: "unreachable", address: "https://pbx.example.com" })).toBe(
      "Cannot reach the platform at https://pbx.example.com. Check the platform address and your network connection.",
    );
    expect(words({ kind: "timeout", address: "https://pbx.example.com" })).toContain("did not answer in time");
    expect(words({ kind: "not-a-platform", address: "https://example.com" })).toContain("Check the platform address");
    expect(words({ kind: "other", message: "Internal Error", status: 500 })).toBe(
      "The platform refused the sign-in: Internal Error",
    );
  });

  it("gives the unlock time in the user's format, or the platform's text when it could not be read", () => {
    const until = new Date(2031, 4, 6, 14, 35).getTime();
    expect(words({ kind: "locked", until, untilText: "2031-05-06 14:35:00" })).toMatch(
      /Try again after 2:35\sPM, or ask/,
    );
    expect(words({ kind: "locked", until, untilText: "" }, "zh-CN")).toContain("请在 14:35 之后再试");
    expect(words({ kind: "locked", until: null, untilText: "tomorrow" })).toContain("Try again after tomorrow");
    expect(words({ kind: "locked", until: null, untilText: "" })).toContain("Try again later");
  });
});
