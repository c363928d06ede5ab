import { describe, expect, it } from "vitest";
import { formatMoment } from "../shared/format";
import { catalogues } from "./all";
import { en } from "./en";
import { browserLanguages, chooseLanguage, languageOf } from "./language";

describe("language detection", () => {
  it("takes the first browser language we have", () => {
    expect(chooseLanguage("", ["zh-CN", "en-US"])).toBe("zh-CN");
    expect(chooseLanguage("", ["en-GB", "zh-CN"])).toBe("en");
    expect(chooseLanguage("", ["fr-FR", "zh", "en"])).toBe("zh-CN");
    expect(chooseLanguage("", ["de", "ZH-hans-cn"])).toBe("zh-CN");
  });

  it("gives every Chinese variant the Simplified Chinese catalogue", () => {
    for (const tag of ["zh", "zh-TW", "zh-HK", "zh-Hant", "zh-Hans-SG"]) expect(languageOf(tag)).toBe("zh-CN");
  });

  it("falls back to English", () => {
    expect(chooseLanguage("", ["fr-FR", "ja"])).toBe("en");
    expect(chooseLanguage("", [])).toBe("en");
    expect(languageOf("")).toBeUndefined();
    expect(languageOf("eng")).toBeUndefined();
  });

  it("the user's choice wins over the browser; an unknown choice does not", () => {
    expect(chooseLanguage("en", ["zh-CN"])).toBe("en");
    expect(chooseLanguage("zh-CN", ["en-US"])).toBe("zh-CN");
    expect(chooseLanguage("klingon", ["zh-CN"])).toBe("zh-CN");
  });

  it("reads navigator.languages, or navigator.language where the list is missing", () => {
    expect(browserLanguages({ language: "en-US", languages: ["zh-CN", "en-US"] })).toEqual(["zh-CN", "en-US"]);
    expect(browserLanguages({ language: "zh-TW", languages: [] })).toEqual(["zh-TW"]);
    expect(browserLanguages({ language: "" })).toEqual([]);
  });
});

describe("catalogues", () => {
  /** Every message, functions called with sample arguments, as "path: text". */
  function flatten(node: unknown, path = ""): [string, string][] {
    if (typeof node === "string") return [[path, node]];
    if (typeof node === "function") return [[path, String((node as (...a: unknown[]) => unknown)(2, 2))]];
    return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) => flatten(v, path ? `${path}.${k}` : k));
  }

  it("every language has every message, none empty", () => {
    // English comes in parts (en.ts, en-workspace.ts, en-panels.ts): the keys are compared, not their order.
    const keys = flatten(catalogues.en)
      .map(([k]) => k)
      .sort();
    for (const [language, messages] of Object.entries(catalogues)) {
      const entries = flatten(messages);
      expect(entries.map(([k]) => k).sort(), language).toEqual(keys);
      for (const [key, text] of entries) expect(text.trim(), `${language} ${key}`).not.toBe("");
    }
  });

  it("the Chinese catalogue is in Chinese", () => {
    expect(catalogues["zh-CN"].signIn.submit).toBe("登录");
    expect(catalogues["zh-CN"].shell.signOut).toBe("退出登录");
    expect(catalogues["zh-CN"].error.wrongCredentials(3, 2)).toBe("登录名或密码错误。再错 3 次，账号将被锁定 2 小时。");
  });

  it("English counts say attempt/attempts and hour/hours", () => {
    expect(en.error.wrongCredentials(1, 1)).toBe(
      "Wrong login name or password. 1 attempt left before the account is locked for 1 hour.",
    );
    expect(en.error.wrongCredentials(3, 2)).toBe(
      "Wrong login name or password. 3 attempts left before the account is locked for 2 hours.",
    );
  });
});

describe("moments in the user's language", () => {
  const now = new Date(2031, 4, 6, 9, 0).getTime();
  const sameDay = new Date(2031, 4, 6, 14, 35).getTime();
  const nextDay = new Date(2031, 4, 7, 1, 5).getTime();

  it("shows only the time for today, and the date otherwise", () => {
    expect(formatMoment(sameDay, "en", now)).toMatch(/^2:35\sPM$/);
    expect(formatMoment(nextDay, "en", now)).toMatch(/May 7, 2031.*1:05\sAM/);
  });

  it("in Chinese", () => {
    expect(formatMoment(sameDay, "zh-CN", now)).toBe("14:35");
    expect(formatMoment(nextDay, "zh-CN", now)).toMatch(/2031年5月7日.*01:05/);
  });
});
