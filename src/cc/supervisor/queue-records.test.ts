import { describe, expect, it, vi } from "vitest";
import { PlatformClient } from "../../api/client";
import { listCdrs } from "../../api/cdrs";
import { PlatformError } from "../../api/errors";
import { readDayRecords } from "../day-records";
import { QueueDay, queueRecordOf } from "./queue-day";
import {
  OffThreadPages,
  WORKER_IDLE_MS,
  WORKER_RETRY_MS,
  answerPage,
  listQueueRecords,
  listQueueRecordsHere,
  type PageRequest,
  type PageWorker,
  type WorkerReply,
} from "./queue-records";

const MIDNIGHT = new Date(2031, 4, 6).getTime();
const pad = (n: number) => String(n).padStart(2, "0");
const stamp = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};
const at = (h: number, m: number, s = 0) => MIDNIGHT + ((h * 60 + m) * 60 + s) * 1000;
const epoch = (ms: number) => String(ms / 1000);

/** A queue's call, as the platform writes its two records: the caller's leg and the agent's. */
function call(n: number, o: { joined: number; answered?: number; ended: number; agent: string }) {
  const caller = `c${n}`;
  const agentLeg = `a${n}`;
  const common = { hangup_cause: "NORMAL_CLEARING", media_file_id: "", sip_call_id: `sip-${n}`, bleg_uuid: "" };
  const records = [
    {
      ...common,
      uuid: caller,
      other_uuid: o.answered ? agentLeg : "",
      caller_id_name: "Customer",
      caller_id_number: `55501${pad(n)}`,
      destination_number: "support",
      direction: "inbound",
      start_stamp: stamp(o.joined),
      answer_stamp: stamp(o.joined),
      end_stamp: stamp(o.ended),
      duration: (o.ended - o.joined) / 1000,
      billsec: "12",
      variables: {
        cc_side: "member",
        cc_queue: "support@default",
        cc_member_uuid: `m${n}`,
        cc_queue_joined_epoch: epoch(o.joined),
        ...(o.answered
          ? { cc_queue_answered_epoch: epoch(o.answered), cc_agent: o.agent }
          : { cc_queue_canceled_epoch: epoch(o.ended) }),
        cc_queue_terminated_epoch: epoch(o.ended),
        sip_user_agent: "a phone",
        read_codec: "PCMU",
      },
    },
  ];
  if (o.answered)
    records.push({
      ...common,
      uuid: agentLeg,
      other_uuid: caller,
      caller_id_name: "Customer",
      caller_id_number: `55501${pad(n)}`,
      destination_number: o.agent,
      direction: "outbound",
      start_stamp: stamp(o.answered - 3000),
      answer_stamp: stamp(o.answered),
      end_stamp: stamp(o.ended),
      duration: (o.ended - o.answered) / 1000 + 3,
      billsec: "10",
      variables: { cc_side: "agent", cc_agent: o.agent, cc_queue: "support@default" } as never,
    });
  return records;
}

/** A page of GET /api/cdrs (the spec's paged object) as its body's bytes. */
const bytesOf = (body: unknown) => new TextEncoder().encode(JSON.stringify(body)).buffer as ArrayBuffer;
const DAY_RECORDS = [
  ...call(3, { joined: at(10, 0), ended: at(10, 1), agent: "" }),
  ...call(2, { joined: at(9, 30), answered: at(9, 30, 40), ended: at(9, 40), agent: "1002" }),
  ...call(1, { joined: at(9, 0), answered: at(9, 0, 10), ended: at(9, 5), agent: "1001" }),
];
const PAGE = { rowCount: DAY_RECORDS.length, page: 1, pageCount: 1, data: DAY_RECORDS };

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A client of a platform that answers every request with `answer()`. */
function clientOf(answer: () => Response, onSessionExpired?: (e: PlatformError) => void) {
  const fetch = (async () => answer()) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch, onSessionExpired });
  client.setCredentials({ token: "tok", expires: Date.now() / 1000 + 3600 });
  return client;
}

/**
 * A worker as the browser runs one, in this thread: messages are structured clones (the body's
 * bytes transferred, as the page posts them), answered a task later, after a `ready` sent a task
 * after it was made; `failsToStart` stands for a script the page may not load.
 */
