import { useModel, usePhone } from "../model/model";
import { registrationWords } from "../words/phone-words";

/**
 * Where the phone stands with the server, always in view: a coloured dot and a word, the reason
 * in words when it is not registered, when the next attempt comes, and a way to try at once.
 */
export function RegistrationChip({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const p = usePhone();
  const w = registrationWords(p.sessionState.value, p.state.value.registration, t.value, p.time);
  return (
    <div class={`reg-chip tone-${w.tone}${compact ? " compact" : ""}`} data-testid="registration" data-status={p.state.value.registration.status}>
      <span class="reg-dot" aria-hidden="true" />
      <span class="reg-label" title={compact ? w.detail || undefined : undefined}>
        {w.label}
      </span>
      {w.detail && <span class={compact ? "sr-only" : "reg-detail"}>{w.detail}</span>}
      {w.canRetry && (
        <button type="button" class="link-button" onClick={() => p.session.store.getState().retry()}>
          {t.value.phone.retryNow}
        </button>
      )}
      {p.sessionState.value.restartPending && !compact && <span class="reg-detail">{t.value.phone.restartPending}</span>}
    </div>
  );
}
