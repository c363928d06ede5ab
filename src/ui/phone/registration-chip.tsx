import { useModel, usePhone } from "../model/model";
import { registrationWords } from "../words/phone-words";

/**
 * Where the phone stands with the server, always in view: a coloured dot and a word, the reason
 * in words when it is not registered, when the next attempt comes, and a way to try at once. With
 * several tabs of the agent open, which of them has the phone, and "Use the phone here".
 */
export function RegistrationChip({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const p = usePhone();
  const session = p.sessionState.value;
  const w = registrationWords(session, p.state.value.registration, t.value, p.time);
  const tabs = p.tabs.value;
  const words = t.value.phone.tabs;
  const elsewhere = session.status === "elsewhere";
  const here = !elsewhere && tabs.role === "owner" && tabs.others > 0;
  const detail = elsewhere && tabs.move === "busy" ? words.busy : here ? words.hereDetail(tabs.others) : w.detail;
  const onCall = p.live.value.length > 0;
  return (
    <div
      class={`reg-chip tone-${w.tone}${compact ? " compact" : ""}`}
      data-testid="registration"
      data-status={elsewhere ? "elsewhere" : p.state.value.registration.status}
      data-phone-tab={elsewhere ? "elsewhere" : here ? "here" : undefined}
    >
      <span class="reg-dot" aria-hidden="true" />
      <span class="reg-label" title={compact ? detail || undefined : undefined}>
        {w.label}
      </span>
      {here && (
        <span class="reg-tab" data-testid="phone-tab">
          {words.here}
        </span>
      )}
      {detail && <span class={compact ? "sr-only" : "reg-detail"}>{detail}</span>}
      {w.canRetry && (
        <button type="button" class="link-button" onClick={() => p.session.store.getState().retry()}>
          {t.value.phone.retryNow}
        </button>
      )}
      {elsewhere && (
        <button
          type="button"
          class="link-button"
          disabled={onCall || tabs.move === "asking"}
          onClick={() => void p.session.owner.takeOver()}
        >
          {tabs.move === "asking" ? words.moving : onCall ? words.afterCall : words.useHere}
        </button>
      )}
      {session.restartPending && !compact && <span class="reg-detail">{t.value.phone.restartPending}</span>}
    </div>
  );
}
