import { describe, expect, it } from "vitest";
import { decideAutoAnswer, detectAutoAnswer, isPlatformOriginated, type InviteHeaders } from "./auto-answer";

function invite(
  headers: Record<string, string[]>,
  ruriParams: Record<string, string | null> = {},
  vias = 1,
): InviteHeaders {
  const all: Record<string, string[]> = {
    via: Array.from({ length: vias }, (_, i) => `SIP/2.0/WSS h${i}.invalid;branch=z9hG4bK${i}`),
  };
  for (const [k, v] of Object.entries(headers)) all[k.toLowerCase()] = v;
  return {
    headers: (name) => all[name.toLowerCase()] ?? [],
    requestUriParam: (name) => (name in ruriParams ? ruriParams[name] : undefined),
  };
}

describe("detectAutoAnswer", () => {
  it.each([
    ["Call-Info answer-after=0 (FreeSWITCH)", { "Call-Info": ["<sip:10.0.0.1>;answer-after=0"] }, "call-info", 0],
    ["Call-Info answer-after=3", { "Call-Info": ["<sip:10.0.0.1>;answer-after=3"] }, "call-info", 3],
    [
      "Call-Info among several values",
      { "Call-Info": ["<http://x/photo.png>;purpose=icon", "<sip:pbx>;Answer-After = 2"] },
      "call-info",
      2,
    ],
    [
      "Alert-Info info=alert-autoanswer",
      { "Alert-Info": ["<http://www.notused.com>;info=alert-autoanswer;delay=0"] },
      "alert-info",
      0,
    ],
    ["Alert-Info with delay", { "Alert-Info": ["<http://x>;info=alert-autoanswer;delay=5"] }, "alert-info", 5],
    ["Alert-Info Auto Answer", { "Alert-Info": ["Auto Answer"] }, "alert-info", 0],
    ["Alert-Info Ring Answer", { "Alert-Info": ["Ring Answer"] }, "alert-info", 0],
    ["Alert-Info info=Auto-Answer", { "Alert-Info": ["<http://x>;info=Auto-Answer"] }, "alert-info", 0],
    ["Answer-Mode: Auto", { "Answer-Mode": ["Auto"] }, "answer-mode", 0],
    ["Answer-Mode: Auto;require", { "Answer-Mode": ["Auto;require"] }, "answer-mode", 0],
    ["P-Auto-Answer: normal", { "P-Auto-Answer": ["normal"] }, "p-auto-answer", 0],
  ] as const)("%s", (_name, headers, source, afterSec) => {
    const m = detectAutoAnswer(invite(headers as unknown as Record<string, string[]>));
    expect(m?.source).toBe(source);
    expect(m?.afterSec).toBe(afterSec);
  });

  it("reads intercom=true (and a bare intercom) from the Request-URI", () => {
    expect(detectAutoAnswer(invite({}, { intercom: "true" }))).toMatchObject({ source: "intercom", afterSec: 0 });
    expect(detectAutoAnswer(invite({}, { intercom: null }))).toMatchObject({ source: "intercom" });
    expect(detectAutoAnswer(invite({}, { intercom: "false" }))).toBeUndefined();
  });

  it("prefers the explicit Call-Info delay over the intercom flag that FreeSWITCH sends with it", () => {
    const m = detectAutoAnswer(invite({ "Call-Info": ["<sip:10.0.0.1>;answer-after=2"] }, { intercom: "true" }));
    expect(m).toMatchObject({ source: "call-info", afterSec: 2 });
  });

  it("ignores look-alikes and explicit refusals", () => {
    expect(detectAutoAnswer(invite({ "Call-Info": ["<http://x/photo.png>;purpose=icon"] }))).toBeUndefined();
    expect(detectAutoAnswer(invite({ "Alert-Info": ["<http://x/ring.wav>"] }))).toBeUndefined();
    expect(detectAutoAnswer(invite({ "Answer-Mode": ["Manual"] }))).toBeUndefined();
    expect(detectAutoAnswer(invite({ "P-Auto-Answer": ["false"] }))).toBeUndefined();
    expect(detectAutoAnswer(invite({}))).toBeUndefined();
  });

  it("caps absurd delays", () => {
    expect(detectAutoAnswer(invite({ "Call-Info": ["<sip:x>;answer-after=99999"] }))?.afterSec).toBe(60);
  });
});

