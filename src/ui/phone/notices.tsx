import { AlertIcon, CloseIcon, VolumeIcon } from "../icons";
import { useModel, usePhone } from "../model/model";
import { noticeText } from "../words/phone-words";

/**
 * What the phone wants the user to know that is not a state: a device that went away, sound the
 * browser blocked, a transfer request that was refused. Each can be dismissed.
 */
export function PhoneNotices({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  const p = usePhone();
  const m = t.value.phone;
  const notices = p.state.value.notices;
  const blocked = p.tones.blocked.value || notices.some((n) => n.kind === "audio-blocked");
  const rest = notices.filter((n) => n.kind !== "audio-blocked").slice(compact ? -1 : -3);
  if (!blocked && !rest.length) return null;
  return (
    <div class={`notices${compact ? " compact" : ""}`}>
      {blocked && (
        <div class="notice warn" data-testid="sound-blocked">
          <VolumeIcon />
          <span class="notice-text">{m.soundBlocked}</span>
          <button type="button" class="secondary" onClick={() => p.enableSound()}>
            {m.enableSound}
          </button>
        </div>
      )}
      {rest.map((n) => (
        <div class="notice" key={n.id} data-kind={n.kind}>
          <AlertIcon />
          <span class="notice-text">{noticeText(n, t.value)}</span>
          <button
            type="button"
            class="icon-button"
            aria-label={m.dismiss}
            title={m.dismiss}
            onClick={() => p.phone.dismissNotice(n.id)}
          >
            <CloseIcon />
          </button>
        </div>
      ))}
    </div>
  );
}
