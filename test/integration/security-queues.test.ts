import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeSwitch } from "../../platform/cc/testing/fake-switch";
import { DEMO_DOMAIN, TestPlatform } from "./harness";
import { RpcClient } from "./rpc-client";

/**
 * Queue membership is the platform's: an agent signs into the queues the platform lists for it
 * (GET /api/users/<id>/queue/name), no others, through REST and the event channel alike, so it
 * cannot read another queue's agents and callers by joining it.
 */
let p: TestPlatform;
const clients: RpcClient[] = [];

beforeAll(async () => {
  const sw = new FakeSwitch();
  for (const extn of ["1001", "1002", "1003", "1004", "1010"]) sw.registered.add(extn);
  p = await TestPlatform.start({}, { switch: sw });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await p.close();
});

async function cc(login: string, func: string, body: Record<string, unknown>) {
  return (
    await p.call<{ code: number; message: string }>("POST", `/api/cc/ccc/${func}`, {
      token: await p.token(login),
      body,
    })
  ).body;
}

describe("ccLogin", () => {
  it("signs an agent into the queues listed for it and refuses the others, REST and jsapi alike", async () => {
    const token = await p.token("agent1");
    const listed = await p.call<{ name: string }[]>("GET", `/api/users/${p.userId("agent1")}/queue/name`, { token });
    expect(listed.body.map((q) => q.name)).toEqual(["support"]);

    const refused = await cc("agent1", "ccLogin", { agent: "1001", extn: "1001", queue: "sales" });
    expect(refused).toEqual({ code: 403, message: "no permission: queue sales does not list agent 1001" });
    const c = await RpcClient.connect(p.url);
    clients.push(c);
    await c.login(token, `1001@${DEMO_DOMAIN}`);
    expect((await c.ccc("ccLogin", { agent: "1001", extn: "1001", queue: "sales" })).result).toMatchObject({
      code: 403,
    });

    // Nothing changed: agent1 is not in sales, and sales stays closed to it.
    const state = await p.call<{ code: number }>("GET", "/api/cc/agent_state?queue=sales", { token });
    expect(state.status).toBe(403);
    const sub = await c.subscribe("cc.queue.sales");
    expect(sub.error).toMatchObject({ message: "Permission Denied", unauthorizedChannels: ["cc.queue.sales"] });

    expect(await cc("agent1", "ccLogin", { agent: "1001", extn: "1001", queue: "support" })).toEqual({
      code: 200,
      message: "success",
    });
  });

  it("lets a supervisor or an administrator sign in where they choose", async () => {
    expect(await cc("supervisor", "ccLogin", { agent: "1010", extn: "1010", queue: "sales" })).toEqual({
      code: 200,
      message: "success",
    });
    expect(await cc("admin", "ccLogin", { agent: "1003", extn: "1003", queue: "sales" })).toEqual({
      code: 200,
      message: "success",
    });
  });
});
