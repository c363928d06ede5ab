import { describe, expect, it } from "vitest";
import { DEMO_DOMAIN } from "./harness";
import { RpcClient } from "./rpc-client";
import { sipFixture } from "./sip-fixture";

/**
 * The platform's `spec-minimal` profile (platform/profile.ts) offers only what the spec shows:
 * each of the full platform's additions is proven gone here, on the wire, while what the spec
 * does show still works (the call center's functions, agent_state's own fields, the captcha and
 * the lock). The full profile's additions are proven by the other files.
 */
const f = sipFixture({ profile: "spec-minimal" });

const WRONG = "Wrong@Pass99";
const SPEC_AGENT_STATE_FIELDS = ["agent_id", "agent_uuid", "callstate", "extn", "group_id", "queue_id", "state"];

async function cc(token: string, func: string, body: Record<string, unknown>) {
  return (await f.platform.call<Record<string, unknown>>("POST", `/api/cc/ccc/${func}`, { token, body })).body;
}

async function agentStates(token: string, queue = "support") {
  const res = await f.platform.call<Record<string, unknown>[]>("GET", `/api/cc/agent_state?queue=${queue}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

describe("spec-minimal profile", () => {
  it("refuses sign-ins with the spec's {code, text} alone, while the captcha and the lock still hold", async () => {
    const refusal = async (password: string, extra: Record<string, unknown> = {}) => {
      const res = await f.platform.signIn("agent3", password, extra);
      expect(res.status).toBe(403);
      expect(Object.keys(res.body).sort()).toEqual(["code", "text"]);
      return res.body.text;
    };
    const captcha = async () => {
      const res = await f.platform.call<{ data: { captcha_id: number } }>("GET", "/api/captchas?login=agent3");
      return f.ctx.captchas.answerOf(res.body.data.captcha_id)!;
    };
    expect(await refusal(WRONG)).toBe("Wrong username or password");
    expect(await refusal(WRONG)).toBe("Wrong username or password");
    // From the second failure on the captcha is required (the spec's rule): even the right password needs it.
    await refusal("Agentbar@2026");
    await refusal(WRONG, { captcha_str: "NOT-IT" });
    for (let failure = 3; failure <= 5; failure++) await refusal(WRONG, { captcha_str: await captcha() });
    expect(await refusal("Agentbar@2026", { captcha_str: await captcha() })).toMatch(/locked/i);
  });

  it("sends queue offers and click-to-dial legs without X-CC headers, answers agent_state with the spec's fields and ccDial without data, and keeps /ws quiet", async () => {
    const token = await f.platform.token("agent1");
    const events = await RpcClient.connect(f.platform.url);
    try {
      expect((await events.login(token, `1001@${DEMO_DOMAIN}`)).result).toMatchObject({ message: "logged in" });
      const channels = [
        "FSevent.custom::callcenter::info",
        "cc.agent.1001",
        "cc.queue.support",
        "FSevent.channel_create",
        "FSevent.channel_hangup",
      ];
      expect((await events.subscribe(...channels)).result).toMatchObject({ subscribedChannels: channels });

      // No list of a queue's waiting callers: that is the local platform's addition.
      expect((await f.platform.call("GET", "/api/cc/queue_members?queue=support", { token })).status).toBe(404);

      const alice = await f.phone("1001", 880);
      expect(await cc(token, "ccLogin", { agent: "1001", extn: "1001", queue: "support" })).toEqual({
        code: 200,
        message: "success",
      });
      // The call center's functions still run over jsapi, with the REST envelope.
      const ready = (await events.ccc("ccGoReady", { agent: "1001" })).result;
      expect(ready).toMatchObject({ code: 200, message: "success" });
      expect(ready).not.toHaveProperty("data");

      const customer = await f.sim<{ uuid: string }>("POST", "/sim/queue-callers", {
        queue: "support",
        callerIdNumber: "5550100",
        callerIdName: "Carla Customer",
        toneHz: 660,
      });
      expect(customer.status).toBe(201);
      const offer = await alice.incoming();
      expect(offer.header("from")).toMatch(/^"Carla Customer" <sip:5550100@/);
      expect(offer.headerNames().filter((h) => h.startsWith("x-"))).toEqual([]);
      const ringing = await agentStates(token);
      for (const record of ringing) expect(Object.keys(record).sort()).toEqual(SPEC_AGENT_STATE_FIELDS);
      const own = ringing.find((r) => r.agent_id === "1001")!;
      expect(own).toMatchObject({ state: "READY", callstate: "RINGING", group_id: "support" });
      // agent_uuid is the callID the spec's functions take.
      const callID = own.agent_uuid as string;
      expect(callID).toMatch(/^[0-9a-f-]{36}$/);

      await offer.answer();
      await offer.waitHears(660, "the agent hears the customer");
      expect(await cc(token, "ccHold", { callID })).toEqual({ code: 200, message: "success" });
      expect((await agentStates(token)).find((r) => r.agent_id === "1001")).toMatchObject({
        callstate: "HOLD",
        agent_uuid: callID,
      });
      expect(await cc(token, "ccUnHold", { callID })).toEqual({ code: 200, message: "success" });
      await offer.hangup();
      await cc(token, "ccGoBreak", { agent: "1001" });

      const dial = await cc(token, "ccDial", { agent: "1001", extn: "1001", destNumber: "55510700" });
      expect(dial).toEqual({ code: 200, message: "success" });
      const leg = await alice.incoming();
      expect(leg.headerNames().filter((h) => h.startsWith("x-"))).toEqual([]);
      // The auto-answer marker is FreeSWITCH's own (sip_auto_answer), not an addition.
      expect(leg.header("call-info")).toMatch(/answer-after=0/);
      await leg.answer();
      await leg.waitHears(700, "the agent hears the number dialled");
      await leg.hangup();

      // A call of the phone alone is none of the call center's: agent_state stays idle.
      const direct = alice.call("55510700");
      await direct.waitHears(700, "the agent hears the number it called");
      expect((await agentStates(token)).find((r) => r.agent_id === "1001")).toMatchObject({
        callstate: "IDLE",
        agent_uuid: "",
      });
      await direct.hangup();

      expect(events.received.filter((m) => m.method === "verto.event")).toEqual([]);
      expect(events.closed).toBe(false);
    } finally {
      events.close();
    }
  });
});
