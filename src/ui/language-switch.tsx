import { useId } from "preact/hooks";
import { LANGUAGE_NAMES, LANGUAGES, type Language } from "./i18n";
import { GlobeIcon } from "./icons";
import { useModel } from "./model/model";

export function LanguageSwitch() {
  const { t, language, settingsStore } = useModel();
  const id = useId();
  return (
    <div class="language-switch">
      <label for={id} class="sr-only">
        {t.value.language.label}
      </label>
      <GlobeIcon />
      <select
        id={id}
        title={t.value.language.label}
        value={language.value}
        onChange={(e) => settingsStore.getState().change({ language: (e.currentTarget.value as Language) || "" })}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang} lang={lang}>
            {LANGUAGE_NAMES[lang]}
          </option>
        ))}
      </select>
    </div>
  );
}
