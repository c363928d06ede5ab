import { Grammar } from "sip.js";
// The published parser, as sip.js ships it (its table decoded on every call).
import { parse as publishedParse } from "sip.js/lib/grammar/pegjs/dist/grammar.js";
import { describe, expect, it } from "vitest";
import { fastGrammarInstalled } from "./fast-grammar";

function published(input: string, startRule: string): unknown {
  const options: { startRule: string; data?: unknown } = { startRule };
  try {
    publishedParse(input, options);
  } catch {
    options.data = -1;
  }
  return options.data;
}

describe("sip.js's grammar with its rule table decoded once", () => {
  it("is what sip.js parses with", () => {
    expect(fastGrammarInstalled).toBe(true);
  });

  it("parses every kind of header as the published parser does, good and bad", () => {
    const cases: [string, string][] = [
      ["SIP/2.0/WSS 127.0.0.1:5066;branch=z9hG4bK776asdhds;rport=5066;received=10.0.0.1", "Via"],
      ['"Bench Caller" <sip:5550100@agentbar.local>;tag=1928301774', "From"],
      ["<sip:1001@agentbar.local;user=phone>;tag=a6c85cf", "To"],
      [
        '<sip:k3l9q2@df7jal23ls0d.invalid;transport=ws>;expires=600;+sip.ice;reg-id=1;+sip.instance="<urn:uuid:0d5e7c31-4a1b-4b3c-8f3a-1d2b3c4d5e6f>"',
        "Contact",
      ],
      ["314159 INVITE", "CSeq"],
      ["a84b4c76e66710@pc33.atlanta.example.com", "Call_ID"],
      ["application/sdp", "Content_Type"],
      ["1234", "Content_Length"],
      ["<sip:p1.example.com;lr>, <sip:p2.example.com;lr>", "Record_Route"],
      ["active;expires=60", "Subscription_State"],
      ["sip:alice@[2001:db8::10]:5060;transport=tcp", "SIP_URI"],
      ['Digest realm="agentbar.local", nonce="abc", algorithm=MD5, qop="auth"', "challenge"],
      ["INVITE sip:k3l9q2@df7jal23ls0d.invalid;transport=ws SIP/2.0", "Request_Response"],
      ["SIP/2.0 200 OK", "Request_Response"],
      ["<sip:1002@agentbar.local>;method=INVITE", "Refer_To"],
      ["talk", "Event"],
      ["SIP/2.0 180 Ringing", "sipfrag"],
      ["<sip:1001@agentbar.local", "Contact"],
      ["not a via", "Via"],
      ["", "CSeq"],
    ];
    let parsed = 0;
    for (const [input, rule] of cases) {
      const result = Grammar.parse(input, rule);
      expect(result, `${rule}: ${input}`).toEqual(published(input, rule));
      if (result !== -1) parsed++;
    }
    expect(parsed).toBe(cases.length - 3);
    expect(Grammar.parse("<sip:1001@agentbar.local", "Contact")).toBe(-1);
  });

  it("parses whole messages as before, one after another", () => {
    const uri = Grammar.URIParse("sip:1001@agentbar.local;transport=ws");
    expect(uri?.user).toBe("1001");
    expect(uri?.getParam("transport")).toBe("ws");
    const nameAddr = Grammar.nameAddrHeaderParse('"Agent One" <sip:1001@agentbar.local>;tag=x1');
    expect(nameAddr?.displayName).toBe("Agent One");
    expect(nameAddr?.getParam("tag")).toBe("x1");
    expect(Grammar.nameAddrHeaderParse("not <an address")).toBeUndefined();
  });
});
