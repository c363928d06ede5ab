import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentStateRecord } from "../../api";
import { createSessionStore, createSettingsStore, memoryStorage, type KeyValueStorage } from "../../session";
import { fakePlatform, json, type FakeUser } from "../../session/test-support/fake-platform";
import { createEventFeed, type EventConnector } from "../event-feed";
import {
  AgentOrder,
  inWrapUp,
  selectAgents,
  statusSinceOf,
  summarizeQueue,
  WallboardDraft,
  type AgentQuery,
  type WallboardAgent,
} from "./wallboard";
import type { DayCache } from "./day-cache";
import { idleAgentRecords } from "./testing/agent-records";
import { memoryDayCache } from "./testing/memory-day-cache";
import { showsWallboard } from "./supervisor-role";
import { createWallboard } from "./wallboard-store";

const sam: FakeUser = {
  id: 2,
  login: "supervisor",
  password: "Agentbar@2026",
  name: "Sam Supervisor",
  extn: "1010",
  domain: "agentbar.local",
  authority: "supervisor",
};
const ada: FakeUser = {
  id: 1,
  login: "admin",
  password: "Agentbar@2026",
  name: "Ada Admin",
  extn: "1000",
  domain: "agentbar.local",
  authority: "admin",
};
const alice: FakeUser = {
  id: 3,
  login: "agent1",
  password: "Agentbar@2026",
  name: "Alice Agent",
  extn: "1001",
  domain: "agentbar.local",
  authority: "agent",
};

const T0 = new Date("2026-03-02T09:00:00Z").getTime();

/**
 * A call center the test drives: the truth of every agent, the events each change sends (as
 * mod_callcenter words them) and `GET /api/cc/agent_state` answering from the same truth.
 */
class SimulatedCenter {
  readonly agents = new Map<string, AgentStateRecord>();
  readonly events: Record<string, string>[] = [];
  reads = 0;
  failReads = false;
  /** Agents with a tier in a queue besides the one they signed into. */
  readonly tiers = new Map<string, string[]>();
  /** Callers waiting per queue (`GET /api/cc/queue_members`); null: the platform has no such list (the spec's). */
  waitingCallers: Record<
    string,
    { uuid: string; cid_number: string; cid_name: string; joined_epoch: number }[]
  > | null = {};

  constructor(count: number) {
    for (const record of idleAgentRecords(count)) this.agents.set(record.agent_id, record);
  }

  private emit(e: Record<string, string>, at: number) {
    this.events.push({ "Event-Date-Timestamp": String(at * 1000), ...e });
  }

  setStatus(n: string, status: string, reason: string, at: number) {
    const a = this.agents.get(n)!;
    this.agents.set(n, {
      ...a,
      status,
      reason: status === "On Break" ? reason : "",
      state: status === "Available" ? "READY" : "UNREADY",
    });
    this.emit(
      {
        "CC-Action": "agent-status-change",
        "CC-Agent": n,
        "CC-Agent-Status": status,
        ...(status === "On Break" ? { "CC-Agent-Break-Reason": reason } : {}),
      },
      at,
    );
  }

  startCall(n: string, customer: string, at: number) {
    const a = this.agents.get(n)!;
    const uuid = `leg-${n}-${at}`;
    this.agents.set(n, {
      ...a,
      agent_uuid: uuid,
      callstate: "TALKING",
      cc_state: "In a queue call",
      call: {
        uuid,
        kind: "queue",
        direction: "inbound",
        queue: a.group_id,
        member_uuid: `m-${uuid}`,
        customer_uuid: `c-${uuid}`,
        cid_name: `Customer ${customer}`,
        cid_number: customer,
        answered: true,
        held: false,
        consult: null,
      },
    });
    const headers = {
      "CC-Queue": a.group_id,
      "CC-Agent": `${a.group_id}.${n}`,
      "CC-Member-UUID": `m-${uuid}`,
      "CC-Member-CID-Name": `Customer ${customer}`,
      "CC-Member-CID-Number": customer,
    };
    this.emit(
      { "CC-Action": "member-queue-start", ...headers, "CC-Member-Joined-Time": String((at - 5000) / 1000) },
      at,
    );
    this.emit({ "CC-Action": "agent-offering", ...headers }, at);
    this.emit(
      {
        "CC-Action": "bridge-agent-start",
        ...headers,
        "CC-Agent-UUID": uuid,
        "CC-Agent-Answered-Time": String(at / 1000),
        "CC-Member-Joined-Time": String((at - 5000) / 1000),
      },
      at,
    );
    this.emit({ "CC-Action": "agent-state-change", "CC-Agent": n, "CC-Agent-State": "In a queue call" }, at);
  }

  endCall(n: string, at: number) {
    const a = this.agents.get(n)!;
    const uuid = a.agent_uuid;
    this.agents.set(n, { ...a, agent_uuid: "", callstate: "IDLE", cc_state: "Waiting", call: null });
    this.emit(
      {
        "CC-Action": "bridge-agent-end",
        "CC-Queue": a.group_id,
        "CC-Agent": n,
        "CC-Agent-UUID": uuid,
        "CC-Hangup-Cause": "NORMAL_CLEARING",
      },
      at,
    );
    this.emit({ "CC-Action": "agent-state-change", "CC-Agent": n, "CC-Agent-State": "Waiting" }, at);
  }

  /** One change to a random agent, as a busy center makes them. */
  change(i: number, at: number) {
    const numbers = [...this.agents.keys()];
    const n = numbers[(i * 7919) % numbers.length]!;
    const a = this.agents.get(n)!;
    if (a.call) this.endCall(n, at);
    else if (a.status === "Available" && i % 3 === 0) this.startCall(n, `555${String(i).padStart(4, "0")}`, at);
    else if (a.status === "Available") this.setStatus(n, "On Break", ["lunch", "training", "meeting"][i % 3]!, at);
    else this.setStatus(n, "Available", "", at);
  }

  route = ({ method, url }: { method: string; url: URL }) => {
    if (method === "GET" && url.pathname === "/api/cc/agent_state") {
      this.reads++;
      if (this.failReads) return json(500, { code: 500, text: "database unavailable" });
      const queue = url.searchParams.get("queue");
      return json(
        200,
        [...this.agents.values()]
          .filter((a) => !queue || a.group_id === queue || this.tiers.get(queue)?.includes(a.agent_id))
          .map((a) => (queue ? { ...a, queue_id: queue === "support" ? "1" : "2" } : a)),
      );
    }
    if (method === "GET" && url.pathname === "/api/cc/queue_members") {
      if (!this.waitingCallers) return json(404, { code: 404, text: "Not Found" });
      return json(
        200,
        (this.waitingCallers[url.searchParams.get("queue") ?? ""] ?? []).map((m) => ({
          ...m,
          session_uuid: `s-${m.uuid}`,
          state: "Waiting",
        })),
      );
    }
    if (method === "GET" && /\/api\/users\/\d+\/queue\/name$/.test(url.pathname)) return json(200, []);
    return undefined;
  };
}

