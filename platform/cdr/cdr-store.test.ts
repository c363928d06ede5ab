import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../store/db";
import { CdrStore, cdrJson, type CdrQuery, type NewCdr } from "./cdr-store";

let db: Db;
let cdrs: CdrStore;

beforeEach(() => {
  db = openDatabase(":memory:").db;
  cdrs = new CdrStore(db);
  db.prepare("INSERT INTO queues (name) VALUES ('support'), ('sales')").run();
});

afterEach(() => db.close());

function record(i: number, o: Partial<NewCdr> = {}): NewCdr {
  const pad = (n: number) => String(n).padStart(2, "0");
  return {
    uuid: `leg-${i}`,
    bleg_uuid: i % 3 ? "" : `leg-${i + 1}`,
    other_uuid: i % 2 ? `leg-${i - 1}` : "",
    caller_id_name: ['Ann "the" Caller', "Bö Ümlaut 顧客", "tab\there\nnewline\\", "</script>"][i % 4]!,
    caller_id_number: `555${i}`,
    destination_number: i % 2 ? "support" : "1001",
    start_stamp: `2026-03-02 ${pad(8 + (i % 10))}:${pad(i % 60)}:${pad((i * 7) % 60)}`,
    ring_stamp: "",
    answer_stamp: i % 5 ? `2026-03-02 ${pad(8 + (i % 10))}:${pad(i % 60)}:59` : "",
    end_stamp: `2026-03-02 ${pad(9 + (i % 10))}:00:00`,
    duration: i * 3,
    billsec: i,
    account_code: "",
    hangup_cause: "NORMAL_CLEARING",
    sip_hangup_disposition: "recv_bye",
    network_addr: "127.0.0.1",
    network_port: "5060",
    context: "default",
    direction: i % 2 ? "inbound" : "outbound",
    realm: "agentbar.local",
    external_tracking_id: "",
    caller_source: "sip",
    digits_dialed: "",
    sip_call_id: `call-${i}@host`,
    xui_route_ids: "",
    abs_path: "",
    rel_path: "",
    rtp_use_codec_name: "opus",
    xui_hangup_cause: "",
    media_file_id: i % 4 ? null : 100 + i,
    extn: i % 2 ? "" : "1001",
    user_id: i % 2 ? null : 3,
    variables: JSON.stringify({
      cc_queue: ["support", "sales", undefined][i % 3],
      cc_side: i % 2 ? "member" : "agent",
      cc_queue_joined_epoch: String(1772438400 + i),
      nested: { depth: [1, 2.5, null, "x"] },
    }),
    ...o,
  };
}

describe("a page of call records as the API's JSON", () => {
  beforeEach(() => {
    for (let i = 0; i < 40; i++) cdrs.insert(record(i));
    // Variables the platform could not parse: shown as none, and in no queue.
    cdrs.insert(record(40, { variables: "cc_queue=support" }));
    cdrs.insert(record(41, { variables: "" }));
  });

  const queries: CdrQuery[] = [
    { page: 1, perPage: 1000 },
    { page: 2, perPage: 7 },
    { page: 1, perPage: 10, startDate: "2026-03-02 10:00", endDate: "2026-03-02 14:30:00" },
    { page: 1, perPage: 1000, queueId: 1 },
    { page: 2, perPage: 5, queueId: 2, startDate: "2026-03-02" },
    { page: 1, perPage: 1000, queueId: 99 },
    { page: 1, perPage: 1000, queueId: 1, scope: { extensions: ["1001"], queueCalls: true } },
    { page: 1, perPage: 1000, scope: { extensions: ["1001"], queueCalls: false } },
    { page: 1, perPage: 1000, scope: { extensions: ["2002"], queueCalls: true } },
  ];

  it("is, record for record, what the rows make of it, in the same order and count", () => {
    for (const q of queries) {
      const rows = cdrs.list(q);
      const page = cdrs.listJson(q);
      expect(page.rowCount).toBe(rows.rowCount);
      expect(page.json.map((j) => JSON.parse(j) as unknown)).toEqual(rows.rows.map(cdrJson));
    }
  });

  it("keeps a queue's legs to that queue, whatever else a supervisor may read", () => {
    const names = (q: CdrQuery) => cdrs.listJson(q).json.map((j) => (JSON.parse(j) as { uuid: string }).uuid);
    const support = names({ page: 1, perPage: 1000, queueId: 1 });
    expect(support).toHaveLength(14);
    for (const uuid of support) expect(Number(uuid.slice(4)) % 3).toBe(0);
    expect(names({ page: 1, perPage: 1000, queueId: 1, scope: { extensions: [], queueCalls: true } })).toEqual(support);
    // A reader who is no supervisor still sees only the legs of its own calls in the queue.
    expect(names({ page: 1, perPage: 1000, queueId: 1, scope: { extensions: ["2002"], queueCalls: false } })).toEqual(
      [],
    );
    expect(names({ page: 1, perPage: 1000, queueId: 99 })).toEqual([]);
    // Without a queue, a supervisor reads its own calls (its call history), not every queue's:
    // a supervisor of no call here reads none, by list or by uuid.
    expect(names({ page: 1, perPage: 1000, scope: { extensions: ["2002"], queueCalls: true } })).toEqual([]);
    expect(cdrs.byUuid(support[0]!, { extensions: ["2002"], queueCalls: true })).toBeUndefined();
    expect(names({ page: 1, perPage: 1000, scope: { extensions: ["1001"], queueCalls: true } })).toEqual(
      names({ page: 1, perPage: 1000, scope: { extensions: ["1001"], queueCalls: false } }),
    );
  });
});
