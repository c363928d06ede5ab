import { describe, expect, it } from "vitest";
import { formatShortcut, matchesShortcut, parseShortcut, shortcutFromEvent } from "./shortcuts";

const key = (code: string, mods: Partial<Record<"ctrlKey" | "altKey" | "shiftKey" | "metaKey", boolean>> = {}) => ({
  code,
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  metaKey: false,
  ...mods,
});

describe("keyboard shortcuts", () => {
  it("parses, formats and matches modifier combinations", () => {
    const s = parseShortcut("ctrl+shift+h")!;
    expect(s).toEqual({ ctrl: true, alt: false, shift: true, meta: false, code: "KeyH" });
    expect(formatShortcut(s)).toBe("Ctrl+Shift+H");
    expect(matchesShortcut(s, key("KeyH", { ctrlKey: true, shiftKey: true }))).toBe(true);
    expect(matchesShortcut(s, key("KeyH", { ctrlKey: true }))).toBe(false);
    expect(parseShortcut("F8")).toMatchObject({ code: "F8" });
  });

  it("refuses what would fire while typing, and what is not a key", () => {
    expect(parseShortcut("A")).toBeUndefined();
    expect(parseShortcut("Shift+1")).toBeUndefined();
    expect(parseShortcut("Alt+Alt+A")).toBeUndefined();
    expect(parseShortcut("Hyper+A")).toBeUndefined();
    expect(parseShortcut("Alt+")).toBeUndefined();
  });

  it("records a key press as a shortcut", () => {
    expect(shortcutFromEvent(key("KeyR", { altKey: true }))).toBe("Alt+R");
    expect(shortcutFromEvent(key("AltLeft", { altKey: true }))).toBeUndefined();
    expect(shortcutFromEvent(key("KeyR"))).toBeUndefined();
  });
});