class FakeWorker implements PageWorker {
  readonly posted: PageRequest[] = [];
  terminated = false;
  private readonly listeners: { message: ((e: MessageEvent<WorkerReply>) => void)[]; error: ((e: Event) => void)[] } = {
    message: [],
    error: [],
  };
  constructor(options: { failsToStart?: boolean; crashes?: boolean } = {}) {
    setTimeout(() => (options.failsToStart ? this.emit("error", new Event("error")) : this.reply({ ready: true })));
    this.crashes = options.crashes ?? false;
  }
  private readonly crashes: boolean;
  postMessage(message: PageRequest, transfer: Transferable[]): void {
    const request = structuredClone(message, { transfer });
    this.posted.push(request);
    setTimeout(() => (this.crashes ? this.emit("error", new Event("error")) : this.reply(answerPage(request))));
  }
  addEventListener(type: "message" | "error", listener: (e: never) => void): void {
    this.listeners[type].push(listener as never);
  }
  terminate(): void {
    this.terminated = true;
  }
  private reply(message: WorkerReply) {
    if (this.terminated) return;
    const data = structuredClone(message);
    for (const l of this.listeners.message) l({ data } as MessageEvent<WorkerReply>);
  }
  private emit(type: "error", e: Event) {
    for (const l of this.listeners[type]) l(e);
  }
}

