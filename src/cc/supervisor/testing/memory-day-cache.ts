import type { DayCache } from "../day-cache";
import type { QueueRecord } from "../queue-day";

/** What IndexedDB keeps of the day (`indexedDbDayCache`), in memory and by the same rules: for tests of the board. */
export function memoryDayCache(): DayCache {
  const days = new Map<string, { whole: boolean; records: readonly QueueRecord[] }[]>();
  const keyOf = (owner: string, queueId: string, day: number) => JSON.stringify([owner, queueId, day]);
  return {
    read(owner, queueId, day) {
      const parts = days.get(keyOf(owner, queueId, day)) ?? [];
      if (!parts.some((p) => p.whole)) return Promise.resolve(null);
      const records = new Map(parts.flatMap((p) => p.records.map((r) => [r.uuid, r] as const)));
      return Promise.resolve({
        lastEnd: Math.max(0, ...[...records.values()].map((r) => r.endedAt ?? 0)),
        records: () => [...records.values()],
      });
    },
    add(owner, queueId, day, records, whole) {
      const key = keyOf(owner, queueId, day);
      if (whole) days.set(key, [{ whole, records }]);
      else days.get(key)?.push({ whole, records });
      return Promise.resolve();
    },
    forget(owner, keep) {
      for (const key of [...days.keys()]) {
        const [who, , day] = JSON.parse(key) as [string, string, number];
        if (who === owner && day !== keep) days.delete(key);
      }
      return Promise.resolve();
    },
  };
}
