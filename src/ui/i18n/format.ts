import type { Language } from "./language";

/**
 * A moment in the user's language: the time alone when it is today, else date and time
 * ("14:35" / "下午2:35", "May 6, 2031, 2:35 PM").
 */
export function formatMoment(ms: number, language: Language, now: number = Date.now()): string {
  const when = new Date(ms);
  const today = when.toDateString() === new Date(now).toDateString();
  const style: Intl.DateTimeFormatOptions = today ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" };
  return new Intl.DateTimeFormat(language, style).format(when);
}
