import { describe, expect, it } from "vitest";
import { getAgentState } from "./cc";
import { PlatformClient } from "./client";
import { PlatformError } from "./errors";

const answering = (body: unknown) => {
  const client = new PlatformClient({
    baseUrl: "http://pbx.test",
    fetch: (async () =>
      new Response(JSON.stringify(body), {
        status: 200,
        headers: { "content-type": "application/json" },
      })) as typeof globalThis.fetch,
  });
  client.setCredentials({ token: "tok-1", expires: Date.now() / 1000 + 3600 });
  return client;
};

/** Records as the spec shows them, as the local platform adds to them, and as odd platforms write them. */
const rows: unknown[] = [
  {
    agent_id: "1001",
    extn: "1001",
    group_id: "support",
    queue_id: "1",
    agent_uuid: "",
    state: "READY",
    callstate: "IDLE",
  },
  {
    agent_id: 1002,
    extn: null,
    group_id: "sales",
    queue_id: 2,
    agent_uuid: "u-1",
    state: "BUSY",
    callstate: "ACTIVE",
    name: "Ada",
    status: "Available",
    cc_state: "In a queue call",
    reason: "",
    status_since: "2031-05-06 14:35:00",
    no_answer_count: "3",
    ready_time: 0,
    wrap_up_until: "",
    unknown_field: { dropped: true },
    call: {
      uuid: "u-1",
      kind: "queue",
      direction: "inbound",
      queue: "sales",
      member_uuid: "m-1",
      customer_uuid: "c-1",
      cid_name: "Caller",
      cid_number: 5550100,
      answered: true,
      consult: { uuid: "k-1", target: "1003" },
    },
    supervision: { mode: "listen", by: "2001", by_name: null },
  },
  { agent_id: "1003", no_answer_count: 2, call: null, supervision: null },
  { agent_id: "1004", call: { uuid: "u-4", held: true, consult: null } },
];

describe("agent_state", () => {
  it("reads every record as the schema does, field for field", async () => {
    const plain = await getAgentState(answering(rows));
    // A record out of the ordinary (here an array, which the schema reads as a record of empty
    // fields) sends the whole answer through the schema: both readings agree on the others.
    const bySchema = await getAgentState(answering([...rows, []]));
    expect(bySchema).toHaveLength(rows.length + 1);
    expect(plain).toEqual(bySchema.slice(0, rows.length));
    expect(plain[1]).toMatchObject({ agent_id: "1002", extn: "", queue_id: "2", no_answer_count: 3, ready_time: "0" });
    expect(plain[1]!.call).toMatchObject({ cid_number: "5550100", held: false, consult: { answered: false } });
    expect(plain[1]).not.toHaveProperty("unknown_field");
    expect(plain[0]).not.toHaveProperty("supervision");
    expect(plain[2]).toMatchObject({ supervision: null, call: null, name: "" });
  });

  it("refuses a record it cannot read, naming it and the field", async () => {
    for (const [bad, where] of [
      [{ ...(rows[0] as object), extn: { number: "1001" } }, "1.extn"],
      [{ ...(rows[0] as object), no_answer_count: "three" }, "1.no_answer_count"],
      [{ ...(rows[0] as object), call: { uuid: "u", answered: "yes" } }, "1.call.answered"],
    ] as const) {
      const err = await getAgentState(answering([rows[0], bad])).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(PlatformError);
      expect(err).toMatchObject({ kind: "decode", message: expect.stringContaining(`at '${where}'`) });
    }
  });
});
