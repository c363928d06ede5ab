import { describe, expect, it, vi } from "vitest";
import { PlatformClient } from "../api/client";
import { memoryStorage } from "../session";
import type { Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import { createAgentStore, type AgentStore } from "./agent-state";
import type { AgentView } from "./agent-status";
import { createMyDay } from "./my-day";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const stamp = (h: number, m: number, s = 0) =>
  `2031-05-06 ${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;

/** Today's records as the platform gives this agent: two queue calls answered (60 s, 120 s), one missed, one click-to-dial (30 s). */
const records = [
  { uuid: "c1", caller_id_number: "5550100", destination_number: "support", bleg_uuid: "a1", other_uuid: "a1" },
  {
    uuid: "a1",
    caller_id_number: "5550100",
    destination_number: "1001",
    other_uuid: "c1",
    answer: [9, 0],
    end: [9, 1],
    billsec: 60,
  },
  { uuid: "c2", caller_id_number: "5550101", destination_number: "support", bleg_uuid: "a2", other_uuid: "a2" },
  {
    uuid: "a2",
    caller_id_number: "5550101",
    destination_number: "1001",
    other_uuid: "c2",
    answer: [10, 0],
    end: [10, 2],
    billsec: 120,
  },
  { uuid: "a3", caller_id_number: "5550102", destination_number: "1001" },
  {
    uuid: "d1",
    caller_id_number: "5550200",
    destination_number: "1001",
    other_uuid: "d2",
    answer: [11, 0],
    end: [11, 0, 30],
  },
  {
    uuid: "d2",
    caller_id_number: "1001",
    destination_number: "5550200",
    other_uuid: "d1",
    answer: [11, 0, 5],
    end: [11, 0, 30],
  },
].map(({ answer, end, ...r }) => ({
  start_stamp: stamp(8, 0),
  answer_stamp: answer ? stamp(answer[0]!, answer[1]!, answer[2]) : "",
  end_stamp: end ? stamp(end[0]!, end[1]!, end[2]) : stamp(8, 1),
  billsec: 0,
  hangup_cause: "NORMAL_CLEARING",
  ...r,
}));

function setup(o: { storage?: ReturnType<typeof memoryStorage>; fail?: boolean; records?: typeof records } = {}) {
  const data = o.records ?? records;
  let clock = new Date(2031, 4, 6, 12, 0).getTime();
  const asked: URL[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url);
    return o.fail
      ? json(404, { code: 404, text: "Not Found" })
      : json(200, { rowCount: data.length, page: 1, pageCount: 1, data });
  }) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
  client.setCredentials({ token: "tok", expires: Date.now() / 1000 + 3600 });
  const store: AgentStore = createAgentStore();
  const ctx = { store, run: 1, client, user: { extension: "1001" }, now: () => clock } as unknown as AgentContext;
  const deviceStorage = o.storage ?? memoryStorage();
  const day = createMyDay({ ctx, deviceStorage, rereadMs: 10 });
  const status = (status: string, reason = "") =>
    store.setState({
      agent: { number: "1001", status, reason, state: "", callstate: "", since: clock } satisfies AgentView,
    });
  return { store, day, asked, deviceStorage, status, tick: (min: number) => (clock += min * 60_000) };
}

describe("the agent's own day", () => {
  it("counts today's answered conversations and their mean talk time from the platform's records", async () => {
    const { store, day, asked } = setup();
    day.begin("1001");
    expect(store.getState().day.records).toBe("loading");
    await vi.waitFor(() => expect(store.getState().day.records).toBe("ready"));
    // Queue calls of 60 s and 120 s, the click-to-dial of 30 s (its two legs one call); the missed one not.
    expect(store.getState().day).toMatchObject({ calls: 3, handleSec: 70 });
    expect(asked[0]!.searchParams.get("startDate")).toBe("2031-05-06 00:00:00");
    expect(asked[0]!.searchParams.get("endDate")).toBe("2031-05-06 23:59:59");
    // A call ends: the day is read again a moment later.
    const call = { id: "x", state: "active" } as Call;
    day.onCalls([{ ...call, state: "ended" }], [call]);
    await vi.waitFor(() => expect(asked).toHaveLength(2));
  });

  it("counts a call answered and hung up within half a second (billsec 0) as handled, in the mean too", async () => {
    const quick = {
      ...records[1]!,
      uuid: "a4",
      other_uuid: "c4",
      answer_stamp: stamp(11, 30),
      end_stamp: stamp(11, 30),
      billsec: 0,
    };
    const { store, day } = setup({
      records: [...records, { ...records[0]!, uuid: "c4", bleg_uuid: "a4", other_uuid: "a4" }, quick],
    });
    day.begin("1001");
    await vi.waitFor(() => expect(store.getState().day.records).toBe("ready"));
    // 60 s, 120 s, 30 s and 0 s.
    expect(store.getState().day).toMatchObject({ calls: 4, handleSec: 52.5 });
  });

  it("says when the records are not available", async () => {
    const { store, day } = setup({ fail: true });
    day.begin("1001");
    await vi.waitFor(() => expect(store.getState().day.records).toBe("unavailable"));
  });

  it("adds up the time in each status, breaks with their reasons, through a reload", () => {
    const storage = memoryStorage();
    const first = setup({ storage });
    first.status("Available");
    first.day.begin("1001");
    first.tick(30);
    first.status("On Break", "Lunch");
    first.tick(45);
    first.status("Available");
    first.tick(10);
    first.status("On Break", "Lunch");
    first.tick(5);
    expect(first.store.getState().day).toMatchObject({
      statusTimes: [
        { status: "Available", reason: "", ms: 40 * 60_000 },
        { status: "On Break", reason: "Lunch", ms: 45 * 60_000 },
      ],
      current: { status: "On Break", reason: "Lunch" },
    });
    first.day.stop();
    // The page reloads: the count goes on where it was, the current break included.
    const second = setup({ storage });
    second.status("On Break", "Lunch");
    second.day.begin("1001");
    expect(second.store.getState().day.statusTimes).toEqual(first.store.getState().day.statusTimes);
    expect(second.store.getState().day.current).toEqual(first.store.getState().day.current);
  });
});
