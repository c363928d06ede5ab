import { describe, expect, it } from "vitest";
import { Grammar } from "sip.js";
import { partyOf } from "../../src/softphone/remote-party";
import { DEMO_DOMAIN } from "./harness";
import { sipFixture } from "./sip-fixture";
import { until } from "./sip-phone";
import { header, headers, nextInviteTurnedAway } from "./sip-raw";

/**
 * Names are data, never syntax: whatever a caller, an agent or the data calls itself, the phone
 * it rings gets one From header whose quoted display name reads back as the name, and no header
 * the name spelled. The ringing phones here are raw SIP clients, so what is checked is the text
 * on the wire, not what a parser made of it.
 */
const f = sipFixture({ simRingMs: 300 });

/** A caller's name that, written as it is, ends From and adds an auto-answer Call-Info. */
const INJECTION = 'x"<sip:a@b>\r\nCall-Info: <sip:a>;answer-after=0\r\nFrom: "y';
/** The same name as a display name may carry it: one line (each line break a space), escaped. */
const INJECTION_QUOTED = '"x\\"<sip:a@b> Call-Info: <sip:a>;answer-after=0 From: \\"y"';
const INJECTION_SHOWN = 'x"<sip:a@b> Call-Info: <sip:a>;answer-after=0 From: "y';

/** Names people have, each with how it is quoted on the wire. */
const NAMES = [
  { name: 'Anna "Annie" Smith', quoted: '"Anna \\"Annie\\" Smith"' },
  { name: "C:\\Temp <x>", quoted: '"C:\\\\Temp <x>"' },
  { name: "张伟 😀", quoted: '"张伟 😀"' },
];

const NO_CONTROL_CHARACTERS = (field: string) =>
  `field '${field}' must not contain control characters (line breaks, tabs)`;

/**
 * The INVITE has one From, written `quoted <sip:number@…>`, which a phone reads back as `shown`,
 * and no Call-Info (nothing here asks the phone to answer by itself).
 */
function expectFrom(invite: string, o: { quoted: string; number: string; shown: string }): void {
  expect(headers(invite, "from")).toHaveLength(1);
  expect(headers(invite, "call-info")).toEqual([]);
  const from = header(invite, "from")!;
  expect(from.startsWith(`${o.quoted} <sip:${o.number}@${DEMO_DOMAIN}>;tag=`), from).toBe(true);
  const parsed = Grammar.nameAddrHeaderParse(from);
  expect(parsed, from).toBeDefined();
  expect(partyOf(parsed!).name).toBe(o.shown);
}

async function token(login: string): Promise<string> {
  return f.platform.token(login);
}

describe("a caller's name in SIP", () => {
  it("/sim refuses a caller whose name holds line breaks, naming the field, and rings nobody with it", async () => {
    const bob = await f.rawPhone("1002");
    const call = await f.sim<{ text: string }>("POST", "/sim/calls", {
      destination: "1002",
      callerIdNumber: "5550101",
      callerIdName: INJECTION,
    });
    expect(call).toEqual({ status: 400, body: { code: 400, text: NO_CONTROL_CHARACTERS("callerIdName") } });
    const queued = await f.sim<{ text: string }>("POST", "/sim/queue-callers", {
      queue: "support",
      callerIdName: "Tab\tCustomer",
    });
    expect(queued).toEqual({ status: 400, body: { code: 400, text: NO_CONTROL_CHARACTERS("callerIdName") } });
    expect(f.ctx.sim.list(true).filter((c) => c.callerIdName === INJECTION)).toEqual([]);

    // The first INVITE the phone gets is the next caller's, whose name arrives as typed.
    const next = await f.sim("POST", "/sim/calls", {
      destination: "1002",
      callerIdNumber: "5550102",
      callerIdName: NAMES[0]!.name,
    });
    expect(next.status).toBe(200);
    expectFrom(await nextInviteTurnedAway(bob), { quoted: NAMES[0]!.quoted, number: "5550102", shown: NAMES[0]!.name });
  });

  it("a name already in the data reaches the phone as one escaped From: simulated callers, an extension's caller id", async () => {
    const bob = await f.rawPhone("1002");
    for (const { name, quoted } of [{ name: INJECTION, quoted: INJECTION_QUOTED }, ...NAMES]) {
      // Placed inside the platform, past the /sim route's check.
      f.ctx.sim.placeCall({ destination: "1002", callerIdNumber: "5550103", callerIdName: name, frequency: 0 });
      const shown = name === INJECTION ? INJECTION_SHOWN : name;
      expectFrom(await nextInviteTurnedAway(bob), { quoted, number: "5550103", shown });
    }

    const setCallerId = f.platform.db.prepare("UPDATE extensions SET cid_name = ? WHERE extn = '1001'");
    setCallerId.run(INJECTION);
    try {
      const alice = await f.phone("1001", 880);
      const call = alice.call("1002");
      expectFrom(await nextInviteTurnedAway(bob), { quoted: INJECTION_QUOTED, number: "1001", shown: INJECTION_SHOWN });
      await call.waitEnded();
      expect(call.finalStatus).toBe(486);
    } finally {
      setCallerId.run("Alice Agent");
    }
  });
});

