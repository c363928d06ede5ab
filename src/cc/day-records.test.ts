import { describe, expect, it } from "vitest";
import { PlatformClient } from "../api/client";
import { listCdrs, parseStamp } from "../api/cdrs";
import { limiter, platformDay, readDayRecords, readRecordsEndedSince } from "./day-records";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const DAY = { startDate: "2031-05-06 00:00:00", endDate: "2031-05-06 23:59:59" };
const at = (h: number, m = 0, s = 0) => new Date(2031, 4, 6, h, m, s).getTime();
const pad = (n: number) => String(n).padStart(2, "0");
const stamp = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

interface Row {
  uuid: string;
  start: number;
  end?: number;
}

/**
 * A platform holding `rows` (each begun at `start`), answering as the local platform does: the
 * records whose start is within `startDate`..`endDate` (both inclusive; with `dateType=end_stamp`,
 * those that ended from `startDate` on), newest start first (or as written, `ordered: false`),
 * paged by offset. Each answer waits a macrotask, so that requests
 * overlap; `onRequest` may write records meanwhile, as a busy centre does.
 */
function platformWith(rows: Row[], options: { ordered?: boolean; onRequest?: (url: URL, rows: Row[]) => void } = {}) {
  const asked: URL[] = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url);
    mostAtOnce = Math.max(mostAtOnce, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 0));
    inFlight--;
    options.onRequest?.(url, rows);
    const q = url.searchParams;
    const from = parseStamp(q.get("startDate")!)!;
    const to = parseStamp(q.get("endDate") ?? "")!;
    const page = Number(q.get("page"));
    const perPage = Number(q.get("perPage"));
    const within = rows.filter((r) =>
      q.get("dateType") === "end_stamp" ? (r.end ?? 0) >= from : r.start >= from && r.start <= to,
    );
    if (options.ordered !== false) within.sort((a, b) => b.start - a.start);
    return json(200, {
      rowCount: within.length,
      page,
      pageCount: Math.max(1, Math.ceil(within.length / perPage)),
      data: within.slice((page - 1) * perPage, page * perPage).map((r) => ({
        uuid: r.uuid,
        caller_id_number: "5550100",
        destination_number: "support",
        start_stamp: stamp(r.start),
        ...(r.end ? { end_stamp: stamp(r.end) } : {}),
        direction: "inbound",
      })),
    });
  }) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
  client.setCredentials({ token: "tok", expires: Date.now() / 1000 + 3600 });
  return { client, asked, rows, mostAtOnce: () => mostAtOnce };
}

/** `n` records through the day from 08:00, one every `gapSeconds`. */
const dayOf = (n: number, gapSeconds = 7) =>
  Array.from({ length: n }, (_, i) => ({ uuid: `r${i}`, start: at(8) + i * gapSeconds * 1000 }));

