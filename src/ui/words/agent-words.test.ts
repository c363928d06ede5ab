import { describe, expect, it } from "vitest";
import { PlatformError } from "../../api";
import {
  PHONE_UNREACHABLE_REASON,
  WRAP_UP_BREAK_REASON,
  commandError,
  commandErrorOf,
  initialAgentState,
  type AgentState,
} from "../../cc";
import { catalogues } from "../i18n/all";
import { errorText, phoneWatchText, statusLabel } from "./agent-words";

const en = catalogues.en;
const zh = catalogues["zh-CN"];

describe("the status in words", () => {
  it("names the break the toolbar sets during after-call work as after-call work, on the agent's bar and the supervisor's board", () => {
    expect(statusLabel({ status: "On Break", reason: WRAP_UP_BREAK_REASON }, en)).toBe("After-call work");
    expect(statusLabel({ status: "On Break", reason: WRAP_UP_BREAK_REASON }, zh)).toBe("话后处理");
    expect(statusLabel({ status: "On Break", reason: "Lunch" }, en)).toBe("On break · Lunch");
  });
});

describe("a failed command in words", () => {
  it("says a refusal in the platform's own words, and the rest by its kind in the UI language", () => {
    const refused = commandErrorOf(
      "ready",
      new PlatformError("platform", 200, 500, "agent 1001 is not signed in", "POST /api/cc/ccc/ccGoReady"),
      0,
    );
    expect(refused.kind).toBe("refused");
    expect(errorText(refused, en)).toBe("Could not go ready: agent 1001 is not signed in");
    expect(errorText(commandError("not-confirmed", "break", 0), en)).toBe(
      "Could not go on break: the platform did not confirm the change.",
    );
    expect(errorText(commandError("not-confirmed", "break", 0), zh)).toBe("无法示忙：平台未确认此更改。");
    expect(errorText(commandError("invalid-target", "consult", 0), zh)).not.toMatch(/[a-z]{4}/);
  });

  it("tells an unreachable platform from a refusal", () => {
    const lost = commandErrorOf(
      "hold",
      new PlatformError("network", 0, 0, "Failed to fetch", "POST /api/cc/ccc/ccHold"),
      0,
    );
    expect(lost.kind).toBe("unreachable");
    expect(errorText(lost, en)).toBe(
      "Could not hold the call: the platform did not answer. Check the connection and try again.",
    );
  });
});

describe("the phone's watch in words", () => {
  const agent = (status: string, reason = "") => ({
    number: "1001",
    status,
    state: "Waiting",
    callstate: "IDLE",
    reason,
    since: 0,
  });
  const state = (patch: Partial<AgentState>): AgentState => ({ ...initialAgentState(), ...patch });

  it("says the trouble, then the break once it is sent; woken, what happened", () => {
    const lost = state({ agent: agent("Available"), phoneWatch: { trouble: "lost", breakSetAt: 0, woke: null } });
    expect(phoneWatchText(lost, en)).toBe("Your phone is unreachable: calls cannot ring in this tab.");
    const onBreak = {
      ...lost,
      agent: agent("On Break", PHONE_UNREACHABLE_REASON),
      phoneWatch: { ...lost.phoneWatch, breakSetAt: 1 },
    };
    expect(phoneWatchText(onBreak, en)).toBe(
      "Your phone is unreachable: calls cannot ring in this tab. You were set On break · Phone unreachable.",
    );
    const woke = { ...onBreak, phoneWatch: { trouble: null, breakSetAt: 1, woke: { at: 2 } } };
    expect(phoneWatchText(woke, en)).toBe("This tab was asleep; you were set On break · Phone unreachable.");
    expect(phoneWatchText(woke, zh)).toBe("此标签页曾休眠；您已被设为示忙 · 电话无法接通。");
    // The break did not take (refused, or the agent was not Ready after all).
    expect(phoneWatchText({ ...woke, agent: agent("Available") }, en)).toBe(
      "This tab was asleep; calls could not ring in it meanwhile.",
    );
    expect(phoneWatchText(state({ agent: agent("Available") }), en)).toBe("");
    // Found On Break as the page started (a reload, another tab's break).
    const earlier = state({
      agent: agent("On Break", PHONE_UNREACHABLE_REASON),
      phoneWatch: { trouble: null, breakSetAt: 0, woke: { at: 1, earlier: true } },
    });
    expect(phoneWatchText(earlier, en)).toBe(
      "You were set On break · Phone unreachable while calls could not reach your phone; now they can.",
    );
  });

  it("in a tab that shows another tab's phone, speaks of that tab", () => {
    const asleep = state({
      agent: agent("On Break", PHONE_UNREACHABLE_REASON),
      phoneWatch: { trouble: "asleep", breakSetAt: 1, woke: null, elsewhere: true },
    });
    expect(phoneWatchText(asleep, en)).toBe(
      "The tab with your phone is asleep: calls cannot ring in it. You were set On break · Phone unreachable.",
    );
    const woke = { ...asleep, phoneWatch: { trouble: null, breakSetAt: 1, woke: { at: 2 }, elsewhere: true as const } };
    expect(phoneWatchText(woke, en)).toBe(
      "The tab with your phone was asleep; you were set On break · Phone unreachable.",
    );
    expect(phoneWatchText(woke, zh)).toBe("持有您电话的标签页曾休眠；您已被设为示忙 · 电话无法接通。");
  });

  it("degrades in words where the platform does not show the break's reason", () => {
    const noReason = state({ agent: agent("On Break"), phoneWatch: { trouble: null, breakSetAt: 1, woke: { at: 2 } } });
    expect(phoneWatchText(noReason, en)).toBe(
      "This tab was asleep; you were set On break · Phone unreachable. (The platform does not show the reason: Phone unreachable.)",
    );
  });

  it("the toolbar's own reason is said in the agent's language", () => {
    expect(statusLabel(agent("On Break", PHONE_UNREACHABLE_REASON), zh)).toBe("示忙 · 电话无法接通");
  });
});
