import { afterEach, describe, expect, it } from "vitest";
import { sipFixture } from "./sip-fixture";
import { header, headers, nextInviteTurnedAway } from "./sip-raw";

/**
 * A caller's data (an IVR's input) is data, never syntax: a simulated caller's `data` reaches the
 * phone that rings as the same headers, one line each, and only headers a caller may name; /sim
 * refuses anything else with a 400 naming the field. The ringing phones are raw SIP clients, so
 * what is checked is the text on the wire.
 */
const f = sipFixture({ simRingMs: 300 });

afterEach(async () => {
  const admin = await f.platform.token("admin");
  await f.platform.call("POST", "/api/cc/ccc/ccLogout", { token: admin, body: { agent: "1001" } });
});

const DATA = { "X-IVR-Account": "12345", "X-IVR-Choice": "billing, then agent", "X-Order-Ref": "A-77 张伟" };

describe("a caller's data", () => {
  it("reaches the extension a /sim caller calls, and the agent a /sim queue caller is offered to, as its headers", async () => {
    const bob = await f.rawPhone("1002");
    const caller = await f.sim<{ uuid: string }>("POST", "/sim/calls", {
      destination: "1002",
      callerIdNumber: "5550101",
      data: DATA,
    });
    expect(caller.status).toBe(200);
    const direct = await nextInviteTurnedAway(bob);
    for (const [name, value] of Object.entries(DATA)) expect(headers(direct, name), name).toEqual([value]);
    // Kept as the caller leg's sip_h_ variables, which its call record shows as FreeSWITCH's does.
    expect((await f.cdr(caller.body.uuid)).variables).toMatchObject({ "sip_h_X-IVR-Account": "12345" });

    const alice = await f.rawPhone("1001");
    const token = await f.platform.token("agent1");
    for (const [func, body] of [
      ["ccLogin", { agent: "1001", extn: "1001", queue: "support" }],
      ["ccGoReady", { agent: "1001" }],
    ] as const)
      expect((await f.platform.call("POST", `/api/cc/ccc/${func}`, { token, body })).status, func).toBe(200);
    const queued = await f.sim("POST", "/sim/queue-callers", {
      queue: "support",
      callerIdNumber: "5550102",
      data: DATA,
    });
    expect(queued.status).toBe(201);
    const offered = await nextInviteTurnedAway(alice);
    expect(header(offered, "X-CC-Action")).toBe("queue");
    for (const [name, value] of Object.entries(DATA)) expect(headers(offered, name), name).toEqual([value]);
  });

  it("/sim refuses data that is not header names to one-line values, naming the field, and rings nobody", async () => {
    const bob = await f.rawPhone("1002");
    const refusals: [Record<string, unknown>, string][] = [
      [
        { "X-IVR-Note": "a\r\nCall-Info: <sip:a>;answer-after=0" },
        "field 'data.X-IVR-Note' must not contain control characters (line breaks, tabs)",
      ],
      [
        { "Call-Info": "<sip:a>;answer-after=0" },
        "field 'data': 'Call-Info' is not a header name starting with X- (letters, digits and hyphens)",
      ],
      [
        { "X-IVR Account": "1" },
        "field 'data': 'X-IVR Account' is not a header name starting with X- (letters, digits and hyphens)",
      ],
      [{ "X-CC-Agent-UUID": "x" }, "field 'data': 'X-CC-Agent-UUID' is the platform's own header (X-CC-, X-FS-)"],
      [
        { "X-IVR-A": "1", "x-ivr-a": "2" },
        "field 'data': 'x-ivr-a' is named twice (header names are compared without regard to case)",
      ],
      [{ "X-IVR-Long": "9".repeat(1025) }, ""],
      [{ "X-IVR-Number": 12345 }, ""],
      [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-IVR-F${i}`, "1"])), ""],
    ];
    for (const [data, text] of refusals) {
      for (const [path, body] of [
        ["/sim/calls", { destination: "1002", data }],
        ["/sim/queue-callers", { queue: "support", data }],
      ] as const) {
        const res = await f.sim<{ code: number; text: string }>("POST", path, body);
        expect(res.status, `${path} ${JSON.stringify(data).slice(0, 60)}`).toBe(400);
        expect(res.body.text).toContain(text || "data");
      }
    }
    // The first INVITE the phone gets is the next caller's, with its data as sent.
    expect((await f.sim("POST", "/sim/calls", { destination: "1002", data: { "X-IVR-Account": "1" } })).status).toBe(
      200,
    );
    expect(header(await nextInviteTurnedAway(bob), "X-IVR-Account")).toBe("1");
  });

  it("data past /sim's check is still written as data: one line, no header of the platform's", async () => {
    const bob = await f.rawPhone("1002");
    f.ctx.sim.placeCall({
      destination: "1002",
      callerIdNumber: "5550103",
      callerIdName: "Inside",
      frequency: 0,
      data: {
        "X-IVR-Note": "a\r\nCall-Info: <sip:a>;answer-after=0",
        "X-CC-Action": "intercept",
        "Call-Info": "<sip:a>;answer-after=0",
      },
    });
    const invite = await nextInviteTurnedAway(bob);
    expect(headers(invite, "X-IVR-Note")).toEqual(["a Call-Info: <sip:a>;answer-after=0"]);
    expect(headers(invite, "Call-Info")).toEqual([]);
    expect(headers(invite, "X-CC-Action")).toEqual([]);
  });
});