describe("an agent's name in SIP", () => {
  it("a name or caller id with a line break is refused with a 400 naming the field, and nothing is stored", async () => {
    const agent1 = await token("agent1");
    const admin = await token("admin");
    const id = f.platform.userId("agent1");
    const before = f.platform.snapshot();
    const put = (body: Record<string, unknown>) =>
      f.platform.call<{ text: string }>("PUT", `/api/users/${id}`, { token: agent1, body });
    for (const [field, value] of [
      ["cid_name", "Alice\r\nCall-Info: <sip:a>;answer-after=0"],
      ["name", "Alice\nAgent"],
      ["cid_name", "Alice\u0000"],
      ["name", "Alice\u0085"],
    ] as const) {
      const res = await put({ [field]: value });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.body.text).toBe(NO_CONTROL_CHARACTERS(field));
    }
    const created = await f.platform.call<{ text: string }>("POST", "/api/users", {
      token: admin,
      body: { login: "tabby", name: "Tab\tby", password: "Tabby@2026x", extn: "1077", context: "default" },
    });
    expect(created.body.text).toBe(NO_CONTROL_CHARACTERS("name"));
    expect(f.platform.snapshot()).toEqual(before);
  });

  it("a name with quotes, backslashes, angle brackets, Chinese and emoji is kept exactly as typed", async () => {
    const agent1 = await token("agent1");
    const id = f.platform.userId("agent1");
    const name = NAMES.map((n) => n.name).join(" ");
    try {
      const res = await f.platform.call("PUT", `/api/users/${id}`, { token: agent1, body: { name, cid_name: name } });
      expect(res.status).toBe(200);
      const read = await f.platform.call<{ name: string; cid_name: string }>("GET", `/api/users/${id}`, {
        token: agent1,
      });
      expect(read.body).toMatchObject({ name, cid_name: name });
    } finally {
      f.platform.db.prepare("UPDATE users SET name = 'Alice Agent', cid_name = 'Alice Agent' WHERE id = ?").run(id);
    }
  });

  it("an agent's hostile name and caller id in the data reach a colleague's phone as one From: ccDial, ccConsult, ccThreeWay", async () => {
    const engine = () => f.platform.platform.callCenter.engine;
    const agent1 = await token("agent1");
    const cc = async (func: string, body: Record<string, unknown>) => {
      const res = await f.platform.call<{ code: number; data?: Record<string, string> }>(
        "POST",
        `/api/cc/ccc/${func}`,
        { token: agent1, body },
      );
      expect(res.body, func).toMatchObject({ code: 200 });
      return res.body.data;
    };
    const id = f.platform.userId("agent1");
    const NAME = 'Alice "Boss" \\ <sip:c@d>\nCall-Info: <sip:c>;answer-after=0';
    const NAME_QUOTED = '"Alice \\"Boss\\" \\\\ <sip:c@d> Call-Info: <sip:c>;answer-after=0"';
    const NAME_SHOWN = 'Alice "Boss" \\ <sip:c@d> Call-Info: <sip:c>;answer-after=0';
    f.platform.db.prepare("UPDATE users SET name = ?, cid_name = ? WHERE id = ?").run(NAME, INJECTION, id);
    try {
      const alice = await f.phone("1001", 880);
      alice.incomingPolicy = "answer";
      const bob = await f.rawPhone("1002");
      await cc("ccLogin", { agent: "1001", extn: "1001", queue: "support" });

      // ccDial to the colleague's number: the agent's phone answers its leg, then the colleague's rings.
      await cc("ccDial", { agent: "1001", extn: "1001", destNumber: "1002" });
      expectFrom(await nextInviteTurnedAway(bob), { quoted: INJECTION_QUOTED, number: "1001", shown: INJECTION_SHOWN });
      await until("the busy colleague ends the agent's call", () => engine().agent("1001")?.call === undefined);

      // A call with an outside number, in which the agent consults and then adds the colleague.
      const callID = (await cc("ccDial", { agent: "1001", extn: "1001", destNumber: "55511200" }))!.callID!;
      await until("the number answered", () => engine().agent("1001")?.call?.peer?.state === "answered");
      await until(
        "the agent talks to the number",
        () => f.ctx.switch.partnerOf(engine().agent("1001")!.call!.leg) !== undefined,
      );
      await cc("ccConsult", { agent: "1001", destAgent: "1002", callID });
      expectFrom(await nextInviteTurnedAway(bob), { quoted: INJECTION_QUOTED, number: "1001", shown: INJECTION_SHOWN });
      await until("the consultation ended", () => engine().agent("1001")?.call?.consult === undefined);
      await cc("ccThreeWay", { agent: "1001", destAgent: "1002", callID });
      expectFrom(await nextInviteTurnedAway(bob), { quoted: NAME_QUOTED, number: "1001", shown: NAME_SHOWN });
      await cc("ccKill", { destUUID: callID });
    } finally {
      f.platform.db.prepare("UPDATE users SET name = 'Alice Agent', cid_name = 'Alice Agent' WHERE id = ?").run(id);
    }
  });
});
