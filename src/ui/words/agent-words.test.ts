import { describe, expect, it } from "vitest";
import { PlatformError } from "../../api";
import { commandError, commandErrorOf } from "../../cc";
import { catalogues } from "../i18n/all";
import { errorText } from "./agent-words";

const en = catalogues.en;
const zh = catalogues["zh-CN"];

describe("a failed command in words", () => {
  it("says a refusal in the platform's own words, and the rest by its kind in the UI language", () => {
    const refused = commandErrorOf("ready", new PlatformError("platform", 200, 500, "agent 1001 is not signed in", "POST /api/cc/ccc/ccGoReady"), 0);
    expect(refused.kind).toBe("refused");
    expect(errorText(refused, en)).toBe("Could not go ready: agent 1001 is not signed in");
    expect(errorText(commandError("not-confirmed", "break", 0), en)).toBe("Could not go on break: the platform did not confirm the change.");
    expect(errorText(commandError("not-confirmed", "break", 0), zh)).toBe("无法示忙：平台未确认此更改。");
    expect(errorText(commandError("invalid-target", "consult", 0), zh)).not.toMatch(/[a-z]{4}/);
  });

  it("tells an unreachable platform from a refusal", () => {
    const lost = commandErrorOf("hold", new PlatformError("network", 0, 0, "Failed to fetch", "POST /api/cc/ccc/ccHold"), 0);
    expect(lost.kind).toBe("unreachable");
    expect(errorText(lost, en)).toBe("Could not hold the call: the platform did not answer. Check the connection and try again.");
  });
});
