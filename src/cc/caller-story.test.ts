import { describe, expect, it, vi } from "vitest";
import { PlatformClient } from "../api/client";
import { memoryStorage } from "../session";
import type { Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import { createAgentStore } from "./agent-state";
import { createCallerStories } from "./caller-story";
import { CC } from "./queue-calls";
import { WrapUpStorage } from "./wrap-up-storage";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const CUSTOMER = "5550142";
/** The platform's records of this agent's earlier calls with the customer, newest first (two legs a call). */
const records = [
  // Yesterday afternoon: answered (its outcome kept in this browser).
  { uuid: "c2", caller_id_number: CUSTOMER, destination_number: "support", bleg_uuid: "a2", other_uuid: "a2" },
  { uuid: "a2", caller_id_number: CUSTOMER, destination_number: "1001", other_uuid: "c2" },
  // Yesterday morning: rang, not answered.
  { uuid: "c1", caller_id_number: CUSTOMER, destination_number: "support", bleg_uuid: "a1" },
  { uuid: "a1", caller_id_number: CUSTOMER, destination_number: "1001", answer_stamp: "" },
  // Another number the platform's "part of the number" filter lets through.
  { uuid: "x1", caller_id_number: `${CUSTOMER}9`, destination_number: "1001" },
].map((r, i) => ({
  start_stamp: `2031-05-06 ${String(15 - i).padStart(2, "0")}:00:00`,
  answer_stamp: `2031-05-06 ${String(15 - i).padStart(2, "0")}:00:05`,
  end_stamp: `2031-05-06 ${String(15 - i).padStart(2, "0")}:03:00`,
  hangup_cause: "NORMAL_CLEARING",
  ...r,
}));

function setup(
  answer: (url: URL) => Promise<Response> = async () =>
    json(200, { rowCount: 5, page: 1, pageCount: 1, data: records }),
) {
  const asked: URL[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url);
    return answer(url);
  }) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
  client.setCredentials({ token: "tok", expires: Date.now() / 1000 + 3600 });
  const store = createAgentStore();
  const ctx = { store, run: 1, client, user: { extension: "1001" } } as unknown as AgentContext;
  const deviceStorage = memoryStorage();
  const kept = new WrapUpStorage(deviceStorage, "1001");
  const disposition = (id: string, customerUuid: string, disposition: string, notes: string) =>
    kept.record({
      id,
      customerUuid,
      queue: "support",
      customerName: "",
      customerNumber: CUSTOMER,
      disposition,
      notes,
      endedAt: 0,
      savedAt: 0,
    });
  disposition("a2", "c2", "Resolved", "Refund promised");
  const stories = createCallerStories({ ctx, deviceStorage, slowMs: 1500 });
  return { store, stories, asked, disposition };
}

const ringing = (o: Partial<Call> = {}) =>
  ({
    id: "call-1",
    direction: "inbound",
    state: "ringing",
    remote: { number: CUSTOMER, name: "Carla", withheld: false },
    context: { [CC.action]: "queue", [CC.customerUuid]: "c3" },
    ...o,
  }) as unknown as Call;

describe("the caller's story", () => {
  it("is read as the call rings (the card waits for nothing): earlier calls of that number only, the last one's outcome and notes", async () => {
    const { store, stories, asked } = setup();
    stories.onCalls([ringing()]);
    // At once: being read.
    expect(store.getState().callerStories["call-1"]).toMatchObject({ number: CUSTOMER, status: "loading" });
    expect(asked[0]!.searchParams.get("cidNumber")).toBe(CUSTOMER);
    await vi.waitFor(() => expect(store.getState().callerStories["call-1"]!.status).toBe("ready"));
    expect(store.getState().callerStories["call-1"]).toEqual({
      number: CUSTOMER,
      status: "ready",
      count: 2,
      more: false,
      last: {
        at: new Date(2031, 4, 6, 14, 0, 0).getTime(),
        answered: true,
        disposition: "Resolved",
        notes: "Refund promised",
      },
    });
    // Read once per call, and dropped with it.
    stories.onCalls([ringing({ state: "active" })]);
    expect(asked).toHaveLength(1);
    stories.onCalls([]);
    expect(store.getState().callerStories).toEqual({});
  });

  it("leaves out the call itself (a leg taken back after a reload already has records) and outcomes the platform shows no record of", async () => {
    const { store, stories, disposition } = setup();
    // Kept in this browser by someone else's call with the same number: the platform shows this agent no record of it.
    disposition("z9", "z8", "Escalated", "Another agent's notes");
    stories.onCalls([ringing({ context: { [CC.action]: "queue", [CC.customerUuid]: "c2" } })]);
    await vi.waitFor(() => expect(store.getState().callerStories["call-1"]!.status).toBe("ready"));
    expect(store.getState().callerStories["call-1"]).toMatchObject({
      count: 1,
      last: { answered: false, disposition: "", notes: "" },
    });
  });

  it("says it is slow while the platform takes its time, and not available when it fails; no story for the agent's own legs", async () => {
    vi.useFakeTimers();
    try {
      let release: (r: Response) => void = () => {};
      const { store, stories, asked } = setup(() => new Promise((resolve) => (release = resolve)));
      stories.onCalls([
        ringing(),
        ringing({ id: "dial-leg", context: { [CC.action]: "dial" } }),
        ringing({ id: "out", direction: "outbound" }),
      ]);
      expect(Object.keys(store.getState().callerStories)).toEqual(["call-1"]);
      expect(asked).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1400);
      expect(store.getState().callerStories["call-1"]!.status).toBe("loading");
      await vi.advanceTimersByTimeAsync(200);
      expect(store.getState().callerStories["call-1"]!.status).toBe("slow");
      release(json(500, { code: 500, text: "database unavailable" }));
      await vi.waitFor(() => expect(store.getState().callerStories["call-1"]!.status).toBe("unavailable"));
    } finally {
      vi.useRealTimers();
    }
  });
});
