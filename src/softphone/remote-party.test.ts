import { Grammar } from "sip.js";
import { describe, expect, it } from "vitest";
import { calleeOf, callerOf } from "./remote-party";

const from = (s: string) => {
  const h = Grammar.nameAddrHeaderParse(s);
  if (!h) throw new Error("bad test header " + s);
  return h;
};
const headers = (h: Record<string, string[]>) => ({ headers: (n: string) => h[n.toLowerCase()] ?? [] });

describe("callerOf", () => {
  it("takes name and number from From when nothing is asserted", () => {
    expect(callerOf(headers({}), from('"Alice Smith" <sip:1001@pbx.test>'))).toEqual({
      number: "1001",
      name: "Alice Smith",
      uri: "sip:1001@pbx.test",
      withheld: false,
    });
  });

  it("prefers P-Asserted-Identity, reading tel: URIs the grammar does not know", () => {
    const r = callerOf(
      headers({ "p-asserted-identity": ["<tel:+15551234>"] }),
      from('"Front desk" <sip:1001@pbx.test>'),
    );
    expect(r).toMatchObject({ number: "+15551234", name: "Front desk", uri: "tel:+15551234" });
    const s = callerOf(
      headers({ "p-asserted-identity": ['"Customer" <sip:+15559876@gw>, <tel:+15559876>'] }),
      from("<sip:x@pbx.test>"),
    );
    expect(s).toMatchObject({ number: "+15559876", name: "Customer" });
  });

  it("reads FreeSWITCH's Remote-Party-ID when there is no P-Asserted-Identity", () => {
    const r = callerOf(
      headers({ "remote-party-id": ['"Queue support" <sip:+15550100@10.0.0.1>;party=calling;screen=yes;privacy=off'] }),
      from("<sip:1000@pbx.test>"),
    );
    expect(r).toMatchObject({ number: "+15550100", name: "Queue support" });
  });

  it("marks anonymous callers and Privacy: id as withheld", () => {
    expect(callerOf(headers({}), from('"Anonymous" <sip:anonymous@anonymous.invalid>')).withheld).toBe(true);
    expect(callerOf(headers({ privacy: ["id"] }), from("<sip:1001@pbx.test>")).withheld).toBe(true);
    expect(callerOf(headers({ privacy: ["none"] }), from("<sip:1001@pbx.test>")).withheld).toBe(false);
  });
});

describe("calleeOf", () => {
  it("uses the asserted identity of the answering side when there is one", () => {
    expect(calleeOf(from("<sip:2000@pbx.test>"))).toMatchObject({ number: "2000" });
    expect(calleeOf(from("<sip:2000@pbx.test>"), from('"Sales" <sip:2001@pbx.test>'))).toMatchObject({
      number: "2001",
      name: "Sales",
    });
  });
});
