import { describe, expect, it } from "vitest";
import { ALPHABET, drawCaptcha } from "./captcha";

const strokesIn = (svg: string) => svg.match(/<path /g)?.length ?? 0;

describe("captcha pictures", () => {
  it("draw every character a captcha may hold, as strokes over a few noise strokes", () => {
    const noise = strokesIn(drawCaptcha(""));
    expect(noise).toBeGreaterThan(0);
    for (const ch of ALPHABET) expect(strokesIn(drawCaptcha(ch)), ch).toBeGreaterThan(noise);
    expect(() => drawCaptcha("O")).toThrow("no 'O'");
  });
});
