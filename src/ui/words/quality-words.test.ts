import { describe, expect, it } from "vitest";
import type { CallQuality } from "../../softphone";
import { testCall } from "../../softphone/testing/test-call";
import { catalogues } from "../i18n/all";
import { announceQuality, qualityFigures, qualityMarkWords, qualityProblem } from "./quality-words";

const en = catalogues.en;
const zh = catalogues["zh-CN"];
const quality = (patch: Partial<CallQuality> = {}): CallQuality => ({
  mark: "good",
  rttMs: 24,
  jitterMs: 3,
  lossPercent: 0,
  mos: 4.4,
  warnings: [],
  ...patch,
});

describe("a call's quality in words", () => {
  it("lists the figures, in both languages", () => {
    expect(qualityFigures(quality({ lossPercent: 5.25 }), en)).toBe(
      "Round trip 24 ms, jitter 3 ms, packet loss 5.3 %, estimated MOS 4.4 of 5.",
    );
    expect(qualityFigures(quality(), zh)).toBe("往返时延 24 毫秒，抖动 3 毫秒，丢包 0.0%，估算 MOS 4.4（满分 5）。");
    expect(qualityFigures({ mark: "good", warnings: [] }, en)).toBe(".");
  });

  it("names the first problem warned about, with what to try", () => {
    expect(qualityProblem(quality(), en, 0)).toBe("");
    expect(
      qualityProblem(quality({ mark: "poor", warnings: ["loss", "mos"], lossPercent: 5.1, mos: 3.4 }), en, 0),
    ).toMatch(/^Packets are being lost \(5\.1 %\): .*network cable\.$/);
    expect(qualityProblem(quality({ mark: "poor", warnings: ["jitter"], jitterMs: 45 }), en, 0)).toContain(
      "jitter 45 ms",
    );
    expect(qualityProblem(quality({ mark: "poor", warnings: ["rtt"], rttMs: 620 }), en, 0)).toContain(
      "620 ms round trip",
    );
    expect(qualityProblem(quality({ mark: "poor", warnings: ["mos"], mos: 3.2 }), zh, 0)).toBe(
      "通话质量较低（估算 MOS 3.2）。如果没有好转，请回拨。",
    );
  });

  it("puts lost audio first: reconnecting while the restart runs, then lost for how long", () => {
    const since = 10_000;
    expect(
      qualityProblem(
        quality({
          mark: "poor",
          warnings: ["loss"],
          oneWayAudio: { reason: "no-packets", since, state: "restarting" },
        }),
        en,
        14_000,
      ),
    ).toBe("No sound is reaching you from the other side. Reconnecting the call's audio…");
    expect(
      qualityProblem(
        quality({ mark: "poor", oneWayAudio: { reason: "no-packets", since, state: "unresolved" } }),
        en,
        18_000,
      ),
    ).toMatch(
      /^You cannot hear the other side: no audio has reached you for 8 s, and reconnecting it did not help\. Ask them to call back/,
    );
    expect(
      qualityProblem(
        quality({ mark: "poor", oneWayAudio: { reason: "no-sound", since, state: "unresolved" } }),
        zh,
        17_000,
      ),
    ).toContain("静音");
  });

  it("announces a new problem once, not its figures changing, nor on an ended call", () => {
    const said: string[] = [];
    const say = (text: string) => said.push(text);
    const before = testCall({ state: "active", quality: quality() });
    const lossy = { ...before, quality: quality({ mark: "poor", warnings: ["loss"], lossPercent: 4 }) };
    announceQuality(lossy, before, en, say);
    announceQuality(
      { ...lossy, quality: quality({ mark: "poor", warnings: ["loss"], lossPercent: 6 }) },
      lossy,
      en,
      say,
    );
    announceQuality({ ...lossy, state: "ended" }, before, en, say);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Call with Bob: Packets are being lost \(4\.0 %\)/);
  });

  it("holds the mark's place as measuring until the first figures, named in both languages", () => {
    expect(qualityMarkWords(undefined, en, false, 0)).toEqual({
      mark: "measuring",
      shown: "…",
      label: "Call quality: measuring…",
      title: "Call quality: measuring…",
    });
    // In the bar only the bars show, as the mark's do without a problem: the same box.
    expect(qualityMarkWords(undefined, zh, true, 0)).toEqual({
      mark: "measuring",
      shown: "",
      label: "通话质量：检测中…",
      title: "通话质量：检测中…",
    });
    expect(qualityMarkWords(quality(), en, true, 0).shown).toBe("");
  });

  it("shows the mark's word outside the bar; in the bar a problem's name, and the problem in the tooltip", () => {
    const label = "Call quality: Good. Round trip 24 ms, jitter 3 ms, packet loss 0.0 %, estimated MOS 4.4 of 5.";
    expect(qualityMarkWords(quality(), en, false, 0)).toEqual({ mark: "good", shown: "Good", label, title: label });
    const lossy = qualityMarkWords(quality({ mark: "poor", warnings: ["loss"], lossPercent: 5 }), zh, true, 0);
    expect(lossy.mark).toBe("poor");
    expect(lossy.shown).toBe("丢包");
    expect(lossy.label).toMatch(/^通话质量：差。/);
    expect(lossy.title).toMatch(/^通话质量：差。.*\n正在丢包（5\.0%）/s);
  });
});
