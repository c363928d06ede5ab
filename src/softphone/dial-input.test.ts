import { describe, expect, it } from "vitest";
import { dialUri, parseDialInput, type DialTarget } from "./dial-input";

function number(input: string): string {
  const r = parseDialInput(input);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to parse, got ${JSON.stringify(r.problem)}`);
  if (r.target.kind !== "number") throw new Error(`expected a number, got ${JSON.stringify(r.target)}`);
  return r.target.number;
}

function problem(input: string) {
  const r = parseDialInput(input);
  if (r.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused, got ${JSON.stringify(r.target)}`);
  return r.problem;
}

describe("parseDialInput: numbers", () => {
  it.each([
    ["1001", "1001"],
    ["  1001  ", "1001"],
    ["+1 (201) 555-0123", "+12015550123"],
    ["+1.201.555.0123", "+12015550123"],
    ["030/1234567", "0301234567"],
    ["+44 (0)20 7946 0018", "+442079460018"],
    ["+49 (0) 30 1234567", "+49301234567"],
    ["0044 20 7946 0018", "00442079460018"],
    ["[+33] 1 23 45 67 89", "+33123456789"],
    ["*67 555 0100", "*675550100"],
    ["#31#", "#31#"],
    ["\u202A+1 555 0100\u202C", "+15550100"], // bidi marks copied from a web page
    ["+1\u00A0555\u2011555\u20130100", "+15555550100"], // no-break space, non-breaking and en dashes
    ["\uFF0B\uFF14\uFF14 \uFF12\uFF10", "+4420"], // full-width plus and digits
    ["\u0660\u0661\u0662", "012"], // Arabic-Indic digits
    ["tel:+1-201-555-0123", "+12015550123"],
    ["TEL:+1-201-555-0123;phone-context=example.com", "+12015550123"],
    ["tel://5550100", "5550100"],
    ["callto:+15550100", "+15550100"],
  ])("%j -> %s", (input, expected) => {
    expect(number(input)).toBe(expected);
  });

  it("refuses empty and separator-only input", () => {
    expect(problem("")).toEqual({ kind: "empty" });
    expect(problem("   ")).toEqual({ kind: "empty" });
    expect(problem("( ) -")).toEqual({ kind: "empty" });
    expect(problem("+")).toEqual({ kind: "empty" });
    expect(problem("tel:")).toEqual({ kind: "empty" });
  });

  it("refuses a plus that is not the first character", () => {
    expect(problem("1+555")).toEqual({ kind: "misplaced-plus" });
    expect(problem("++1555")).toEqual({ kind: "misplaced-plus" });
  });

  it("refuses letters and other garbage, naming the character", () => {
    expect(problem("1-800-FLOWERS")).toEqual({ kind: "letters" });
    expect(problem("call me")).toEqual({ kind: "letters" });
    expect(problem("555,0100")).toEqual({ kind: "invalid-character", character: "," });
    expect(problem("555_0100")).toEqual({ kind: "invalid-character", character: "_" });
    expect(problem("<script>")).toEqual({ kind: "invalid-character", character: "<" });
  });

  it("refuses pasted text longer than any dialable number", () => {
    expect(problem("1".repeat(33))).toEqual({ kind: "too-long", maxDigits: 32 });
    expect(number("1".repeat(32))).toBe("1".repeat(32));
  });
});

describe("parseDialInput: SIP addresses", () => {
  it("keeps a SIP URI, dropping URI headers", () => {
    const r = parseDialInput("sip:alice@example.com?subject=hi");
    expect(r).toEqual({
      ok: true,
      target: { kind: "sip", uri: "sip:alice@example.com", user: "alice", host: "example.com" },
    });
  });

  it("accepts user@host without a scheme", () => {
    const r = parseDialInput(" bob@pbx.example.com ");
    expect(r.ok && r.target).toEqual({
      kind: "sip",
      uri: "sip:bob@pbx.example.com",
      user: "bob",
      host: "pbx.example.com",
    });
  });

  it("normalises a number written with separators inside a SIP link", () => {
    const r = parseDialInput("sip:+1-555-0100@pbx.example.com;user=phone");
    expect(r.ok && r.target).toMatchObject({ kind: "sip", user: "+15550100", host: "pbx.example.com" });
    expect(r.ok && r.target.kind === "sip" && r.target.uri).toBe("sip:+15550100@pbx.example.com;user=phone");
  });

  it("refuses a broken SIP address", () => {
    expect(problem("sip:")).toEqual({ kind: "invalid-sip-address" });
    expect(problem("sip:@")).toEqual({ kind: "invalid-sip-address" });
    expect(problem("a@b@c")).toEqual({ kind: "invalid-sip-address" });
  });
});

describe("dialUri", () => {
  it("puts a number into the phone's domain and leaves SIP addresses alone", () => {
    const n: DialTarget = { kind: "number", number: "+15550100" };
    expect(dialUri(n, "pbx.test")).toBe("sip:+15550100@pbx.test");
    const s: DialTarget = { kind: "sip", uri: "sip:alice@example.com", user: "alice", host: "example.com" };
    expect(dialUri(s, "pbx.test")).toBe("sip:alice@example.com");
  });
});
