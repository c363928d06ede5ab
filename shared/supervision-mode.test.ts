import { describe, expect, it } from "vitest";
import {
  EAVESDROP_KEYS,
  supervisionModeOfKey,
  supervisionModeOfWord,
  supervisionWordOf,
  type SupervisionMode,
} from "./supervision-mode";

const MODES: SupervisionMode[] = ["monitor", "whisper", "whisper-customer", "barge"];

describe("supervision modes at the wires", () => {
  it("each mode has its own eavesdrop key and comes back from it; other keys name none", () => {
    expect(MODES.map((m) => EAVESDROP_KEYS[m])).toEqual(["0", "2", "1", "3"]);
    expect(MODES.map((m) => supervisionModeOfKey(EAVESDROP_KEYS[m]))).toEqual(MODES);
    expect(["4", "*", "#", ""].map(supervisionModeOfKey)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("each mode has the platform's documented word and comes back from it; other words name none", () => {
    expect(MODES.map(supervisionWordOf)).toEqual(["listen", "whisper", "whisper-partner", "three-way"]);
    expect(MODES.map((m) => supervisionModeOfWord(supervisionWordOf(m)))).toEqual(MODES);
    expect(["monitor", "barge", "none", ""].map(supervisionModeOfWord)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
