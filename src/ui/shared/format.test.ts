import { describe, expect, it } from "vitest";
import { formatMean } from "./format";

describe("a mean of durations as the board shows it", () => {
  it("is rounded to the second, as the day's export writes it, and says none as –", () => {
    // The export's asa_s for means of 3.4 s, 3.6 s and 59.5 s: 3, 4 and 60.
    expect([formatMean(3_400), formatMean(3_600), formatMean(59_500), formatMean(0), formatMean(null)]).toEqual([
      "0:03",
      "0:04",
      "1:00",
      "0:00",
      "–",
    ]);
  });
});
