import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FakeSwitch } from "../../platform/cc/testing/fake-switch";
import {
  CALL_CENTER_CHANNEL,
  EventChannel,
  type EventChannelStatus,
  type SocketLike,
} from "../../src/api/event-channel";
import { DEMO_DOMAIN, TestPlatform } from "./harness";

/**
 * The app's event channel client against the platform's JSON-RPC channel on /ws: login, the
 * call-center events a status change makes, a refused token, and a dropped connection.
 */
let p: TestPlatform;
const open: EventChannel[] = [];

beforeAll(async () => {
  const sw = new FakeSwitch();
  sw.registered.add("1001");
  p = await TestPlatform.start({}, { switch: sw });
});
afterAll(async () => {
  open.forEach((c) => c.close());
  await p.close();
});

function connect(token: string) {
  const events: Record<string, string>[] = [];
  const statuses: { status: EventChannelStatus; error?: string }[] = [];
  const channel = new EventChannel({
    url: p.url.replace(/^http/, "ws") + "/ws",
    credentials: () => ({ login: `1001@${DEMO_DOMAIN}`, token }),
    channels: [CALL_CENTER_CHANNEL],
    onEvent: (_c, data) => events.push(data as Record<string, string>),
    onStatus: (status, d) => statuses.push({ status, ...(d.error ? { error: d.error } : {}) }),
    socket: (url) => new WebSocket(url) as unknown as SocketLike,
    backoffMs: { first: 100, max: 400 },
  });
  open.push(channel);
  const until = async (pred: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!pred()) throw new Error(`timed out waiting for ${what}`);
  };
  return { channel, events, statuses, until };
}

const cc = async (func: string, body: Record<string, unknown>) =>
  (await p.call<{ code: number }>("POST", `/api/cc/ccc/${func}`, { token: await p.token("agent1"), body })).body;

describe("the event channel client against the platform", () => {
  it("logs in with the user token and receives the agent's status changes as they are made", async () => {
    const c = connect(await p.token("agent1"));
    await c.until(() => c.channel.status === "open", "open");
    expect(await cc("ccGoReady", { agent: "1001" })).toMatchObject({ code: 200 });
    expect(await cc("ccGoBreak", { agent: "1001", reason: "Lunch" })).toMatchObject({ code: 200 });
    const statusChanges = () =>
      c.events.filter((e) => e["CC-Action"] === "agent-status-change" && e["CC-Agent"] === "1001");
    await c.until(() => statusChanges().length >= 2, "two status events");
    expect(statusChanges().map((e) => [e["CC-Agent-Status"], e["CC-Agent-Break-Reason"] ?? ""])).toEqual([
      ["Available", ""],
      ["On Break", "Lunch"],
    ]);
  });

  it("says why a bad token is refused, and receives nothing", async () => {
    const c = connect("not-a-token");
    await c.until(() => c.statuses.some((s) => s.error), "the refusal");
    expect(c.statuses.find((s) => s.error)).toEqual({ status: "reconnecting", error: "Authentication Failure" });
    // A client with a good token alongside: once it has the event, the refused one would have it too.
    const witness = connect(await p.token("agent1"));
    await witness.until(() => witness.channel.status === "open", "the witness open");
    await cc("ccGoReady", { agent: "1001" });
    await witness.until(
      () => witness.events.some((e) => e["CC-Action"] === "agent-status-change"),
      "the witness's event",
    );
    expect(c.events).toEqual([]);
    c.channel.close();
  });

  it("reconnects when the platform drops the connection, and events flow again", async () => {
    const c = connect(await p.token("agent1"));
    await c.until(() => c.channel.status === "open", "open");
    p.platform.callCenter.rpc.close();
    await c.until(() => c.statuses.some((s) => s.status === "reconnecting"), "the drop noticed");
    await c.until(() => c.channel.status === "open", "open again");
    c.events.length = 0;
    await cc("ccGoBreak", { agent: "1001", reason: "Meeting" });
    await c.until(() => c.events.some((e) => e["CC-Agent-Break-Reason"] === "Meeting"), "an event after reconnecting");
  });
});
