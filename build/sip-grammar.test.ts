import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PHONE_GRAMMAR_RULES, trimSipGrammar } from "./sip-grammar";

type Parse = (input: string, options?: { startRule?: string }) => unknown;
const grammarFile = join(dirname(createRequire(import.meta.url).resolve("sip.js")), "grammar/pegjs/dist/grammar.js");

/** Each kept rule, with inputs it accepts and inputs it must refuse (both parsers must agree on all). */
const cases: Record<(typeof PHONE_GRAMMAR_RULES)[number], string[]> = {
  Request_Response: [
    "INVITE sip:1001@example.com SIP/2.0",
    "REGISTER sip:example.com;transport=ws SIP/2.0",
    "SIP/2.0 200 OK",
    "SIP/2.0 183 Session Progress",
    "SIP/2.0 486 Busy Here",
    "NOTIFY sips:[2001:db8::1]:5061;lr SIP/2.0",
    "INVITE tel:+15551234 SIP/2.0",
    "INVITE sip:1001@example.com SIP/3.0",
    "SIP/2.0 20 OK",
    "INVITE  sip:1001@example.com SIP/2.0",
    "",
  ],
  Via: [
    "SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKnashds7",
    "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK776asdhds;received=192.0.2.9;rport=5062",
    "SIP/2.0/TCP [2001:db8::9]:5060;branch=z9hG4bK1, SIP/2.0/UDP pc.example.com;branch=z9hG4bK2",
    "SIP/2.0 host;branch=x",
    "SIP/2.0/UDP ;branch=z9hG4bK1",
  ],
  From: [
    '"Alice Smith" <sip:alice@example.com>;tag=1928301774',
    "<sip:1001@example.com;user=phone>;tag=abc",
    "sip:bob@example.com;tag=x",
    "<sip:alice@example.com",
    '"unterminated <sip:a@b>',
  ],
  To: ["<sip:1002@example.com>", '"Queue Sales" <sip:5000@example.com>;tag=as83kd', "Bob <sip:bob@example.com>", "<>"],
  Call_ID: ["a84b4c76e66710@pc33.example.com", "3848276298220188511@atlanta.example.com", "with space"],
  CSeq: ["314159 INVITE", "1 REGISTER", "2 BYE", "INVITE 1", "12"],
  Contact: [
    '<sip:df7jal23@df7jal23ls0d.invalid;transport=ws>;expires=600;+sip.instance="<urn:uuid:00000000-0000-4000-8000-000000000000>"',
    '"Mr. Watson" <sip:watson@worcester.example.com>;q=0.7, <mailto:watson@bell-telephone.com>;q=0.1',
    "*",
    "sip:1001@192.0.2.4:5060",
    "<sip:1001@example.com;gr=urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>",
    "<sip:1001@>",
    "<sip:a@b>;q=",
  ],
  Record_Route: [
    "<sip:p1.example.com;lr>, <sip:p2.example.com;lr;transport=ws>",
    "<sip:[2001:db8::1];lr>",
    "sip:p1.example.com;lr",
  ],
  Max_Forwards: ["70", "0", "abc", "-1"],
  Content_Length: ["0", "1234", "x"],
  Content_Type: [
    "application/sdp",
    "message/sipfrag;version=2.0",
    "multipart/mixed; boundary=unique-boundary-1",
    "application/",
    "text",
  ],
  Content_Disposition: ["session", "session;handling=required", "render;handling=optional", ";handling=required"],
  WWW_Authenticate: [
    'Digest realm="example.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", algorithm=MD5, qop="auth", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    'Digest realm="example.com", nonce="abc", stale=TRUE',
    'Basic realm="x"',
    "Digest",
  ],
  Proxy_Authenticate: [
    'Digest realm="atlanta.example.com", qop="auth,auth-int", nonce="f84f1cec41e6cbe5aea9c8e88d359"',
    'Digest realm="x" nonce="y"',
  ],
  Event: ["refer", "refer;id=93809824", "presence", "dialog;call-id=abc", ";id=1"],
  Refer_To: [
    "<sip:1003@example.com>",
    "<sip:1003@example.com?Replaces=abc%40host%3Bto-tag%3D1%3Bfrom-tag%3D2>",
    "sip:1003@example.com",
    '"Sales" <sip:5000@example.com;user=phone>',
    "<>",
  ],
  Replaces: [
    "425928@bobster.example.org;to-tag=7743;from-tag=6472",
    "425928@bobster.example.org;early-only;to-tag=1;from-tag=2",
    "abc",
    ";to-tag=1",
  ],
  Name_Addr_Header: [
    '"Agent One" <sip:1001@example.com>',
    "<sip:+15551234@example.com;user=phone>",
    "Alice <sip:alice@example.com>;party=calling",
    "sip:alice@example.com",
    "<sip:alice@example.com",
  ],
  SIP_URI: [
    "sip:1001@example.com",
    "sips:alice:secret@example.com:5061;transport=tls?subject=project",
    "sip:+15551234;phone-context=example.com@example.com;user=phone",
    "sip:[2001:db8::1]:5060",
    "sip:192.0.2.1",
    "sip:a@b c",
    "http://example.com",
    "sip:@example.com",
  ],
  absoluteURI: [
    "wss://sip.example.com:7443/sip",
    "ws://127.0.0.1:8080/sip",
    "wss://[2001:db8::1]/ws?x=1",
    "not a uri",
    "wss//x",
  ],
  uuid: [
    "00000000-0000-4000-8000-000000000000",
    "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    "f81d4fae7dec11d0a76500a0c91e6bf6",
    "zzzzzzzz-0000-4000-8000-000000000000",
  ],
};

