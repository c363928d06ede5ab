import type { Language } from "../i18n";

// Durations and moments as people read them.

/** "0:07", "12:03", "1:02:03" */
export function formatDuration(totalSec: number): string {
  const s = Math.max(0, Math.floor(totalSec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/**
 * A mean of durations (ms), as the board and the wall screen show one: rounded to the second, as
 * the day's CSV export writes it (floored, a mean of 3.6 s read 0:03 beside the export's 4); "–"
 * when there is none.
 */
export function formatMean(ms: number | null): string {
  return ms === null ? "–" : formatDuration(Math.round(ms / 1000));
}

const formats = new WeakMap<Intl.DateTimeFormatOptions, Map<Language, Intl.DateTimeFormat>>();

/**
 * The formatter of moments in `language` with `options` (a constant: formatters are kept by it),
 * made once: making one costs far more than using it, and a board formats hundreds a second.
 */
export function dateFormat(language: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let byLanguage = formats.get(options);
  if (!byLanguage) formats.set(options, (byLanguage = new Map()));
  let format = byLanguage.get(language);
  if (!format) byLanguage.set(language, (format = new Intl.DateTimeFormat(language, options)));
  return format;
}

const TIME: Intl.DateTimeFormatOptions = { timeStyle: "short" };
const DATE_TIME: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short" };

/**
 * A moment in the user's language: the time alone when it is today, else date and time
 * ("14:35" / "下午2:35", "May 6, 2031, 2:35 PM").
 */
export function formatMoment(ms: number, language: Language, now: number = Date.now()): string {
  const when = new Date(ms);
  const today = when.toDateString() === new Date(now).toDateString();
  return dateFormat(language, today ? TIME : DATE_TIME).format(when);
}
