import { afterEach, describe, expect, it } from "vitest";
import { callDataContext, callDataOf } from "./call-data";
import { CC } from "./queue-calls";
import { agentRig, invite } from "./test-support/agent-rig";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const dataOf = (headers: Record<string, string>, patterns: readonly string[]) =>
  callDataOf({ context: callDataContext(invite(headers), patterns) });

describe("a call's data", () => {
  it("is the headers the deployment lists, by name or prefix, as the server spelt them", () => {
    const headers = {
      Via: "SIP/2.0/WSS pbx.invalid",
      "X-IVR-Account": "12345",
      "x-ivr-choice": "billing",
      "X-CC-Agent-UUID": "leg-1",
      "User-to-User": "04fa;encoding=hex",
      "X-Other": "no",
    };
    expect(dataOf(headers, ["X-IVR-*"])).toEqual({ "X-IVR-Account": "12345", "x-ivr-choice": "billing" });
    expect(dataOf(headers, ["user-to-user", "X-IVR-Account"])).toEqual({
      "X-IVR-Account": "12345",
      "User-to-User": "04fa;encoding=hex",
    });
    expect(dataOf(headers, [])).toEqual({});
  });

  it("takes no more than a hostile INVITE should give: 32 headers, values of at most 1024 characters, never cut", () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-IVR-F${i}`, String(i)]));
    expect(Object.keys(dataOf(many, ["X-IVR-*"]))).toHaveLength(32);
    expect(dataOf({ "X-IVR-Long": "9".repeat(1025), "X-IVR-Fits": "8".repeat(1024) }, ["X-IVR-*"])).toEqual({
      "X-IVR-Fits": "8".repeat(1024),
    });
    expect(dataOf({ "X-IVR-Tab": "a\tb", "X-IVR-Blank": "  " }, ["X-IVR-*"])).toEqual({ "X-IVR-Tab": "a b" });
  });

  it("labels every call the phone gets, a queue call as well as one to a user in no queue", async () => {
    const t = agentRig(cleanups, { callDataHeaders: ["X-IVR-*"] });
    // Not signed in to the call center: the call is no queue call, and still has its data.
    expect(t.hooks.incoming!(invite({ "X-IVR-Account": "12345" }))).toEqual({
      context: { "data:X-IVR-Account": "12345" },
    });
    await t.working();
    const decision = t.hooks.incoming!(
      invite({ "X-CC-Action": "queue", "X-CC-Agent-UUID": "leg-1", "X-CC-Queue": "support", "X-IVR-Account": "777" }),
    );
    expect(decision?.context).toMatchObject({
      [CC.action]: "queue",
      [CC.queue]: "support",
      "data:X-IVR-Account": "777",
    });
    expect(t.hooks.incoming!(invite({ "X-Other": "1" }))).toBeUndefined();
  });
});
