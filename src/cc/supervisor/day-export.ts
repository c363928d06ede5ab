import type { PlatformClient } from "../../api";
import { platformDay, readDayRecords } from "../day-records";
import { listQueueRecords } from "./queue-records";
import { agentCalls } from "./agent-day";
import { QueueDay, type QueueDayFigures } from "./queue-day";
import type { WallboardData } from "./wallboard";

/**
 * A day's queue and agent figures as CSV (RFC 4180: comma-separated, quoted where needed, CRLF),
 * one table after the other: what the board shows for today, or a chosen day read from the
 * platform's records. Headers are in English whatever the page's language, so that a spreadsheet
 * or a script reads every export alike.
 */
export interface DayExportRow {
  queue: string;
  figures: QueueDayFigures;
  thresholdSeconds: number;
}

const cell = (v: string | number | null) => {
  const s = v === null ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 1000));

export function dayCsv(
  date: string,
  queues: readonly DayExportRow[],
  agents: readonly { number: string; name: string; handled: number; averageHandleTime: number | null }[],
): string {
  const lines: (string | number | null)[][] = [
    [
      "date",
      "queue",
      "offered",
      "answered",
      "abandoned",
      "answered_within",
      "threshold_s",
      "service_level_pct",
      "asa_s",
      "aht_s",
    ],
    ...queues.map((q) => [
      date,
      q.queue,
      q.figures.offered,
      q.figures.answered,
      q.figures.abandoned,
      q.figures.answeredWithin,
      q.thresholdSeconds,
      q.figures.serviceLevel === null ? null : Math.round(q.figures.serviceLevel * 100),
      seconds(q.figures.averageSpeedOfAnswer),
      seconds(q.figures.averageHandleTime),
    ]),
    [],
    ["date", "agent", "name", "calls_handled", "aht_s"],
    ...agents.map((a) => [date, a.number, a.name, a.handled, seconds(a.averageHandleTime)]),
  ];
  return lines.map((l) => l.map(cell).join(",")).join("\r\n") + "\r\n";
}

/** Today's export: the board's queues and agents, with each queue's threshold. */
export function todayCsv(
  date: string,
  board: WallboardData,
  dayOf: (queue: string) => QueueDay | undefined,
  thresholdOf: (queue: string) => number,
): string {
  const names = [...board.queues.keys()].sort();
  const days = names.flatMap((n) => dayOf(n) ?? []);
  return dayCsv(
    date,
    names.map((queue) => ({
      queue,
      thresholdSeconds: thresholdOf(queue),
      figures: (dayOf(queue) ?? new QueueDay(0)).figures(thresholdOf(queue)),
    })),
    [...board.agents.values()]
      .sort((a, b) => a.number.localeCompare(b.number, undefined, { numeric: true }))
      .map((a) => ({ number: a.number, name: a.name, ...agentCalls(days, a.number) })),
  );
}

/** A past day's export, read from the platform's records of each queue (by its id). */
export async function pastDayCsv(
  client: PlatformClient,
  day: Date,
  queues: readonly { name: string; id: string; thresholdSeconds: number }[],
  agents: ReadonlyMap<string, string>,
  clockOffset: number | null,
): Promise<string> {
  const from = new Date(day.getFullYear(), day.getMonth(), day.getDate()).getTime();
  const range = platformDay(from, clockOffset);
  const rows: DayExportRow[] = [];
  const days: QueueDay[] = [];
  for (const q of queues) {
    const queueDay = new QueueDay(from);
    const records = await readDayRecords(
      client,
      { startDate: range.startDate, endDate: range.endDate, groupValue: q.id },
      { readPage: listQueueRecords },
    );
    queueDay.addRecords(records, clockOffset ?? 0);
    queueDay.recordsRead();
    days.push(queueDay);
    rows.push({ queue: q.name, thresholdSeconds: q.thresholdSeconds, figures: queueDay.figures(q.thresholdSeconds) });
  }
  const numbers = new Set<string>();
  for (const d of days) for (const c of d.callers.values()) if (c.agent) numbers.add(c.agent);
  const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
  return dayCsv(
    date,
    rows,
    [...numbers]
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .map((number) => ({ number, name: agents.get(number) ?? "", ...agentCalls(days, number) })),
  );
}
