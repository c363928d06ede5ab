import { describe, expect, it } from "vitest";
import { PlatformClient } from "../api/client";
import { platformDay, readDayRecords } from "./day-records";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const record = (uuid: string) => ({
  uuid,
  caller_id_number: "5550100",
  destination_number: "support",
  start_stamp: "2031-05-06 09:00:00",
  direction: "inbound",
});

/**
 * A platform holding `total` records newest first; `onRequest` may add newer ones between pages,
 * as a busy centre writes records while they are read.
 */
function platformWith(total: number, onRequest: (page: number, rows: string[]) => void = () => {}) {
  const rows = Array.from({ length: total }, (_, i) => `r${total - i}`);
  const asked: URL[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url);
    const page = Number(url.searchParams.get("page"));
    const perPage = Number(url.searchParams.get("perPage"));
    onRequest(page, rows);
    return json(200, {
      rowCount: rows.length,
      page,
      pageCount: Math.ceil(rows.length / perPage),
      data: rows.slice((page - 1) * perPage, page * perPage).map(record),
    });
  }) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
  client.setCredentials({ token: "tok", expires: Date.now() / 1000 + 3600 });
  return { client, asked, rows };
}

describe("a day's call records", () => {
  it("reads every page of the day, of one queue, pausing between pages", async () => {
    const p = platformWith(25);
    let pauses = 0;
    const pages: number[] = [];
    const got = await readDayRecords(
      p.client,
      { startDate: "2031-05-06 00:00:00", endDate: "2031-05-06 23:59:59", groupValue: "3" },
      { perPage: 10, pause: async () => void pauses++, onPage: (r, { page }) => pages.push(page * 100 + r.length) },
    );
    expect(got.map((r) => r.uuid)).toEqual(p.rows);
    expect(pages).toEqual([110, 210, 305]);
    expect(pauses).toBe(2);
    expect(Object.fromEntries(p.asked[0]!.searchParams)).toEqual({
      page: "1",
      perPage: "10",
      startDate: "2031-05-06 00:00:00",
      endDate: "2031-05-06 23:59:59",
      groupValue: "3",
    });
  });

  it("keeps each record once and skips none when records are written while it reads", async () => {
    let added = 0;
    const p = platformWith(25, (page, rows) => {
      // Three new records land on the first page while the second and third are read.
      if (page > 1 && added < 3) rows.unshift(`new${++added}`, ...(page === 2 ? [`new${++added}`] : []));
    });
    const got = await readDayRecords(
      p.client,
      { startDate: "2031-05-06", endDate: "2031-05-06" },
      { perPage: 10, pause: async () => {} },
    );
    const uuids = got.map((r) => r.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    // Every record there was when the read began is in it.
    for (let i = 1; i <= 25; i++) expect(uuids).toContain(`r${i}`);
  });

  it("catches up: stops at the first page it already knows", async () => {
    const p = platformWith(30);
    const known = new Set(p.rows.slice(5));
    p.rows.unshift("n2", "n1");
    const got = await readDayRecords(
      p.client,
      { startDate: "2031-05-06", endDate: "2031-05-06" },
      { perPage: 10, pause: async () => {}, known: (u) => known.has(u) },
    );
    expect(got.map((r) => r.uuid)).toEqual(["n2", "n1", "r30", "r29", "r28", "r27", "r26"]);
    expect(p.asked).toHaveLength(2);
  });

  it("names the browser's day in the platform's local time, shifted by the platform's clock offset", () => {
    const at = new Date(2031, 4, 6, 15, 30).getTime();
    expect(platformDay(at, null)).toMatchObject({ startDate: "2031-05-06 00:00:00", endDate: "2031-05-06 23:59:59" });
    // A platform 8 hours ahead: the browser's midnight is 08:00 there.
    expect(platformDay(at, 8 * 3600_000)).toMatchObject({
      startDate: "2031-05-06 08:00:00",
      endDate: "2031-05-07 07:59:59",
    });
  });
});