/** Lets the tasks queued so far run (a fake worker answers a task later). */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("a queue's records read off the page's thread", () => {
  it("keeps of each record only what a queue's day reads, and the day counts the same as from whole records", async () => {
    const whole = await listCdrs(clientOf(() => json(200, PAGE)));
    const projected = whole.data.map(queueRecordOf);
    expect(projected[0]).toEqual({
      uuid: "c3",
      direction: "inbound",
      destination: "support",
      startedAt: at(10, 0),
      answeredAt: at(10, 0),
      endedAt: at(10, 1),
      otherUuid: "",
      cc: {
        cc_side: "member",
        cc_queue_joined_epoch: epoch(at(10, 0)),
        cc_queue_canceled_epoch: epoch(at(10, 1)),
        cc_queue_terminated_epoch: epoch(at(10, 1)),
      },
    });
    expect(Object.keys(projected[1]!.cc).sort()).toEqual([
      "cc_agent",
      "cc_queue_answered_epoch",
      "cc_queue_joined_epoch",
      "cc_queue_terminated_epoch",
      "cc_side",
    ]);

    const fromWhole = new QueueDay(MIDNIGHT);
    fromWhole.addRecords(whole.data, 0);
    const fromProjected = new QueueDay(MIDNIGHT);
    fromProjected.addRecords(projected, 0);
    expect([...fromProjected.callers]).toEqual([...fromWhole.callers]);
    expect(fromProjected.figures(20)).toEqual(fromWhole.figures(20));
    expect(fromProjected.figures(20)).toMatchObject({ offered: 3, answered: 2, abandoned: 1, answeredWithin: 1 });
  });

  it("answers a page's bytes with its records reduced, or says why the page cannot be read", () => {
    const reply = answerPage({ id: 7, body: bytesOf(PAGE) });
    expect(reply).toEqual({
      id: 7,
      reading: { value: { rowCount: 5, page: 1, pageCount: 1, data: expect.any(Array) } },
    });
    const data = (reply as { reading: { value: { data: unknown[] } } }).reading.value.data;
    expect(data.map((r) => (r as { uuid: string }).uuid)).toEqual(["c3", "c2", "a2", "c1", "a1"]);
    expect(data[1]).not.toHaveProperty("callerNumber");
    expect(data[1]).not.toHaveProperty(["cc", "sip_user_agent"]);

    // A record that cannot be read refuses the page, naming its place and field.
    const bad = { ...PAGE, data: [DAY_RECORDS[0], { ...DAY_RECORDS[1], start_stamp: { at: 1 } }] };
    expect(answerPage({ id: 8, body: bytesOf(bad) })).toEqual({
      id: 8,
      reading: {
        invalid: expect.stringMatching(/^unexpected answer from the platform at 'data\.1\.start_stamp': /),
        body: bad,
      },
    });
    expect(answerPage({ id: 9, body: new TextEncoder().encode("<html>").buffer as ArrayBuffer })).toEqual({
      id: 9,
      reading: { notJson: true },
    });
    const refused = { code: 403, text: "token expired" };
    expect(answerPage({ id: 10, body: bytesOf(refused) })).toEqual({ id: 10, reading: { failure: refused } });
  });

  it("reads a page that comes before the worker runs here at once, and hands later pages' bytes to it", async () => {
    const workers: FakeWorker[] = [];
    const pages = new OffThreadPages(() => {
      workers.push(new FakeWorker());
      return workers.at(-1)!;
    });
    // The day's first page comes while the worker starts: what is asked next depends on it.
    const early = bytesOf(PAGE);
    const firstReading = await pages.decode(early);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.posted).toEqual([]);
    expect(early.byteLength).toBeGreaterThan(0);
    expect(firstReading).toEqual((answerPage({ id: 0, body: bytesOf(PAGE) }) as { reading: unknown }).reading);

    await nextTask();
    const first = bytesOf(PAGE);
    const second = bytesOf({ ...PAGE, page: 2, data: DAY_RECORDS.slice(0, 1) });
    const readings = await Promise.all([pages.decode(first), pages.decode(second)]);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.posted.map((p) => p.id)).toEqual([1, 2]);
    // Transferred, not copied: the page no longer holds the bytes.
    expect(first.byteLength).toBe(0);
    expect(readings.map((r) => ("value" in r ? r.value.data.length : -1))).toEqual([5, 1]);
    expect(readings[0]).toEqual(firstReading);
    expect("value" in readings[1]! && readings[1].value.page).toBe(2);
  });

  it("starts the worker ahead of the pages, so that the first is read in it", async () => {
    const workers: FakeWorker[] = [];
    const pages = new OffThreadPages(() => {
      workers.push(new FakeWorker());
      return workers.at(-1)!;
    });
    pages.warm();
    pages.warm();
    expect(workers).toHaveLength(1);
    await nextTask();
    const reading = await pages.decode(bytesOf(PAGE));
    expect(workers[0]!.posted).toHaveLength(1);
    expect("value" in reading && reading.value.data).toHaveLength(5);
  });

  it("reads the pages on the page's thread when no worker can be made or its script does not run", async () => {
    const none = new OffThreadPages(() => null);
    expect(await none.decode(bytesOf(PAGE))).toEqual(
      (answerPage({ id: 0, body: bytesOf(PAGE) }) as { reading: unknown }).reading,
    );
    let made = 0;
    const throws = new OffThreadPages(() => {
      made++;
      throw new DOMException("blocked", "SecurityError");
    });
    expect("value" in (await throws.decode(bytesOf(PAGE)))).toBe(true);
    await throws.decode(bytesOf(PAGE));
    // Not tried again at the next page.
    expect(made).toBe(1);

    vi.useFakeTimers();
    try {
      const workers: FakeWorker[] = [];
      const blocked = new OffThreadPages(() => {
        workers.push(new FakeWorker({ failsToStart: workers.length === 0 }));
        return workers.at(-1)!;
      });
      blocked.warm();
      await vi.advanceTimersByTimeAsync(1);
      expect(workers[0]!.terminated).toBe(true);
      // The pages of the next minute are read here, and no worker is tried meanwhile.
      const reading = await blocked.decode(bytesOf(PAGE));
      expect("value" in reading && reading.value.data).toHaveLength(5);
      await vi.advanceTimersByTimeAsync(WORKER_RETRY_MS - 10);
      await blocked.decode(bytesOf(PAGE));
      expect(workers).toHaveLength(1);
      expect(workers[0]!.posted).toEqual([]);
      // Then a page tries a worker again (and is read here while it starts), which runs for the next.
      await vi.advanceTimersByTimeAsync(10);
      await blocked.decode(bytesOf(PAGE));
      expect(workers).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      const inWorker = blocked.decode(bytesOf(PAGE));
      await vi.advanceTimersByTimeAsync(1);
      expect("value" in (await inWorker)).toBe(true);
      expect(workers[1]!.posted).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads a page here when it cannot be posted to the worker, and lets the worker go as usual", async () => {
    vi.useFakeTimers();
    try {
      const worker = new FakeWorker();
      worker.postMessage = () => {
        throw new DOMException("could not be cloned", "DataCloneError");
      };
      const pages = new OffThreadPages(() => worker);
      pages.warm();
      await vi.advanceTimersByTimeAsync(1);
      const reading = await pages.decode(bytesOf(PAGE));
      expect("value" in reading && reading.value.data).toHaveLength(5);
      // No page is left waiting for it: it is let go after its idle time.
      await vi.advanceTimersByTimeAsync(WORKER_IDLE_MS);
      expect(worker.terminated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("fails the pages a worker held when it breaks, and lets an idle worker go", async () => {
    vi.useFakeTimers();
    try {
      const crashing = new OffThreadPages(() => new FakeWorker({ crashes: true }));
      crashing.warm();
      await vi.advanceTimersByTimeAsync(1);
      const lost = crashing.decode(bytesOf(PAGE));
      const failed = expect(lost).rejects.toThrow("the worker stopped");
      await vi.runAllTimersAsync();
      await failed;

      // A worker started for a page that came before it ran (read here) is let go too.
      const workers: FakeWorker[] = [];
      const pages = new OffThreadPages(() => {
        workers.push(new FakeWorker());
        return workers.at(-1)!;
      });
      await pages.decode(bytesOf(PAGE));
      await vi.advanceTimersByTimeAsync(WORKER_IDLE_MS - 10);
      expect(workers[0]!.terminated).toBe(false);
      await vi.advanceTimersByTimeAsync(10);
      expect(workers[0]!.terminated).toBe(true);

      // And one that read pages, once it has answered the last.
      pages.warm();
      await vi.advanceTimersByTimeAsync(1);
      const read = pages.decode(bytesOf(PAGE));
      await vi.advanceTimersByTimeAsync(1);
      await read;
      expect(workers[1]!.posted).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(WORKER_IDLE_MS - 10);
      expect(workers[1]!.terminated).toBe(false);
      await vi.advanceTimersByTimeAsync(10);
      expect(workers[1]!.terminated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("errs as the REST client does for every request: a refused session, a record that cannot be read", async () => {
    const expired = vi.fn();
    const refused = clientOf(() => json(200, { code: 403, text: "token expired" }), expired);
    // The session check (GET /api/users/info) is refused too: the session has ended.
    const error = await listQueueRecords(refused, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: "http", code: 403, message: "token expired", endpoint: "GET /api/cdrs" });
    expect(expired).toHaveBeenCalledTimes(1);

    const bad = { ...PAGE, data: [DAY_RECORDS[0], { ...DAY_RECORDS[1], uuid: null }] };
    const [mine, theirs] = await Promise.all(
      [listQueueRecords, listCdrs].map((list) =>
        list(
          clientOf(() => json(200, bad)),
          {},
        ).catch((e: unknown) => e),
      ),
    );
    expect(mine).toBeInstanceOf(PlatformError);
    expect(mine).toMatchObject({ kind: "decode", endpoint: "GET /api/cdrs" });
    expect((mine as PlatformError).message).toMatch(/^unexpected answer from the platform at 'data\.1\.uuid': .*null/);
    expect((mine as PlatformError).message).toBe((theirs as PlatformError).message);

    const notJson = await listQueueRecords(
      clientOf(() => new Response("<html>", { status: 200, headers: { "content-type": "text/html" } })),
      {},
    ).catch((e: unknown) => e);
    expect(notJson).toMatchObject({ kind: "decode", message: "the platform's answer is not JSON" });
    const down = await listQueueRecords(
      clientOf(() => json(503, { code: 503, text: "busy" })),
      {},
    ).catch((e: unknown) => e);
    expect(down).toMatchObject({ kind: "http", status: 503, message: "busy" });
  });

  it("says a page's body has come (its request's place is free) before the page is read", async () => {
    const said: string[] = [];
    const page = await listQueueRecords(
      clientOf(() => json(200, PAGE)),
      {},
      () => said.push("body in"),
    ).then((p) => (said.push("read"), p));
    expect(said).toEqual(["body in", "read"]);
    expect(page.data).toHaveLength(5);
  });

  it("reads a day of pages through the day's reading, each record once, asked at low priority", async () => {
    const priorities: (RequestPriority | undefined)[] = [];
    const client = new PlatformClient({
      baseUrl: "http://pbx.test",
      fetch: (async (_: unknown, init: RequestInit = {}) => {
        priorities.push(init.priority);
        return json(200, PAGE);
      }) as typeof globalThis.fetch,
    });
    const records = await readDayRecords(
      client,
      { startDate: stamp(MIDNIGHT), endDate: stamp(MIDNIGHT + 86_399_000) },
      { readPage: listQueueRecords },
    );
    expect(records.map((r) => r.uuid)).toEqual(["c3", "a2", "c2", "a1", "c1"]);
    expect(records[0]).toEqual(queueRecordOf((await listCdrs(clientOf(() => json(200, PAGE)))).data[0]!));
    // A live request waiting for a connection to the platform goes before the day's pages; the
    // few records read on the page's thread (what ended since a kept day) are not held back.
    expect(priorities).toEqual(["low"]);
    await listQueueRecordsHere(client, {});
    expect(priorities).toEqual(["low", undefined]);
  });
});