describe("a day's call records", () => {
  it("reads every record of the day once, newest first, several requests at once, cut by time", async () => {
    const p = platformWith(dayOf(95));
    const progress: { read: number; total: number }[] = [];
    const got = await readDayRecords(
      p.client,
      { ...DAY, groupValue: "3" },
      { perPage: 10, parallel: 3, onPage: (_, pr) => progress.push({ ...pr }) },
    );
    expect(got.map((r) => r.uuid)).toEqual([...p.rows].reverse().map((r) => r.uuid));
    expect(p.mostAtOnce()).toBe(3);
    // The whole day's first page, then spans of the day by time, never a page by offset.
    expect(Object.fromEntries(p.asked[0]!.searchParams)).toEqual({ page: "1", perPage: "10", ...DAY, groupValue: "3" });
    expect(p.asked.slice(1).every((u) => u.searchParams.get("page") === "1")).toBe(true);
    expect(p.asked.every((u) => u.searchParams.get("groupValue") === "3")).toBe(true);
    expect(progress[0]).toEqual({ read: 10, total: 95 });
    expect(progress.at(-1)).toEqual({ read: 95, total: 95 });
  });

  it("asks the next page once a page's body has come, while that one is still being read", async () => {
    const p = platformWith(dayOf(95));
    let reading = 0;
    let mostReading = 0;
    let askedWhileReading = 0;
    const got = await readDayRecords(p.client, DAY, {
      perPage: 10,
      parallel: 2,
      // A page whose body came (`bodyIn`) is read for a while after (in a worker, say).
      readPage: async (client, query, bodyIn) => {
        if (reading) askedWhileReading++;
        const page = await listCdrs(client, query);
        bodyIn?.();
        mostReading = Math.max(mostReading, ++reading);
        await new Promise((resolve) => setTimeout(resolve, 5));
        reading--;
        return page;
      },
    });
    expect(got).toHaveLength(95);
    // Two requests at a time, yet more than two pages being read at once.
    expect(p.mostAtOnce()).toBe(2);
    expect(mostReading).toBeGreaterThan(2);
    expect(askedWhileReading).toBeGreaterThan(0);
  });

  it("frees a request's place when its page fails, before its body came or after: reads sharing the limit go on", async () => {
    const p = platformWith(dayOf(30));
    const limit = limiter(1);
    const failing = [
      // A reader that throws at once, one whose request fails (no body), one whose body came but cannot be read.
      readDayRecords(p.client, DAY, {
        limit,
        readPage: () => {
          throw new Error("refused at once");
        },
      }),
      readDayRecords(p.client, DAY, { limit, readPage: async () => Promise.reject(new Error("no answer")) }),
      readDayRecords(p.client, DAY, {
        limit,
        readPage: async (client, query, bodyIn) => {
          await listCdrs(client, query);
          bodyIn?.();
          throw new Error("cannot be read");
        },
      }),
    ];
    const reading = readDayRecords(p.client, DAY, { perPage: 10, limit });
    expect(await Promise.all(failing.map((f) => f.catch((e: Error) => e.message)))).toEqual([
      "refused at once",
      "no answer",
      "cannot be read",
    ]);
    expect(await reading).toHaveLength(30);
  });

  it("skips none and keeps each once when records are written while it reads, old starts and new", async () => {
    let written = 0;
    const p = platformWith(dayOf(200, 3), {
      onRequest: (_, rows) => {
        // A long call that began early in the day ends (its record is written now), and a short one just now.
        if (written < 20)
          rows.push({ uuid: `late${written}`, start: at(8, 1, written) }, { uuid: `new${written++}`, start: at(22) });
      },
    });
    const before = new Set(p.rows.map((r) => r.uuid));
    const got = await readDayRecords(p.client, DAY, { perPage: 10 });
    const uuids = got.map((r) => r.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    for (const uuid of before) expect(uuids).toContain(uuid);
  });

  it("reads a second that holds more than a page page after page", async () => {
    const p = platformWith([
      ...Array.from({ length: 25 }, (_, i) => ({ uuid: `same${i}`, start: at(9) })),
      ...dayOf(12),
    ]);
    const got = await readDayRecords(p.client, DAY, { perPage: 10 });
    expect(new Set(got.map((r) => r.uuid)).size).toBe(37);
    expect(got).toHaveLength(37);
  });

  it("reads page after page a platform that does not give the newest start first", async () => {
    const p = platformWith(dayOf(45), { ordered: false });
    const got = await readDayRecords(p.client, DAY, { perPage: 10 });
    expect(got).toHaveLength(45);
    expect(p.asked.map((u) => u.searchParams.get("page"))).toEqual(["1", "2", "3", "4", "5"]);
    expect(p.asked.every((u) => u.searchParams.get("startDate") === DAY.startDate)).toBe(true);
  });

  it("names the browser's day in the platform's local time, shifted by the platform's clock offset", () => {
    const t = new Date(2031, 4, 6, 15, 30).getTime();
    expect(platformDay(t, null)).toMatchObject({ startDate: "2031-05-06 00:00:00", endDate: "2031-05-06 23:59:59" });
    // A platform 8 hours ahead: the browser's midnight is 08:00 there.
    expect(platformDay(t, 8 * 3600_000)).toMatchObject({
      startDate: "2031-05-06 08:00:00",
      endDate: "2031-05-07 07:59:59",
    });
  });
});

describe("requests under way at once", () => {
  /** A task that runs until it is let go. */
  const held = () => {
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    return { release, task: () => done };
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it("runs at most the number given, the others in their order as each ends", async () => {
    const limit = limiter(2);
    const tasks = [held(), held(), held()];
    const started: number[] = [];
    const runs = tasks.map((t, i) => limit(() => (started.push(i), t.task())));
    await settle();
    expect(started).toEqual([0, 1]);
    tasks[1]!.release();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    tasks[0]!.release();
    tasks[2]!.release();
    await Promise.all(runs);
  });

  it("takes a number that may grow: next() starts those waiting", async () => {
    let most = 1;
    const limit = limiter(() => most);
    const tasks = [held(), held(), held()];
    const started: number[] = [];
    const runs = tasks.map((t, i) => limit(() => (started.push(i), t.task())));
    await settle();
    expect(started).toEqual([0]);
    most = 3;
    limit.next();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    for (const t of tasks) t.release();
    await Promise.all(runs);
  });
});

describe("the records that ended since a moment", () => {
  it("asks by end, page after page: records written meanwhile push others onto the next page, yet each is kept once and none is missed", async () => {
    /** Records that began from 08:00, each ending an hour later, one every minute. */
    const rows = Array.from({ length: 25 }, (_, i) => ({ uuid: `r${i}`, start: at(8, i), end: at(9, i) }));
    // A busy centre: two calls end while the pages are read (begun after every other, so newest first).
    const { client, asked } = platformWith(rows, {
      onRequest: (_, rows) => {
        if (asked.length === 2) rows.push({ uuid: "late1", start: at(8, 50), end: at(9, 50) });
        if (asked.length === 3) rows.push({ uuid: "late2", start: at(8, 51), end: at(9, 51) });
      },
    });
    const got = await readRecordsEndedSince(client, { since: at(9, 5), groupValue: "3" }, { perPage: 5 });
    const queries = asked.map((u) => u.searchParams);
    expect(queries.map((q) => [q.get("dateType"), q.get("startDate"), q.get("groupValue"), q.get("page")])).toEqual(
      Array.from({ length: queries.length }, (_, i) => ["end_stamp", "2031-05-06 09:05:00", "3", String(i + 1)]),
    );
    // r5..r24 ended since 09:05: each once, none missed. The two written meanwhile went before the
    // pages read; the next read since (the board's, a minute later) has them.
    expect(got.map((r) => r.uuid).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i + 5}`).sort());
    const next = await readRecordsEndedSince(client, { since: at(9, 45), groupValue: "3" }, { perPage: 5 });
    expect(next.map((r) => r.uuid).sort()).toEqual(["late1", "late2"]);
  });
});
