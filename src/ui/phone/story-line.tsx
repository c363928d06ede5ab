import type { Call } from "../../softphone";
import type { AgentUi } from "../model/agent-ui";
import { useModel } from "../model/model";
import { storyWords } from "../words/story-words";

/**
 * The caller's story on a ringing or answered card (src/cc/caller-story.ts reads it as the call rings):
 * how often the number called before, the last time and its outcome and notes, and a button that
 * shows its calls in the history. The bar has two lines for it, read in full in its tooltip.
 */
export function CallerStoryLine({ call, agent, compact }: { call: Call; agent: AgentUi; compact: boolean }) {
  const { t, language, layout } = useModel();
  const story = agent.callerStories.value[call.id];
  if (!story || call.state === "ended") return null;
  const { line, kept } = storyWords(story, t.value, language.value);
  const m = t.value.agent.story;
  const busy = story.status === "loading" || story.status === "slow";
  if (compact) {
    const all = [line, kept].filter(Boolean).join(" · ");
    return (
      <p class="call-note caller-story compact" data-testid="caller-story" data-status={story.status} title={all}>
        {all}
      </p>
    );
  }
  return (
    <div class="call-note caller-story" data-testid="caller-story" data-status={story.status} aria-busy={busy}>
      <p>{line}</p>
      {kept && <p class="caller-story-kept">{kept}</p>}
      {story.count > 0 && layout !== "bar" && (
        <button
          type="button"
          class="link-button"
          title={m.showTitle(story.number)}
          onClick={() => (agent.historyOf.value = { number: story.number })}
        >
          {m.show}
        </button>
      )}
    </div>
  );
}
