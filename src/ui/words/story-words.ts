import type { CallerStory } from "../../cc";
import type { Language, Messages } from "../i18n";
import { formatMoment } from "../shared/format";

/**
 * A caller's story in words: one line (how often before, the last time and whether it was
 * answered; or that it is being read, slow, not available), and the last outcome and notes kept.
 */
export function storyWords(
  story: CallerStory,
  t: Messages,
  language: Language,
  now: number = Date.now(),
): { line: string; kept: string } {
  const m = t.agent.story;
  if (story.status === "loading") return { line: m.loading, kept: "" };
  if (story.status === "slow") return { line: m.slow, kept: "" };
  if (story.status === "unavailable") return { line: m.unavailable, kept: "" };
  const last = story.last;
  if (!story.count || !last) return { line: m.none, kept: "" };
  const line = `${m.count(story.count, story.more)} · ${m.last(formatMoment(last.at, language, now), last.answered)}`;
  const kept = [last.disposition && `${m.outcome}: ${last.disposition}`, last.notes && `${m.notes}: ${last.notes}`]
    .filter(Boolean)
    .join(" · ");
  return { line, kept };
}