describe("isPlatformOriginated", () => {
  it("is true for one Via (a leg originated by the server) and false for a relayed request", () => {
    expect(isPlatformOriginated(invite({}, {}, 1))).toBe(true);
    expect(isPlatformOriginated(invite({}, {}, 2))).toBe(false);
  });

  it("behind a proxy, trusts an originator that is not a WebSocket client (the media server) and refuses a browser phone", () => {
    const vias = (...v: string[]): InviteHeaders => ({
      headers: (n) => (n.toLowerCase() === "via" ? v : []),
      requestUriParam: () => undefined,
    });
    const proxy = "SIP/2.0/WSS 192.0.2.10:8443;branch=z9hG4bKp1";
    expect(isPlatformOriginated(vias(proxy, "SIP/2.0/UDP 10.0.0.5:5060;rport=5060;branch=z9hG4bKfs"))).toBe(true);
    expect(
      isPlatformOriginated(
        vias(proxy, "SIP/2.0/TCP 10.0.0.4;branch=z9hG4bKp2", "SIP/2.0/TLS 10.0.0.5:5061;branch=z9hG4bKfs"),
      ),
    ).toBe(true);
    expect(isPlatformOriginated(vias(proxy, "SIP/2.0/WSS k3b2.invalid;branch=z9hG4bKpeer"))).toBe(false);
    expect(
      isPlatformOriginated(
        vias(
          proxy,
          "SIP/2.0/UDP 10.0.0.4;branch=z9hG4bKp2",
          "sip/2.0/ws 0f9a.invalid;received=203.0.113.9;branch=z9hG4bKpeer",
        ),
      ),
    ).toBe(false);
    expect(isPlatformOriginated(vias())).toBe(false);
  });

  it("counts Vias folded into one header line", () => {
    const folded: InviteHeaders = {
      headers: (n) =>
        n.toLowerCase() === "via" ? ["SIP/2.0/WSS a;branch=z9hG4bK1, SIP/2.0/WSS b;branch=z9hG4bK2"] : [],
      requestUriParam: () => undefined,
    };
    expect(isPlatformOriginated(folded)).toBe(false);
  });
});

describe("decideAutoAnswer", () => {
  const marked = { "Call-Info": ["<sip:10.0.0.1>;answer-after=0"] };

  it("never answers an unmarked call, whatever the policy", () => {
    for (const policy of ["always", "platform", "never"] as const) {
      expect(decideAutoAnswer(policy, invite({}))).toEqual({ answer: false, reason: "no-marker" });
    }
  });

  it("'always' honours a marker from anyone", () => {
    expect(decideAutoAnswer("always", invite(marked, {}, 2))).toMatchObject({ answer: true, afterSec: 0 });
  });

  it("'platform' honours a marker only on a leg the server originated", () => {
    expect(decideAutoAnswer("platform", invite(marked, {}, 1))).toMatchObject({ answer: true });
    expect(decideAutoAnswer("platform", invite(marked, {}, 2))).toMatchObject({
      answer: false,
      reason: "not-from-platform",
    });
  });

  it("'never' lets marked calls ring", () => {
    expect(decideAutoAnswer("never", invite(marked))).toMatchObject({ answer: false, reason: "policy-never" });
  });

  it("lets a call ring whose request says it twice, in two ways: two answer-after values are not one request", () => {
    const twice: Array<Record<string, string[]>> = [
      { "Call-Info": ["<sip:10.0.0.1>;answer-after=0", "<sip:a>;answer-after=0"] },
      { "Call-Info": ["<sip:10.0.0.1>;answer-after=5, <sip:a>;answer-after=0"] },
      { "Alert-Info": ["Auto Answer", "<http://x>;info=alert-autoanswer"] },
    ];
    for (const headers of twice)
      expect(decideAutoAnswer("always", invite(headers))).toMatchObject({ answer: false, reason: "ambiguous" });
    // One marker of each kind (FreeSWITCH's Call-Info with intercom=true) is one request.
    expect(decideAutoAnswer("platform", invite(marked, { intercom: "true" }))).toMatchObject({ answer: true });
  });
});