/** An answer held back until `letGo` is called. */
function heldBack(): { until: Promise<void>; letGo: () => void } {
  let letGo!: () => void;
  const until = new Promise<void>((resolve) => (letGo = resolve));
  return { until, letGo };
}

/** An answered caller of the day (T0's) in a queue's call records, the `i`th hour after midnight. */
function dayCaller(queue: string, i: number) {
  const midnight = new Date(T0).setHours(0, 0, 0, 0);
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = (ms: number) => {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  };
  return {
    uuid: `${queue}-${i}`,
    direction: "inbound",
    start_stamp: stamp(midnight + 3_600_000 * (i + 1)),
    end_stamp: stamp(midnight + 3_600_000 * (i + 1) + 60_000),
    variables: {
      cc_side: "member",
      cc_queue: queue,
      cc_queue_joined_epoch: String((midnight + 3_600_000 * (i + 1)) / 1000),
      cc_queue_answered_epoch: String((midnight + 3_600_000 * (i + 1) + 10_000) / 1000),
      cc_agent: "10000",
    },
  };
}

function scriptedChannel() {
  let push: ((e: Record<string, string>) => void) | undefined;
  let open: ((isOpen: boolean) => void) | undefined;
  const connect: EventConnector = (o) => {
    push = (e) => o.onEvent({ "Event-Subclass": "callcenter::info", ...e });
    open = o.onOpenChange;
    return { close: () => (push = undefined) };
  };
  return { connect, push: (e: Record<string, string>) => push?.(e), open: (v: boolean) => open?.(v) };
}

const cleanups: Array<() => unknown> = [];
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.useRealTimers();
});

async function setup(
  o: {
    agents?: number;
    user?: FakeUser;
    center?: (c: SimulatedCenter) => void;
    /** Answers before the center's (the day's records, say). */
    routes?: ReturnType<typeof fakePlatform>["overrides"];
    /** The event channel, before the board opens. */
    channel?: (c: ReturnType<typeof scriptedChannel>) => void;
    /** The browser's storage (the same one: a reload). */
    device?: KeyValueStorage;
    /** Where the day's records are kept (the same one: a reload); none by default. */
    dayCache?: DayCache;
  } = {},
) {
  const center = new SimulatedCenter(o.agents ?? 20);
  o.center?.(center);
  const platform = fakePlatform([sam, ada, alice]);
  platform.overrides.push(...(o.routes ?? []), center.route);
  const device = o.device ?? memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  const channel = scriptedChannel();
  o.channel?.(channel);
  const feed = createEventFeed({ session, settings, pageHref: () => "https://app.test/", connect: channel.connect });
  const board = createWallboard({ session, feed, storage: device, dayCache: o.dayCache ?? null });
  cleanups.push(
    () => board.dispose(),
    () => feed.dispose(),
  );
  const user = o.user ?? sam;
  await session
    .getState()
    .signIn({ login: user.login, password: user.password, platformUrl: "https://pbx.example.com" });
  const unwatch = board.watch();
  cleanups.push(unwatch);
  await vi.waitFor(() => expect(board.store.getState().loading).toBe(false));
  /** Sends the simulated center's new events down the channel. */
  let sent = 0;
  const deliver = () => {
    for (; sent < center.events.length; sent++) channel.push(center.events[sent]!);
  };
  return { center, channel, feed, board, session, state: () => board.store.getState(), deliver };
}

/** Every row as the truth has it: status, reason, who the call is with. */
function expectBoardMatches(board: ReturnType<typeof createWallboard>, center: SimulatedCenter) {
  const rows = board.store.getState().board.agents;
  expect(rows.size).toBe(center.agents.size);
  const wrong = [...center.agents.values()].filter((a) => {
    const row = rows.get(a.agent_id);
    return (
      !row ||
      row.status !== a.status ||
      row.reason !== a.reason ||
      (row.call?.number ?? "") !== (a.call?.cid_number ?? "") ||
      (row.call?.uuid ?? "") !== a.agent_uuid
    );
  });
  expect(wrong.map((a) => a.agent_id)).toEqual([]);
}

