import { Grammar } from "sip.js";
import { describe, expect, it } from "vitest";
import { displayNameForSip, displayNameFromSip } from "./display-name";
import { splitTopLevel } from "./header-values";
import { callerOf } from "./remote-party";

const parsed = (header: string) => {
  const h = Grammar.nameAddrHeaderParse(header);
  if (!h) throw new Error(`sip.js cannot parse ${header}`);
  return h;
};
const noHeaders = { headers: () => [] };

describe("display names", () => {
  it("cross sip.js as typed: quotes, backslashes, angle brackets, commas, Chinese, emoji", () => {
    for (const name of ['Anna "Annie" Smith', "C:\\Temp <x>", "张伟 😀", "Smith, John", "ends in \\", '"', "0"]) {
      const header = `"${displayNameForSip(name)}" <sip:1001@pbx.test>;tag=a`;
      expect(displayNameFromSip(parsed(header).displayName), header).toBe(name);
      expect(callerOf(noHeaders, parsed(header)).name).toBe(name);
    }
  });

  it("are one line: line breaks and other control characters become a space, never a header", () => {
    const name = 'x"<sip:a@b>\r\nCall-Info: <sip:a>;answer-after=0\r\nFrom: "y';
    expect(displayNameForSip(name)).toBe('x\\"<sip:a@b> Call-Info: <sip:a>;answer-after=0 From: \\"y');
    expect(displayNameForSip("\tAlice\u0000\u0085Agent\n")).toBe("Alice Agent");
    expect(displayNameFromSip("Alice\\\tAgent")).toBe("Alice Agent");
  });

  it("read any server's form: a token, a quoted name with escapes, P-Asserted-Identity with a tel: URI", () => {
    expect(callerOf(noHeaders, parsed("Anna Smith <sip:1001@pbx.test>")).name).toBe("Anna Smith");
    expect(callerOf(noHeaders, parsed('"Anna \\"Annie\\" Smith" <sip:1001@pbx.test>')).name).toBe('Anna "Annie" Smith');
    const asserted = {
      headers: (n: string) => (n === "P-Asserted-Identity" ? ['"C:\\\\Temp, \\"x\\"" <tel:+15551234>'] : []),
    };
    expect(callerOf(asserted, parsed("<sip:1001@pbx.test>"))).toMatchObject({
      number: "+15551234",
      name: 'C:\\Temp, "x"',
    });
  });

  it("end at their closing quote when a header lists several, also after an escaped backslash", () => {
    expect(splitTopLevel('"C:\\\\" <sip:a@b>, "x, y" <sip:c@d>')).toEqual(['"C:\\\\" <sip:a@b>', '"x, y" <sip:c@d>']);
  });
});
