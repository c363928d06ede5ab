import { CloseIcon } from "../icons";
import { useAgent, useModel } from "../model/model";
import { phoneWatchText, phoneWatchWords } from "../words/agent-words";

/**
 * The status line of the page's watch over its phone: calls cannot ring here (the registration is
 * lost, the tab is asleep) and the break that was set meanwhile; after the tab slept, what happened
 * and *Go Ready*. Screen readers hear it once from the page's announcements (agent-ui.ts), so the
 * line itself is no live region.
 */
export function PhoneWatchLine({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const a = useAgent();
  const s = a.phoneWatch.value;
  const text = phoneWatchText(s, t.value);
  if (!text) return null;
  const w = s.phoneWatch;
  const m = phoneWatchWords(w, t.value);
  return (
    <div
      class={`phone-watch${compact ? " compact" : ""}${w.trouble ? " trouble" : ""}`}
      data-testid="phone-watch"
      data-trouble={w.trouble ?? "woke"}
    >
      {compact ? (
        // The bar's one line keeps room for the phone: a short label, the whole text for a pointer and a screen reader.
        <span class="phone-watch-text" title={text}>
          <span aria-hidden="true">{w.trouble ? m.tabTitle : w.woke?.earlier ? m.earlierShort : m.wokeShort}</span>
          <span class="sr-only">{text}</span>
        </span>
      ) : (
        <span class="phone-watch-text">{text}</span>
      )}
      {!w.trouble && (
        <button type="button" class="small secondary" onClick={() => a.act(a.actions.choose({ kind: "ready" }))}>
          {m.goReady}
        </button>
      )}
      {!w.trouble && (
        <button
          type="button"
          class="icon-button tiny"
          aria-label={t.value.agent.dismiss}
          title={t.value.agent.dismiss}
          onClick={() => a.act(a.actions.dismissPhoneNote())}
        >
          <CloseIcon />
        </button>
      )}
    </div>
  );
}
