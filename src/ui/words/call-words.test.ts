import { describe, expect, it } from "vitest";
import { catalogues } from "../i18n/all";
import { supervisedText } from "./call-words";

describe("a supervisor on the agent's call, in words", () => {
  it("says each mode in every language, and a word of the platform's it does not know as said", () => {
    for (const t of Object.values(catalogues)) {
      const said = (["monitor", "whisper", "whisper-customer", "barge"] as const).map((mode) =>
        supervisedText({ mode, by: "Sam" }, t),
      );
      expect(new Set(said).size).toBe(4);
      for (const s of said) expect(s).toContain("Sam");
      expect(supervisedText({ mode: "coach", by: "Sam" }, t)).toBe(t.agent.supervisedOther("Sam", "coach"));
    }
    expect(supervisedText({ mode: "monitor", by: "Sam" }, catalogues.en)).toBe("Sam is listening to this call");
  });
});