describe("the supervisor's wallboard", () => {
  it("shows 2,000 agents and every one of a stream of 200 changes a second, replacing only the rows that changed; nothing is stale after the stream stops", async () => {
    const t = await setup({ agents: 2000 });
    t.channel.open(true);
    expect(t.state().board.agents.size).toBe(2000);
    const before = t.state().board.agents;
    let storeChanges = 0;
    t.board.store.subscribe(() => storeChanges++);

    // 5 s of 200 changes a second, sent every 10 ms.
    for (let ms = 0, i = 0; ms < 5000; ms += 10) {
      for (let k = 0; k < 2; k++) t.center.change(i++, T0 + ms);
      t.deliver();
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(200);
    expect(t.state().source).toBe("events");
    expectBoardMatches(t.board, t.center);
    // Batched: one store change per batch, not per event.
    expect(storeChanges).toBeLessThan(100);
    // Rows no change touched are the very same objects.
    const after = t.state().board.agents;
    const touched = new Set(t.center.events.map((e) => (e["CC-Agent"] ?? "").split(".").pop()));
    const untouched = [...before.keys()].filter((n) => !touched.has(n));
    expect(untouched.length).toBeGreaterThan(0);
    expect(untouched.every((n) => after.get(n) === before.get(n))).toBe(true);
    expect(t.state().stale).toBe(false);
  });

  it("notices a channel that stops sending events, reads agent_state instead, and marks figures stale when reads fail", async () => {
    const t = await setup({ agents: 50 });
    t.channel.open(true);
    t.center.change(0, T0);
    t.deliver();
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.state().source).toBe("events");
    const reads = t.center.reads;

    // The platform keeps changing but the channel says nothing.
    for (let i = 1; i < 40; i++) t.center.change(i, T0 + 1000 + i);
    await vi.advanceTimersByTimeAsync(16_000);
    expect(t.state().source).toBe("polling");
    expect(t.center.reads).toBeGreaterThan(reads);
    expectBoardMatches(t.board, t.center);

    // Reads fail too: the figures say they are stale, and why.
    t.center.failReads = true;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(t.state()).toMatchObject({ stale: true, readError: expect.stringMatching(/database unavailable/) });

    // Back to normal: fresh again.
    t.center.failReads = false;
    t.center.change(99, Date.now());
    await vi.advanceTimersByTimeAsync(6_000);
    expect(t.state()).toMatchObject({ stale: false, readError: null });
    expectBoardMatches(t.board, t.center);
  });

  it("reads agent_state every few seconds while the channel is closed", async () => {
    const t = await setup({ agents: 10 });
    expect(t.state().source).toBe("polling");
    t.center.change(1, T0);
    t.center.change(2, T0);
    await vi.advanceTimersByTimeAsync(6_000);
    expectBoardMatches(t.board, t.center);
  });

  it("counts per queue from live events: callers waiting and the longest wait, agents by status, offered, answered and abandoned, service level within 20 s, speed of answer; a new day starts again", async () => {
    const t = await setup({ agents: 4 });
    t.channel.open(true);
    const at = (s: number) => String((T0 + s * 1000) / 1000);
    const q = { "CC-Queue": "support" };
    const push = (e: Record<string, string>) => t.channel.push(e);
    push({
      "CC-Action": "member-queue-start",
      ...q,
      "CC-Member-UUID": "m1",
      "CC-Member-Session-UUID": "s-m1",
      "CC-Member-Joined-Time": at(0),
    });
    push({
      "CC-Action": "member-queue-start",
      ...q,
      "CC-Member-UUID": "m2",
      "CC-Member-Session-UUID": "s-m2",
      "CC-Member-Joined-Time": at(2),
    });
    push({
      "CC-Action": "member-queue-start",
      ...q,
      "CC-Member-UUID": "m3",
      "CC-Member-Session-UUID": "s-m3",
      "CC-Member-Joined-Time": at(3),
    });
    push({ "CC-Action": "members-count", ...q, "CC-Count": "3" });
    t.board.flush();
    let s = summarizeQueue(t.state().board, "support", 20, t.board.queueDay("support"));
    expect(s).toMatchObject({
      waiting: 3,
      longestWaitingSince: T0,
      waitingUnseen: 0,
      answered: 0,
      abandoned: 0,
      serviceLevel: null,
    });
    expect(s.byStatus).toMatchObject({ break: 2 });

    // m1 answered after 10 s, m2 after 30 s (outside 20 s), m3 gives up.
    push({
      "CC-Action": "agent-offering",
      ...q,
      "CC-Agent": "10000",
      "CC-Member-UUID": "m1",
      "CC-Member-Session-UUID": "s-m1",
      "CC-Member-CID-Number": "5550100",
    });
    push({
      "CC-Action": "bridge-agent-start",
      ...q,
      "CC-Agent": "10000",
      "CC-Agent-UUID": "leg1",
      "CC-Member-UUID": "m1",
      "CC-Member-Session-UUID": "s-m1",
      "CC-Member-CID-Number": "5550100",
      "CC-Member-Joined-Time": at(0),
      "CC-Agent-Answered-Time": at(10),
    });
    push({
      "CC-Action": "bridge-agent-start",
      ...q,
      "CC-Agent": "10002",
      "CC-Agent-UUID": "leg2",
      "CC-Member-UUID": "m2",
      "CC-Member-Session-UUID": "s-m2",
      "CC-Member-Joined-Time": at(2),
      "CC-Agent-Answered-Time": at(32),
    });
    push({
      "CC-Action": "member-queue-end",
      ...q,
      "CC-Cause": "Cancel",
      "CC-Member-UUID": "m3",
      "CC-Member-Session-UUID": "s-m3",
    });
    push({ "CC-Action": "members-count", ...q, "CC-Count": "0" });
    // A handover of m1 to another agent (a transfer) answers no new caller.
    push({
      "CC-Action": "bridge-agent-start",
      ...q,
      "CC-Agent": "10002",
      "CC-Agent-UUID": "leg3",
      "CC-Member-UUID": "m1",
      "CC-Member-Session-UUID": "s-m1",
      "CC-Member-Joined-Time": at(0),
      "CC-Agent-Answered-Time": at(40),
    });
    push({
      "CC-Action": "agent-status-change",
      "CC-Agent": "10000",
      "CC-Agent-Status": "On Break",
      "CC-Agent-Break-Reason": "lunch",
    });
    t.board.flush();
    s = summarizeQueue(t.state().board, "support", 20, t.board.queueDay("support"));
    expect(s).toMatchObject({ waiting: 0, longestWaitingSince: null, offered: 3, answered: 2, abandoned: 1 });
    expect(s.averageSpeedOfAnswer).toBe(20_000);
    expect(s.serviceLevel).toBeCloseTo(1 / 3);
    expect(summarizeQueue(t.state().board, "support", 40, t.board.queueDay("support")).serviceLevel).toBeCloseTo(2 / 3);
    expect(t.state().board.agents.get("10000")).toMatchObject({
      status: "On Break",
      kind: "break",
      reason: "lunch",
      call: { number: "5550100", uuid: "leg1", queue: "support" },
    });

    // A new day starts the counts again.
    vi.setSystemTime(T0 + 24 * 3600_000);
    push({ "CC-Action": "members-count", ...q, "CC-Count": "1" });
    t.board.flush();
    expect(summarizeQueue(t.state().board, "support", 20, t.board.queueDay("support"))).toMatchObject({
      waiting: 1,
      offered: 0,
      answered: 0,
      abandoned: 0,
      waitingUnseen: 1,
    });
  });

  it("is right the moment it opens: an agent in two queues counted in both, callers waiting with their longest wait, the queues' ids", async () => {
    const t = await setup({
      agents: 4,
      center: (c) => {
        // 10000 signed into support with a tier in sales too; two callers already wait in sales.
        c.tiers.set("sales", ["10000"]);
        c.waitingCallers = {
          sales: [
            { uuid: "m1", cid_number: "5550101", cid_name: "", joined_epoch: (T0 - 95_000) / 1000 },
            { uuid: "m2", cid_number: "5550102", cid_name: "", joined_epoch: (T0 - 20_000) / 1000 },
          ],
        };
      },
    });
    const board = t.state().board;
    expect(board.agents.get("10000")!.queues).toEqual(["sales", "support"]);
    expect(summarizeQueue(board, "sales", 20)).toMatchObject({
      waiting: 2,
      longestWaitingSince: T0 - 95_000,
      waitingUnseen: 0,
      byStatus: { break: 3 },
    });
    expect(summarizeQueue(board, "support", 20)).toMatchObject({ waiting: 0, byStatus: { break: 2 } });
    expect([board.queues.get("support")!.id, board.queues.get("sales")!.id]).toEqual(["1", "2"]);
    expect(t.state().membersListed).toBe(true);
  });

  it("reads each queue's records of the day as soon as a read tells its id, beside the rest of that read; the day is read once every queue's is", async () => {
    const asked: string[] = [];
    const { until: membersListed, letGo: listMembers } = heldBack();
    const { until: salesAnswered, letGo: answerSales } = heldBack();
    const routes: ReturnType<typeof fakePlatform>["overrides"] = [
      ({ url }) => {
        if (url.pathname === "/api/cc/queue_members") {
          asked.push(`members ${url.searchParams.get("queue")}`);
          return membersListed.then(() => json(200, []));
        }
        if (url.pathname !== "/api/cdrs") return undefined;
        const queue = url.searchParams.get("groupValue") === "1" ? "support" : "sales";
        asked.push(`records ${queue}`);
        const page = { rowCount: 1, page: 1, pageCount: 1, data: [dayCaller(queue, queue === "sales" ? 1 : 0)] };
        return (queue === "sales" ? salesAnswered : Promise.resolve()).then(() => json(200, page));
      },
    ];
    const opening = setup({ agents: 4, routes, center: (c) => c.tiers.set("sales", ["10000"]) });
    // Both queues' records are asked while the waiting callers are not listed yet.
    await vi.waitFor(() => expect(asked).toEqual(expect.arrayContaining(["records support", "records sales"])));
    expect(asked.filter((a) => a.startsWith("members"))).toHaveLength(2);
    listMembers();
    const t = await opening;
    // Support's records are in; sales' are not: the day is still being read.
    await vi.waitFor(() => expect(t.board.queueDay("support")?.figures(20).answered).toBe(1));
    expect(t.state().day.status).toBe("reading");
    answerSales();
    await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
    expect(t.board.queueDay("sales")?.figures(20)).toMatchObject({ offered: 1, answered: 1 });
    expect(t.state().day).toMatchObject({ records: 2, total: 2, error: null });
  });

  it("asks the day's records of the queues it showed last time as soon as it opens, under the ids learnt then; a queue made anew since is read again under its new id; nothing kept, or kept for another supervisor, waits for the agents' read", async () => {
    const device = memoryStorage();
    const key = "agentbar.queue-ids.supervisor@https://pbx.example.com";
    const asked: string[] = [];
    /** agent_state is answered once let go. */
    let letGo = () => {};
    let held = Promise.resolve();
    let center: SimulatedCenter | undefined;
    const routes: ReturnType<typeof fakePlatform>["overrides"] = [
      (req) => {
        const { url } = req;
        if (url.pathname === "/api/cc/agent_state") return held.then(() => center!.route(req)!);
        if (url.pathname !== "/api/cdrs") return undefined;
        const id = url.searchParams.get("groupValue")!;
        asked.push(id);
        // Queue 9 is the support queue of before, removed and made anew as queue 1.
        const data =
          {
            "1": [dayCaller("support", 0)],
            "2": [dayCaller("sales", 1)],
            "9": [0, 2, 3].map((i) => dayCaller("support", i)),
          }[id] ?? [];
        return json(200, { rowCount: data.length, page: 1, pageCount: 1, data });
      },
    ];
    /** Opens the board as `user` with agent_state held: which records it asked before agent_state answered, and the board once its day is read. */
    const open = async (user = sam) => {
      asked.length = 0;
      held = new Promise<void>((resolve) => (letGo = resolve));
      const opening = setup({ agents: 4, routes, device, user, center: (c) => (center = c) });
      await vi.advanceTimersByTimeAsync(500);
      const before = [...asked].sort();
      letGo();
      const t = await opening;
      await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
      const figures = (q: string) => t.board.queueDay(q)?.figures(20);
      return { before, asked: [...asked].sort(), support: figures("support"), sales: figures("sales"), t };
    };

    // Nothing kept: the records wait for the read that names the ids; the ids are kept.
    const first = await open();
    expect(first).toMatchObject({ before: [], asked: ["1", "2"], support: { answered: 1 }, sales: { answered: 1 } });
    expect(JSON.parse(device.getItem(key)!)).toEqual({ support: "1", sales: "2" });
    // A reload: both queues' records are asked before agent_state answered, and once.
    const reload = await open();
    expect(reload).toMatchObject({
      before: ["1", "2"],
      asked: ["1", "2"],
      support: { answered: 1 },
      sales: { answered: 1 },
    });
    expect(reload.t.state().day).toMatchObject({ records: 2, total: 2 });
    // Support made anew since (id 9 kept): what was read under 9 is dropped, the day read again under 1.
    device.setItem(key, JSON.stringify({ support: "9", sales: "2" }));
    const recreated = await open();
    expect(recreated.before).toEqual(["2", "9"]);
    expect(recreated.asked).toEqual(expect.arrayContaining(["1", "2", "9"]));
    expect(recreated).toMatchObject({ support: { offered: 1, answered: 1 }, sales: { answered: 1 } });
    expect(recreated.t.state().day).toMatchObject({ records: 2, total: 2 });
    expect(JSON.parse(device.getItem(key)!)).toEqual({ support: "1", sales: "2" });
    // Another supervisor on this browser, or something unreadable kept: nothing asked before the read.
    expect((await open(ada)).before).toEqual([]);
    for (const kept of ["not json", "[]", JSON.stringify({ support: 1, sales: "" })]) {
      device.setItem(key, kept);
      expect(await open()).toMatchObject({ before: [], asked: ["1", "2"], support: { answered: 1 } });
    }
  });

  it("keeps today's records in the browser: a reload reads only what ended since (from a minute before the newest kept), a call that ended while the board was closed counted; while open, what ends is read every minute and kept; signing out forgets the day", async () => {
    const device = memoryStorage();
    const cache = memoryDayCache();
    /** The platform's records by queue id; the day's reads asked, by kind. */
    const records = new Map([
      ["1", [dayCaller("support", 0), dayCaller("support", 1)]],
      ["2", [dayCaller("sales", 0)]],
    ]);
    const asked: string[] = [];
    const routes: ReturnType<typeof fakePlatform>["overrides"] = [
      ({ url }) => {
        if (url.pathname !== "/api/cdrs") return undefined;
        const q = Object.fromEntries(url.searchParams);
        const since = q.dateType === "end_stamp";
        asked.push(since ? `${q.groupValue} ended since ${q.startDate}` : `${q.groupValue} day`);
        const data = (records.get(q.groupValue!) ?? []).filter((r) =>
          since ? r.end_stamp >= q.startDate! : r.start_stamp >= q.startDate! && r.start_stamp <= q.endDate!,
        );
        return json(200, { rowCount: data.length, page: 1, pageCount: 1, data });
      },
    ];
    const open = async (dayCache: DayCache = cache) => {
      asked.length = 0;
      const t = await setup({ agents: 4, routes, device, dayCache });
      await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
      return t;
    };
    const figures = (t: Awaited<ReturnType<typeof open>>) => ({
      support: t.board.queueDay("support")?.figures(20),
      sales: t.board.queueDay("sales")?.figures(20),
      records: t.state().day.records,
    });

    // Yesterday's day was kept: it is forgotten (a minute after the board opens, below).
    const owner = "supervisor@https://pbx.example.com";
    const yesterday = new Date(T0).setHours(0, 0, 0, 0) - 86_400_000;
    const kept = { direction: "inbound", destination: "support", answeredAt: null, otherUuid: "", cc: {} };
    await cache.add(owner, "1", yesterday, [{ ...kept, uuid: "y", startedAt: yesterday, endedAt: yesterday }], true);
    // Nothing kept of today: the whole day is read, and kept.
    const first = await open();
    expect(asked.sort()).toEqual(["1 day", "2 day"]);
    expect(figures(first)).toMatchObject({ support: { answered: 2 }, sales: { answered: 1 }, records: 3 });
    first.board.dispose();
    // A call ends while the board is closed (support's third caller, ended at 04:01).
    records.get("1")!.push(dayCaller("support", 3));
    const reload = await open();
    // Support's newest kept record ended at 02:01, sales' at 01:01: what ended from a minute before.
    expect(asked.sort()).toEqual(["1 ended since 2026-03-02 02:00:00", "2 ended since 2026-03-02 01:00:00"]);
    const read = figures(reload);
    expect(read).toMatchObject({ support: { offered: 3, answered: 3 }, sales: { answered: 1 }, records: 4 });
    // As a whole read of the day has it.
    const whole = await open(memoryDayCache());
    expect(asked.sort()).toEqual(["1 day", "2 day"]);
    expect(figures(whole)).toEqual(read);
    whole.board.dispose();

    // While the board is open, a call ends that its events did not tell: the minute's read counts it.
    records.get("2")!.push(dayCaller("sales", 5));
    asked.length = 0;
    await vi.advanceTimersByTimeAsync(60_000);
    await vi.waitFor(() => expect(figures(reload)).toMatchObject({ sales: { answered: 2 }, records: 5 }));
    expect(asked).toContain("2 ended since 2026-03-02 01:00:00");
    expect(asked.filter((a) => a.endsWith("day"))).toEqual([]);
    expect(await cache.read(owner, "1", yesterday)).toBeNull();
    // ... and keeps it: the next reload reads from its end.
    reload.board.dispose();
    const again = await open();
    expect(asked.sort()).toEqual(["1 ended since 2026-03-02 04:00:00", "2 ended since 2026-03-02 06:00:00"]);
    expect(figures(again)).toMatchObject({ support: { answered: 3 }, sales: { answered: 2 }, records: 5 });

    // Signing out forgets the day: the next opening reads it whole.
    await again.session.getState().signOut();
    again.board.dispose();
    await open();
    expect(asked.sort()).toEqual(["1 day", "2 day"]);
  });

  it("keeps a queue's whole day in the browser only once every queue's read of it has ended, so that keeping one does not hold up another's pages", async () => {
    const { until: salesHeld, letGo: letSalesGo } = heldBack();
    const asked: string[] = [];
    const routes: ReturnType<typeof fakePlatform>["overrides"] = [
      ({ url }) => {
        if (url.pathname !== "/api/cdrs") return undefined;
        const id = url.searchParams.get("groupValue")!;
        asked.push(id);
        const data = id === "1" ? [dayCaller("support", 0)] : [dayCaller("sales", 1)];
        const answer = () => json(200, { rowCount: data.length, page: 1, pageCount: 1, data });
        return id === "2" ? salesHeld.then(answer) : answer();
      },
    ];
    const cache = memoryDayCache();
    const kept: string[] = [];
    const dayCache: DayCache = { ...cache, add: (...a) => (kept.push(a[1]), cache.add(...a)) };
    const t = await setup({ agents: 4, routes, dayCache });
    await vi.waitFor(() => expect(asked.sort()).toEqual(["1", "2"]));
    // Support's day is read and counted while sales' is still under way: nothing is kept yet.
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(t.board.queueDay("support")?.figures(20)).toMatchObject({ answered: 1 }));
    expect(kept).toEqual([]);
    letSalesGo();
    await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
    expect(kept.sort()).toEqual(["1", "2"]);
  });

  it("asks nothing more of the day's records once the board is closed", async () => {
    const { until: held, letGo } = heldBack();
    const asked: string[] = [];
    const routes: ReturnType<typeof fakePlatform>["overrides"] = [
      ({ url }) => {
        if (url.pathname !== "/api/cdrs") return undefined;
        const q = Object.fromEntries(url.searchParams);
        asked.push(`${q.groupValue} ${q.startDate}`);
        // A long day: its first page says 5,000 records, so that the rest is asked in spans after
        // it (each of which says it holds the one record it gives).
        const data = [dayCaller(q.groupValue === "1" ? "support" : "sales", 1)];
        const whole = q.startDate!.endsWith("00:00:00") && q.endDate!.endsWith("23:59:59");
        const rowCount = whole ? 5000 : 1;
        return held.then(() => json(200, { rowCount, page: 1, pageCount: Math.ceil(rowCount / 1000), data }));
      },
    ];
    const t = await setup({ agents: 4, routes });
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    t.board.dispose();
    letGo();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(asked).toHaveLength(2);
  });

  it("says so where the platform does not list waiting callers (the spec's platform)", async () => {
    const t = await setup({ agents: 2, center: (c) => (c.waitingCallers = null) });
    expect(t.state().membersListed).toBe(false);
    expect(t.state().readError).toBeNull();
    expect(t.state().board.agents.size).toBe(2);
  });

  it("reads an agent it does not know as soon as its first event arrives", async () => {
    const t = await setup({ agents: 2 });
    t.channel.open(true);
    const reads = t.center.reads;
    t.center.agents.set("20000", {
      ...t.center.agents.get("10000")!,
      agent_id: "20000",
      extn: "20000",
      name: "New Agent",
    });
    t.center.setStatus("20000", "Available", "", T0);
    t.deliver();
    await vi.advanceTimersByTimeAsync(200);
    expect(t.center.reads).toBeGreaterThan(reads);
    expect(t.state().board.agents.get("20000")).toMatchObject({ name: "New Agent", status: "Available" });
  });

  it("leaves out an agent of no queue (a supervisor signed in for a moment to listen to a call, signed out since), whatever events it sends; signed into a queue it is one of its agents, and leaves with the next read once signed out of every queue", async () => {
    const t = await setup({
      agents: 2,
      center: (c) =>
        c.agents.set("1010", {
          ...c.agents.get("10000")!,
          agent_id: "1010",
          extn: "1010",
          name: "Sam Supervisor",
          group_id: "",
          status: "Logged Out",
          state: "LOGOUT",
        }),
    });
    expect([...t.state().board.agents.keys()].sort()).toEqual(["10000", "10001"]);
    t.channel.open(true);
    const reads = t.center.reads;
    t.center.setStatus("1010", "Logged Out", "", T0);
    t.deliver();
    await vi.advanceTimersByTimeAsync(200);
    expect(t.center.reads).toBeGreaterThan(reads);
    expect(t.state().board.agents.has("1010")).toBe(false);
    t.center.agents.set("1010", { ...t.center.agents.get("1010")!, group_id: "support" });
    t.center.setStatus("1010", "Available", "", T0 + 1000);
    t.deliver();
    await vi.advanceTimersByTimeAsync(200);
    expect(t.state().board.agents.get("1010")).toMatchObject({ status: "Available", queues: ["support"] });
    t.center.agents.set("1010", { ...t.center.agents.get("1010")!, group_id: "" });
    t.center.setStatus("1010", "Logged Out", "", T0 + 2000);
    t.deliver();
    await t.board.refresh();
    expect(t.state().board.agents.has("1010")).toBe(false);
    expect(summarizeQueue(t.state().board, "support", 20, undefined).byStatus).toMatchObject({ ready: 0 });
  });

  it("applies the events received during a read again over its answer: an agent who signed in and out meanwhile is not left signed in by the older answer", async () => {
    // agent_state answers from `answered` (what the platform saw when it answered), once let go.
    let answered: SimulatedCenter | null = null;
    let letGo: () => void = () => {};
    let held = Promise.resolve();
    const t = await setup({
      agents: 4,
      center: (c) => c.agents.set("10001", { ...c.agents.get("10001")!, status: "Logged Out", state: "Waiting" }),
      routes: [
        (req) => {
          const from = answered;
          if (!from || req.method !== "GET" || req.url.pathname !== "/api/cc/agent_state") return undefined;
          return held.then(() => from.route(req)!);
        },
      ],
    });
    t.channel.open(true);
    const row = () => t.state().board.agents.get("10001");
    expect(row()).toMatchObject({ status: "Logged Out" });
    answered = new SimulatedCenter(0);
    for (const [n, a] of t.center.agents) answered.agents.set(n, a);
    held = new Promise<void>((resolve) => (letGo = resolve));
    // The read is sent; the supervisor signs in to a queue for a Monitor and the platform answers
    // the read while he is signed in; he signs out again.
    const reading = t.board.refresh();
    await vi.advanceTimersByTimeAsync(10);
    t.center.setStatus("10001", "Available", "", Date.now());
    answered.agents.set("10001", t.center.agents.get("10001")!);
    await vi.advanceTimersByTimeAsync(10);
    t.center.setStatus("10001", "Logged Out", "", Date.now());
    t.deliver();
    // Both events are on the board before the read's answer arrives.
    await vi.advanceTimersByTimeAsync(200);
    expect(row()).toMatchObject({ status: "Logged Out" });
    const reads = answered.reads;
    letGo();
    await reading;
    expect(answered.reads).toBeGreaterThan(reads);
    expect(row()).toMatchObject({ status: "Logged Out", kind: "logged-out" });
    // Nobody unknown was named: no second read follows.
    const after = answered.reads + t.center.reads;
    await vi.advanceTimersByTimeAsync(3000);
    expect(answered.reads + t.center.reads).toBe(after);
  });

  it("reads once while it opens, though events for its agents arrive during that read; an agent the read did not list is read right after", async () => {
    /**
     * Opens a board whose first read takes 300 ms, during which `onBreak` go on break and, with
     * `newcomer`, agent 20000 signs in, unlisted by the first `hideFor` agent_state answers.
     */
    const open = async (onBreak: string[], newcomer = false, hideFor = 0) => {
      let channel: ReturnType<typeof scriptedChannel> | undefined;
      let center: SimulatedCenter | undefined;
      let asked = 0;
      const t = await setup({
        center: (c) => (center = c),
        channel: (c) => (channel = c),
        routes: [
          (req) => {
            if (req.method !== "GET" || req.url.pathname !== "/api/cc/agent_state") return undefined;
            const c = center!;
            const answer = async () => {
              if (++asked === 1) {
                channel!.open(true);
                for (const n of onBreak) c.setStatus(n, "On Break", "lunch", T0);
                if (newcomer) {
                  c.agents.set("20000", {
                    ...c.agents.get("10000")!,
                    agent_id: "20000",
                    extn: "20000",
                    name: "New Agent",
                  });
                  c.setStatus("20000", "Available", "", T0);
                }
                for (const e of c.events) channel!.push(e);
                await new Promise((resolve) => setTimeout(resolve, 300));
              }
              const response = c.route(req)!;
              if (asked > hideFor) return response;
              const rows = (await response.json()) as { agent_id: string }[];
              return json(
                200,
                rows.filter((r) => r.agent_id !== "20000"),
              );
            };
            return answer();
          },
        ],
      });
      await vi.advanceTimersByTimeAsync(2000);
      return { board: t.state().board, reads: center!.reads };
    };
    const oneRead = (await open([])).reads;
    const busy = await open(["10001", "10002", "10003"]);
    expect(busy.reads).toBe(oneRead);
    expect(busy.board.agents.get("10002")).toMatchObject({ status: "On Break", reason: "lunch" });
    const joined = await open(["10001"], true, oneRead);
    expect(joined.reads).toBe(2 * oneRead);
    expect(joined.board.agents.get("20000")).toMatchObject({ name: "New Agent", status: "Available" });
  });

  it("keeps an agent's time in status when the same status is told again, whatever break reason the event carries", async () => {
    const t = await setup({ agents: 2 });
    t.channel.open(true);
    t.center.setStatus("10000", "Available", "", Date.now());
    t.center.setStatus("10001", "On Break", "lunch", Date.now());
    t.deliver();
    await vi.advanceTimersByTimeAsync(1_000);
    const before = (n: string) => t.state().board.agents.get(n)!.statusSince;
    const [available, lunch] = [before("10000"), before("10001")];
    t.center.events.push({
      "Event-Date-Timestamp": String(Date.now() * 1000),
      "CC-Action": "agent-status-change",
      "CC-Agent": "10000",
      "CC-Agent-Status": "Available",
      "CC-Agent-Break-Reason": "lunch",
    });
    // A break's reason still counts: another reason is another status.
    t.center.setStatus("10001", "On Break", "training", Date.now());
    t.deliver();
    await vi.advanceTimersByTimeAsync(200);
    expect(t.state().board.agents.get("10000")).toMatchObject({
      status: "Available",
      reason: "",
      statusSince: available,
    });
    expect(t.state().board.agents.get("10001")).toMatchObject({ reason: "training" });
    expect(before("10001")).toBeGreaterThan(lunch);
  });

  // The platform runs 8 hours ahead of this browser's zone and its clock 1.5 s behind.
  const zone = 8 * 3600_000;
  const skew = 1_500;
  /** A moment as the platform writes it: its local time, without a zone. */
  const local = (ms: number) => {
    const d = new Date(ms + zone);
    const p = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  };
  /** An event of the platform's now, which measures its clock. */
  const measuringEvent = () => {
    const platformNow = Date.now() - skew;
    return {
      "CC-Action": "members-count",
      "CC-Queue": "support",
      "CC-Count": "0",
      "Event-Date-Timestamp": String(platformNow * 1000),
      "Event-Date-Local": local(platformNow),
    };
  };

  it("shows time in status from the platform's status_since, read with the platform's zone and clock, once an event measured them", async () => {
    const t = await setup({
      agents: 2,
      center: (c) => {
        const a = c.agents.get("10000")!;
        c.agents.set("10000", { ...a, status_since: local(T0 - skew - 125_000), wrap_up_until: "" });
      },
    });
    const row = () => t.state().board.agents.get("10000")!;
    expect(statusSinceOf(row(), t.board.clock)).toMatchObject({ exact: false });
    t.channel.open(true);
    t.channel.push(measuringEvent());
    t.board.flush();
    expect(t.state().clockOffset).toBe(zone - skew);
    // The platform's stamps are whole seconds: right within one.
    const since = statusSinceOf(row(), t.board.clock);
    expect(since.exact).toBe(true);
    expect(Math.abs(since.at - (T0 - 125_000))).toBeLessThan(1_000);
  });

  it("keeps the platform's clock as measured for the next opening: after a reload, before any event, time in status is exact and a wrap-up that ended is over", async () => {
    const device = memoryStorage();
    // On break for 2 minutes; the wrap-up of its last call ended a minute ago.
    const center = (c: SimulatedCenter) =>
      c.agents.set("10000", {
        ...c.agents.get("10000")!,
        status_since: local(Date.now() - skew - 125_000),
        wrap_up_until: local(Date.now() - skew - 60_000),
      });
    const first = await setup({ agents: 2, device, center });
    first.channel.open(true);
    first.channel.push(measuringEvent());
    first.board.flush();
    first.board.dispose();
    // The next opening, an hour later: no event has come yet.
    await vi.advanceTimersByTimeAsync(3600_000);
    const reload = await setup({ agents: 2, device, center });
    const row = reload.state().board.agents.get("10000")!;
    expect(reload.state().clockOffset).toBe(zone - skew);
    const since = statusSinceOf(row, reload.board.clock);
    expect(since.exact).toBe(true);
    expect(Math.abs(since.at - (Date.now() - 125_000))).toBeLessThan(1_000);
    expect(inWrapUp(row, reload.board.clock, Date.now())).toBe(false);
    // The next morning too: the day's records are asked in the platform's time from the start.
    reload.board.dispose();
    await vi.advanceTimersByTimeAsync(20 * 3600_000);
    const asked: string[] = [];
    const nextDay = await setup({
      agents: 2,
      device,
      center,
      routes: [
        ({ url }) => {
          if (url.pathname !== "/api/cdrs") return undefined;
          asked.push(url.searchParams.get("startDate") ?? "");
          return json(200, { rowCount: 0, page: 1, pageCount: 1, data: [] });
        },
      ],
    });
    expect(nextDay.state().clockOffset).toBe(zone - skew);
    await vi.waitFor(() => expect(asked.length).toBeGreaterThan(0));
    expect(new Set(asked)).toEqual(new Set([local(new Date(Date.now()).setHours(0, 0, 0, 0) - skew)]));
  });

  it("reads the day again in the platform's time once an event tells its zone, at the first opening in this browser, and does not keep the day read in the wrong one", async () => {
    const cache = memoryDayCache();
    const midnight = new Date(Date.now()).setHours(0, 0, 0, 0);
    const asked: string[] = [];
    const t = await setup({
      agents: 2,
      dayCache: cache,
      routes: [
        ({ url }) => {
          if (url.pathname !== "/api/cdrs") return undefined;
          // The whole day (by start), or what ended since a day kept (by end).
          asked.push(`${url.searchParams.get("dateType") ?? "start_stamp"} ${url.searchParams.get("startDate")}`);
          return json(200, { rowCount: 0, page: 1, pageCount: 1, data: [] });
        },
      ],
    });
    // Nothing tells the platform's zone yet: the day is asked in this browser's.
    await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
    expect(new Set(asked)).toEqual(new Set([`start_stamp ${local(midnight - zone)}`]));
    const owner = "supervisor@https://pbx.example.com";
    expect(await cache.read(owner, "1", midnight)).not.toBeNull();
    // An event says the platform runs 8 hours ahead: the day is read again from the platform's
    // midnight, whatever was kept, and that read is what is kept now.
    asked.length = 0;
    t.channel.open(true);
    t.channel.push(measuringEvent());
    t.board.flush();
    await vi.waitFor(() => expect(t.state().day.status).toBe("read"));
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set([`start_stamp ${local(midnight - skew)}`]));
    // A later event refines the clock by a few ms: nothing is asked again.
    asked.length = 0;
    t.channel.push(measuringEvent());
    t.board.flush();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked).toEqual([]);
  });

  it("shows after-call work: a queue call that ends reads its queue again, which says until when wrap-up runs", async () => {
    const t = await setup({ agents: 2 });
    t.channel.open(true);
    t.center.startCall("10000", "5550100", T0);
    t.deliver();
    t.board.flush();
    t.center.endCall("10000", T0 + 1000);
    t.center.agents.set("10000", { ...t.center.agents.get("10000")!, wrap_up_until: "2999-01-01 00:00:00" });
    t.deliver();
    await vi.advanceTimersByTimeAsync(2_500);
    expect(t.state().board.agents.get("10000")!.wrapUpUntil).toBe("2999-01-01 00:00:00");
    expect(inWrapUp(t.state().board.agents.get("10000")!, t.board.clock, Date.now())).toBe(true);
  });

  it("runs only for supervisors and administrators", async () => {
    // From the spec's system_roles and is_admin, never from the label currentAuthority.
    const user = (systemRoles: string[], isAdmin = false) => ({ systemRoles, isAdmin });
    expect([
      showsWallboard(user(["supervisor"])),
      showsWallboard(user([], true)),
      showsWallboard(user(["Administrator"])),
      showsWallboard(user(["agent"])),
      showsWallboard(user(["user"])),
      showsWallboard(user([])),
      showsWallboard(null),
    ]).toEqual([true, true, true, false, false, false, false]);
    const t = await setup({ agents: 5, user: alice });
    expect(t.state()).toMatchObject({ source: "off" });
    expect(t.center.reads).toBe(0);
  });
});

