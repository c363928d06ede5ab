import type { QueueRecord } from "./queue-day";

/**
 * Today's records of the board's queues, kept in this browser from one opening of the board to
 * the next, so that a reload reads only the records that ended since rather than the whole day
 * (17 MB of JSON for 20,000 calls) again (docs/decisions.md, "Today's figures kept in the
 * browser"). What is kept is what a queue's day reads of each record (`QueueRecord`: ids, times,
 * the queue's side and agent; no numbers, names or recordings), per user and platform (`owner`),
 * of today only: other days are forgotten a minute after the board opens, everything of a user when they
 * sign out or their session ends (docs/security.md, "What the browser keeps").
 */
export interface DayCache {
  /**
   * What is kept of a queue's day; null unless a read of the whole day was kept (what was added
   * after it alone is not the day: another tab may have forgotten it meanwhile).
   */
  read(owner: string, queueId: string, day: number): Promise<KeptRecords | null>;
  /**
   * Keeps records of a queue's day: the whole day as read (`whole`: it replaces what was kept), or
   * records read since (kept only beside a whole day; records kept already may come again).
   */
  add(owner: string, queueId: string, day: number, records: readonly QueueRecord[], whole: boolean): Promise<void>;
  /** Forgets what `owner` kept: every day but `keep`, or everything. */
  forget(owner: string, keep?: number): Promise<void>;
}

/** A queue's day as kept. */
export interface KeptRecords {
  /** When the newest of its records ended (ms, as `parseStamp` reads the platform's stamps); 0: none did. */
  lastEnd: number;
  /**
   * Its records, each once (read when asked: what ended since can be asked for meanwhile); null
   * when they cannot be read (damaged): the day is then read from the platform, and kept again.
   */
  records(): QueueRecord[] | null;
}

/** The day's records, kept with IndexedDB; null where the browser has none. */
export function indexedDbDayCache(idb: IDBFactory | undefined = globalThis.indexedDB): DayCache | null {
  if (!idb) return null;
  let opened: Promise<IDBDatabase> | undefined;
  const db = () =>
    (opened ??= request(
      (() => {
        const open = idb.open(DB_NAME, 1);
        open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: KEY_PATH });
        return open;
      })(),
    ).catch((e: unknown) => {
      opened = undefined;
      throw e;
    }));
  const store = async (mode: IDBTransactionMode) => (await db()).transaction(STORE, mode).objectStore(STORE);
  /** A queue's day's parts: [owner, queue, day, part] from the first part to the last (parts are strings). */
  const dayRange = (owner: string, queueId: string, day: number) =>
    IDBKeyRange.bound([owner, queueId, day], [owner, queueId, day, []]);

  return {
    async read(owner, queueId, day) {
      const found = (await request((await store("readonly")).getAll(dayRange(owner, queueId, day)))) as unknown[];
      const parts = found.filter(isPart);
      // A part this version cannot read (written by another version): the day is read from the
      // platform, and kept again (`add` drops such parts).
      if (parts.length < found.length || !parts.some((p) => p.whole)) return null;
      return {
        lastEnd: Math.max(0, ...parts.map((p) => p.lastEnd)),
        records() {
          const records = new Map<string, QueueRecord>();
          for (const part of parts) {
            const kept = recordsOf(part);
            if (!kept) return null;
            for (const r of kept) records.set(r.uuid, r);
          }
          return [...records.values()];
        },
      };
    },
    async add(owner, queueId, day, records, whole) {
      if (!records.length && !whole) return;
      const s = await store("readwrite");
      const range = dayRange(owner, queueId, day);
      // In one transaction with what another tab may add: the parts kept so far are read (their
      // keys, and whether one holds the whole day), those of another format dropped. A whole day
      // replaces them; a day kept in many parts (a long day's minutes) is kept again as one.
      const parts: { key: IDBValidKey; part: Part }[] = [];
      const cursor = s.openCursor(range);
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (c) {
          const part: unknown = c.value;
          if (!whole && isPart(part)) parts.push({ key: c.primaryKey, part });
          else s.delete(c.primaryKey);
          c.continue();
          return;
        }
        if (whole) s.put(partOf(owner, queueId, day, records, true));
        // What was read since a day that is not kept (forgotten meanwhile) is not kept either.
        else if (!parts.some((p) => p.part.whole)) return;
        else if (parts.length < MOST_PARTS) s.put(partOf(owner, queueId, day, records, false));
        else {
          const all = new Map<string, QueueRecord>();
          let damaged = false;
          for (const { part } of parts) {
            const kept = recordsOf(part);
            if (kept) for (const r of kept) all.set(r.uuid, r);
            else damaged = true;
          }
          for (const { key } of parts) s.delete(key);
          // A damaged part: nothing is kept (the next opening reads the whole day, and keeps it).
          if (damaged) return;
          for (const r of records) all.set(r.uuid, r);
          s.put(partOf(owner, queueId, day, [...all.values()], true));
        }
      };
      await done(s.transaction);
    },
    async forget(owner, keep) {
      const s = await store("readwrite");
      const everything = IDBKeyRange.bound([owner], [owner, []]);
      if (keep === undefined) s.delete(everything);
      else {
        const cursor = s.openKeyCursor(everything);
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c) return;
          if ((c.primaryKey as unknown[])[2] !== keep) s.delete(c.primaryKey);
          c.continue();
        };
      }
      await done(s.transaction);
    },
  };
}

