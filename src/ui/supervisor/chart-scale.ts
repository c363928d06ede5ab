import type { QueueInterval } from "../../cc/supervisor";

/** At least this many quarter hours are drawn (4 h), ending with the current one. */
const MIN_SHOWN = 16;

/** The quarter hours to draw: from the whole hour before the day's first caller (or 4 h back) to now. */
export function shownIntervals(all: readonly QueueInterval[]): QueueInterval[] {
  const first = all.findIndex((i) => i.offered > 0);
  const hourBefore = first < 0 ? all.length : first - (first % 4);
  return all.slice(Math.max(0, Math.min(hourBefore, all.length - MIN_SHOWN)));
}

/** The top of the bars' scale: the busiest quarter hour, rounded up to 1, 2 or 5 times a power of ten. */
export function scaleTop(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5].map((f) => f * power).find((v) => v >= max) ?? 10 * power;
}

/**
 * The service level as steps on a chart `intervals.length` wide and 100 high (100 %: the top):
 * one flat step per quarter hour that has a level, a line broken where one has none (nobody
 * answered or gave up then). Each line is an SVG `points` list.
 */
export function serviceLevelSteps(intervals: readonly QueueInterval[]): string[] {
  const lines: string[][] = [[]];
  intervals.forEach((i, x) => {
    if (i.serviceLevel === null) {
      if (lines.at(-1)!.length) lines.push([]);
      return;
    }
    const y = 100 - i.serviceLevel * 100;
    lines.at(-1)!.push(`${x},${y}`, `${x + 1},${y}`);
  });
  return lines.filter((l) => l.length).map((l) => l.join(" "));
}