let dir: string;
let original: Parse;
let trimmed: Parse;
beforeAll(async () => {
  const code = readFileSync(grammarFile, "utf8");
  dir = mkdtempSync(join(tmpdir(), "sip-grammar-"));
  // The copy imports sip.js's own URI and NameAddrHeader classes, as the original does.
  const out = trimSipGrammar(code, PHONE_GRAMMAR_RULES).replace(
    /from "(\.\.\/\.\.\/[\w.-]+)"/g,
    (_, rel: string) => `from ${JSON.stringify(pathToFileURL(join(dirname(grammarFile), rel)).href)}`,
  );
  writeFileSync(join(dir, "grammar.mjs"), out);
  original = ((await import(pathToFileURL(grammarFile).href)) as { parse: Parse }).parse;
  trimmed = ((await import(pathToFileURL(join(dir, "grammar.mjs")).href)) as { parse: Parse }).parse;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A parse's result, or where and how it refused (the trimmed grammar no longer says what it expected there). */
const outcome = (parse: Parse, input: string, startRule: string) => {
  try {
    return { ok: true, value: parse(input, { startRule }) };
  } catch (e) {
    const { name, found, location } = e as { name?: string; found?: unknown; location?: unknown };
    return name === "SyntaxError"
      ? { ok: false, name, found, location }
      : { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
};

describe("sip.js's grammar as the phone's build trims it", () => {
  it.each(PHONE_GRAMMAR_RULES)("parses %s exactly as sip.js does, and refuses what sip.js refuses", (rule) => {
    let accepted = 0;
    let refused = 0;
    for (const input of cases[rule]) {
      const want = outcome(original, input, rule);
      expect(outcome(trimmed, input, rule), `${rule}: ${input}`).toEqual(want);
      if (want.ok) accepted++;
      else refused++;
    }
    // Each rule's cases hold both kinds, so the comparison covers success and failure.
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it("no longer offers the rules the phone never parses from", () => {
    for (const rule of [
      "Session_Expires",
      "Min_SE",
      "Supported",
      "Require",
      "Referred_By",
      "Subscription_State",
      "stun_URI",
      "turn_URI",
      "sipfrag",
    ]) {
      expect(outcome(original, "x", rule)).not.toHaveProperty("error");
      expect(outcome(trimmed, "x", rule)).toEqual({ ok: false, error: `Can't start parsing from rule "${rule}".` });
    }
  });

  it("refuses a grammar that is not laid out as it expects", () => {
    expect(() => trimSipGrammar("export const parse = () => 0;", PHONE_GRAMMAR_RULES)).toThrow(
      /not laid out as expected/,
    );
    expect(() => trimSipGrammar(readFileSync(grammarFile, "utf8"), ["No_Such_Rule"])).toThrow(
      /no start rule No_Such_Rule/,
    );
  });
});