const DB_NAME = "agentbar-day-records";
const STORE = "parts";
const KEY_PATH = ["owner", "queue", "day", "part"];
/** The format of a part's records; a part of another format is not read. */
const FORMAT = 1;
/** A day kept in this many parts is kept again as one when more is added. */
const MOST_PARTS = 8;

interface Part {
  owner: string;
  queue: string;
  day: number;
  /** Unique among the day's parts (two tabs may add at once): when it was added, and a random tail. */
  part: string;
  format: number;
  /** It holds a read of the whole day (what other parts hold was read since). */
  whole: boolean;
  /** When the newest of its records ended, ms; 0: none did. */
  lastEnd: number;
  /** The records, as JSON (one string is stored and read far faster than 20,000 objects). */
  records: string;
}

const partOf = (owner: string, queue: string, day: number, records: readonly QueueRecord[], whole: boolean): Part => ({
  owner,
  queue,
  day,
  part: `${Date.now().toString(36).padStart(9, "0")}.${Math.random().toString(36).slice(2)}`,
  format: FORMAT,
  whole,
  lastEnd: records.reduce((last, r) => Math.max(last, r.endedAt ?? 0), 0),
  records: JSON.stringify(records),
});

/** A stored part this version wrote. */
function isPart(part: unknown): part is Part {
  if (!part || typeof part !== "object") return false;
  const p = part as Partial<Part>;
  return (
    p.format === FORMAT &&
    typeof p.records === "string" &&
    typeof p.whole === "boolean" &&
    typeof p.lastEnd === "number"
  );
}

/** A part's records, checked; null when they cannot be read. */
function recordsOf(part: Part): QueueRecord[] | null {
  let records: unknown;
  try {
    records = JSON.parse(part.records);
  } catch {
    return null;
  }
  return Array.isArray(records) && records.every(isQueueRecord) ? records : null;
}

const isStamp = (v: unknown) => v === null || typeof v === "number";
const isText = (v: unknown) => typeof v === "string";

function isQueueRecord(r: unknown): r is QueueRecord {
  if (!r || typeof r !== "object") return false;
  const q = r as Record<keyof QueueRecord, unknown>;
  return (
    isText(q.uuid) &&
    isText(q.direction) &&
    isText(q.destination) &&
    isText(q.otherUuid) &&
    isStamp(q.startedAt) &&
    isStamp(q.answeredAt) &&
    isStamp(q.endedAt) &&
    !!q.cc &&
    typeof q.cc === "object" &&
    Object.values(q.cc).every(isText)
  );
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error("IndexedDB request failed"));
  });
}

function done(t: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onerror = t.onabort = () => reject(t.error ?? new Error("IndexedDB transaction failed"));
  });
}