describe("the board's order of agents, kept up to date batch by batch", () => {
  /** A small generator with a seed, so that a failure is the same at every run. */
  const random = (seed: number) => () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const KINDS = ["ready", "on-demand", "break", "logged-out", "unknown"] as const;
  const agentRow = (n: number, pick: () => number, at: number): WallboardAgent => {
    const kind = KINDS[Math.floor(pick() * KINDS.length)]!;
    return {
      number: String(10000 + n),
      // Few names and few moments: many agents tie on them, and only the number tells them apart.
      name: `Agent ${Math.floor(pick() * 40)}`,
      extension: String(10000 + n),
      status: kind,
      kind,
      reason: "",
      state: "",
      callstate: "",
      call:
        pick() < 0.3
          ? { uuid: `c${n}`, number: "5550100", name: "", queue: "support", answeredAt: at, kind: "queue", member: "" }
          : null,
      statusSince: at - Math.floor(pick() * 5) * 1000,
      statusSinceExact: true,
      platformSince: "",
      noAnswerCount: null,
      queues: pick() < 0.5 ? ["support"] : ["sales", "support"],
      wrapUpUntil: "",
    };
  };
  const queries: AgentQuery[] = [
    { search: "", queue: "", status: "", sort: "status" },
    { search: "", queue: "sales", status: "", sort: "status" },
    { search: "agent 1", queue: "", status: "", sort: "name" },
    { search: "", queue: "", status: "break", sort: "time" },
    { search: "", queue: "support", status: "in-call", sort: "extension" },
  ];

  it("equals a whole sort after every batch of random changes, arrivals and departures, for every order and filter", () => {
    const pick = random(27);
    let at = T0;
    let agents = new Map(Array.from({ length: 500 }, (_, n) => [String(10000 + n), agentRow(n, pick, at)]));
    const orders = queries.map(() => new AgentOrder());
    let next = 500;
    for (let batch = 0; batch < 200; batch++) {
      at += 100;
      const changed = new Map(agents);
      for (let k = 0; k < 50; k++) {
        const number = String(10000 + Math.floor(pick() * next));
        const row = changed.get(number);
        const dice = pick();
        if (dice < 0.05) changed.delete(number);
        else if (dice < 0.1 || !row) changed.set(number, agentRow(Number(number) - 10000, pick, at));
        // A change of status (a new moment), of call, or of what the order does not look at (its state).
        else if (dice < 0.6) changed.set(number, { ...row, kind: KINDS[Math.floor(pick() * 5)]!, statusSince: at });
        else if (dice < 0.8) changed.set(number, { ...row, call: row.call ? null : agentRow(0, () => 0, at).call });
        else changed.set(number, { ...row, state: row.state ? "" : "Waiting" });
      }
      if (pick() < 0.1) changed.set(String(10000 + next), agentRow(next++, pick, at));
      agents = changed;
      queries.forEach((q, i) => expect(orders[i]!.select(agents, q)).toEqual(selectAgents(agents, q)));
    }
  });

  it("equals a whole sort after every draft's batch: statuses of one millisecond, renames, arrivals and departures", () => {
    const pick = random(41);
    let at = T0;
    let board = {
      agents: new Map(Array.from({ length: 500 }, (_, n) => [String(10000 + n), agentRow(n, pick, at)])),
      queues: new Map(),
      countingSince: at,
    } as ReturnType<WallboardDraft["finish"]>;
    const orders = queries.map(() => new AgentOrder());
    queries.forEach((q, i) => expect(orders[i]!.select(board.agents, q)).toEqual(selectAgents(board.agents, q)));
    let next = 500;
    for (let batch = 0; batch < 200; batch++) {
      // Every status of a batch at the same moment: they tie, and only the name and number order them.
      at += 50;
      const d = new WallboardDraft(board);
      for (let k = 0; k < 50; k++) {
        const number = String(10000 + Math.floor(pick() * next));
        const row = d.agent(number);
        const dice = pick();
        if (dice < 0.03) d.removeAgent(number);
        else if (dice < 0.06 || !row) d.setAgent(agentRow(Number(number) - 10000, pick, at));
        else if (dice < 0.1) d.patchAgent(number, { name: `Agent ${Math.floor(pick() * 40)}` });
        else if (dice < 0.6) d.patchAgent(number, { kind: KINDS[Math.floor(pick() * 5)]!, statusSince: at });
        else if (dice < 0.8) d.patchAgent(number, { call: row.call ? null : agentRow(0, () => 0, at).call });
        else d.patchAgent(number, { state: row.state ? "" : "Waiting" });
      }
      if (pick() < 0.1) d.setAgent(agentRow(next++, pick, at));
      board = d.finish();
      queries.forEach((q, i) => expect(orders[i]!.select(board.agents, q)).toEqual(selectAgents(board.agents, q)));
    }
  });

  it("counts each queue's agents by status from the last batch's counts and the agents it changed, as a whole count does", () => {
    const pick = random(11);
    const at = T0;
    let board = {
      agents: new Map(Array.from({ length: 400 }, (_, n) => [String(10000 + n), agentRow(n, pick, at)])),
      queues: new Map(),
      countingSince: at,
    } as ReturnType<WallboardDraft["finish"]>;
    const counts = (b: typeof board) =>
      ["support", "sales"].map((q) => {
        const { byStatus, inCall } = summarizeQueue(b, q, 20);
        return { byStatus, inCall };
      });
    counts(board);
    for (let batch = 0; batch < 100; batch++) {
      const d = new WallboardDraft(board);
      for (let k = 0; k < 30; k++) {
        const number = String(10000 + Math.floor(pick() * 420));
        const row = d.agent(number);
        const dice = pick();
        if (dice < 0.05) d.removeAgent(number);
        else if (dice < 0.1 || !row) d.setAgent(agentRow(Number(number) - 10000, pick, at));
        else if (dice < 0.7) d.patchAgent(number, { kind: KINDS[Math.floor(pick() * 5)]! });
        else d.patchAgent(number, { call: row.call ? null : agentRow(0, () => 0, at).call });
      }
      board = d.finish();
      // Counted from the batch before (the tiles count every batch) against a board nothing knows of.
      expect(counts(board)).toEqual(counts({ ...board, agents: new Map(board.agents) }));
    }
  });

  it("orders afresh for a new query, and answers the same list again when nothing changed", () => {
    const pick = random(5);
    const agents = new Map(Array.from({ length: 300 }, (_, n) => [String(10000 + n), agentRow(n, pick, T0)]));
    const order = new AgentOrder();
    const first = order.select(agents, queries[0]!);
    expect(order.select(agents, queries[0]!)).toBe(first);
    for (const q of [...queries, queries[0]!]) expect(order.select(agents, { ...q })).toEqual(selectAgents(agents, q));
    // Sorted as the status order says: in a call first, then by status, the longest in it first.
    const rows = first.map((n) => agents.get(n)!);
    expect(rows.findIndex((a) => !a.call)).toBe(rows.filter((a) => a.call).length);
  });
});
