import { describe, expect, it } from "vitest";
import { initialsOf } from "./identity";

describe("initialsOf", () => {
  it("takes letters and digits, never the punctuation a name may hold", () => {
    expect(initialsOf("Alice Agent")).toBe("AA");
    expect(initialsOf('Anna "Annie" Smith')).toBe("AA");
    expect(initialsOf("C:\\Temp <x>")).toBe("CX");
    expect(initialsOf("张伟 😀")).toBe("张");
    expect(initialsOf("😀")).toBe("😀");
    expect(initialsOf("  ")).toBe("?");
  });
});
