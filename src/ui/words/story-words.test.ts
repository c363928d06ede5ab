import { describe, expect, it } from "vitest";
import type { CallerStory } from "../../cc";
import { catalogues } from "../i18n/all";
import { storyWords } from "./story-words";

const now = new Date(2031, 4, 6, 16, 0).getTime();
const story = (o: Partial<CallerStory>): CallerStory => ({
  number: "5550142",
  status: "ready",
  count: 0,
  more: false,
  last: null,
  ...o,
});

describe("the caller's story in words", () => {
  it("tells how often, when last, whether answered, and the kept outcome and notes, in both languages", () => {
    const told = story({
      count: 3,
      more: true,
      last: { at: new Date(2031, 4, 6, 14, 5).getTime(), answered: true, disposition: "Resolved", notes: "Refund" },
    });
    expect(storyWords(told, catalogues.en, "en", now)).toEqual({
      line: "Called 3+ times before · last 2:05 PM, answered",
      kept: "Outcome: Resolved · Notes: Refund",
    });
    expect(storyWords(told, catalogues["zh-CN"], "zh-CN", now).line).toBe("此前来电 3+ 次 · 最近一次 14:05，已接听");
    expect(
      storyWords(
        story({ count: 1, last: { at: now, answered: false, disposition: "", notes: "" } }),
        catalogues.en,
        "en",
        now,
      ),
    ).toEqual({
      line: "Called once before · last 4:00 PM, missed",
      kept: "",
    });
  });

  it("degrades in words: reading, slow, not available, none", () => {
    const en = catalogues.en;
    expect(storyWords(story({ status: "loading" }), en, "en").line).toBe("Looking for earlier calls…");
    expect(storyWords(story({ status: "slow" }), en, "en").line).toBe("Earlier calls are slow to come: still looking…");
    expect(storyWords(story({ status: "unavailable" }), en, "en").line).toBe("Earlier calls not available");
    expect(storyWords(story({ status: "unavailable" }), catalogues["zh-CN"], "zh-CN").line).toBe("以往来电不可用");
    expect(storyWords(story({}), en, "en").line).toBe("No earlier calls from this number");
  });
});
