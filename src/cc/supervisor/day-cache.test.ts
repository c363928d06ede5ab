import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { beforeEach, describe, expect, it } from "vitest";
import { indexedDbDayCache, type DayCache } from "./day-cache";
import type { QueueRecord } from "./queue-day";

// The module uses the page's IDBKeyRange, as a browser has it.
Object.assign(globalThis, { IDBKeyRange });

const DAY = new Date(2026, 10, 28).getTime();
const NEXT_DAY = new Date(2026, 10, 29).getTime();

const record = (uuid: string, endedAt: number | null = DAY + 3_600_000): QueueRecord => ({
  uuid,
  direction: "inbound",
  destination: "support",
  startedAt: DAY + 60_000,
  answeredAt: null,
  endedAt,
  otherUuid: "",
  cc: { cc_side: "member", cc_queue_joined_epoch: String((DAY + 60_000) / 1000) },
});

const uuids = async (cache: DayCache, owner = "sam@", queue = "1", day = DAY) => {
  const kept = await cache.read(owner, queue, day);
  if (!kept) return null;
  return (
    kept
      .records()
      ?.map((r) => r.uuid)
      .sort() ?? "unreadable"
  );
};

describe("today's records kept in the browser", () => {
  let idb: IDBFactory;
  let cache: DayCache;
  beforeEach(() => {
    idb = new IDBFactory();
    cache = indexedDbDayCache(idb)!;
  });

  it("keeps a whole day and what was read since, each record once, with when the newest ended; a new whole day replaces it", async () => {
    expect(await cache.read("sam@", "1", DAY)).toBeNull();
    await cache.add("sam@", "1", DAY, [record("a"), record("b", DAY + 7_200_000)], true);
    await cache.add("sam@", "1", DAY, [record("b", DAY + 7_200_000), record("c", DAY + 9_000_000)], false);
    const kept = await cache.read("sam@", "1", DAY);
    expect(kept?.lastEnd).toBe(DAY + 9_000_000);
    expect(kept?.records()).toEqual(
      expect.arrayContaining([record("a"), record("b", DAY + 7_200_000), record("c", DAY + 9_000_000)]),
    );
    expect(await uuids(cache)).toEqual(["a", "b", "c"]);
    // Kept by another instance (a reload) the same.
    expect(await uuids(indexedDbDayCache(idb)!)).toEqual(["a", "b", "c"]);
    // Another queue, day or user has nothing.
    expect(await cache.read("sam@", "2", DAY)).toBeNull();
    expect(await cache.read("sam@", "1", NEXT_DAY)).toBeNull();
    expect(await cache.read("ada@", "1", DAY)).toBeNull();
    await cache.add("sam@", "1", DAY, [record("d")], true);
    expect(await uuids(cache)).toEqual(["d"]);
    // A day kept without records is kept: nothing ended yet.
    await cache.add("sam@", "2", DAY, [], true);
    expect(await cache.read("sam@", "2", DAY)).toMatchObject({ lastEnd: 0 });
  });

  it("keeps nothing read since a day it does not hold (forgotten meanwhile by another tab)", async () => {
    await cache.add("sam@", "1", DAY, [record("a")], false);
    expect(await cache.read("sam@", "1", DAY)).toBeNull();
    await cache.add("sam@", "1", DAY, [record("b")], true);
    await cache.forget("sam@");
    await cache.add("sam@", "1", DAY, [record("c")], false);
    expect(await cache.read("sam@", "1", DAY)).toBeNull();
  });

  it("keeps a long day of many parts as one, every record still once", async () => {
    await cache.add("sam@", "1", DAY, [record("w0")], true);
    for (let i = 1; i <= 20; i++) await cache.add("sam@", "1", DAY, [record(`w${i}`), record(`w${i - 1}`)], false);
    expect(await uuids(cache)).toEqual(Array.from({ length: 21 }, (_, i) => `w${i}`).sort());
    const parts = await new Promise<unknown[]>((resolve) => {
      const open = idb.open("agentbar-day-records");
      open.onsuccess = () => {
        const all = open.result.transaction("parts").objectStore("parts").getAll();
        all.onsuccess = () => resolve(all.result);
      };
    });
    expect(parts.length).toBeLessThanOrEqual(8);
  });

  it("forgets a user's other days when asked, or all of it (sign-out), and nobody else's", async () => {
    await cache.add("sam@", "1", DAY - 86_400_000, [record("old")], true);
    await cache.add("sam@", "1", DAY, [record("a")], true);
    await cache.add("sam@", "2", DAY, [record("b")], true);
    await cache.add("ada@", "1", DAY - 86_400_000, [record("ada-old")], true);
    await cache.forget("sam@", DAY);
    expect(await uuids(cache, "sam@", "1", DAY - 86_400_000)).toBeNull();
    expect([await uuids(cache, "sam@", "1"), await uuids(cache, "sam@", "2")]).toEqual([["a"], ["b"]]);
    expect(await uuids(cache, "ada@", "1", DAY - 86_400_000)).toEqual(["ada-old"]);
    await cache.forget("sam@");
    expect([await uuids(cache, "sam@", "1"), await uuids(cache, "sam@", "2")]).toEqual([null, null]);
    expect(await uuids(cache, "ada@", "1", DAY - 86_400_000)).toEqual(["ada-old"]);
  });

  it("reads nothing it cannot trust: another version's part, damaged records; a whole day read again replaces them", async () => {
    const put = (value: object) =>
      new Promise<void>((resolve, reject) => {
        const open = idb.open("agentbar-day-records");
        open.onsuccess = () => {
          const t = open.result.transaction("parts", "readwrite");
          t.objectStore("parts").put({ owner: "sam@", queue: "1", day: DAY, whole: true, lastEnd: 0, ...value });
          t.oncomplete = () => resolve();
          t.onerror = () => reject(t.error);
        };
      });
    await cache.add("sam@", "1", DAY, [record("a")], true);
    await put({ part: "zz-other", format: 2, records: "[]" });
    expect(await cache.read("sam@", "1", DAY)).toBeNull();
    await cache.add("sam@", "1", DAY, [record("b")], true);
    expect(await uuids(cache)).toEqual(["b"]);
    for (const records of ["not json", JSON.stringify([{ ...record("c"), startedAt: "9:00" }]), "{}"]) {
      await put({ part: "zz-damaged", format: 1, records });
      expect(await cache.read("sam@", "1", DAY)).toMatchObject({ lastEnd: expect.any(Number) });
      expect(await uuids(cache), records).toBe("unreadable");
    }
    await cache.add("sam@", "1", DAY, [record("c")], true);
    expect(await uuids(cache)).toEqual(["c"]);
  });

  it("is not there where the browser has no IndexedDB", () => {
    expect(indexedDbDayCache(undefined)).toBeNull();
  });
});
