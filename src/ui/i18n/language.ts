/** The languages of the UI; English is the fallback. */
export const LANGUAGES = ["en", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language named in itself, as language pickers do. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", "zh-CN": "简体中文" };

/**
 * The UI language for a BCP 47 tag. Every Chinese variant gets Simplified Chinese, the only
 * Chinese catalogue, which a Traditional-Chinese reader follows more easily than English.
 */
export function languageOf(tag: string): Language | undefined {
  const t = tag.trim().toLowerCase();
  if (t === "zh" || t.startsWith("zh-")) return "zh-CN";
  if (t === "en" || t.startsWith("en-")) return "en";
  return undefined;
}

/** The user's choice when there is one, else the first browser language we have, else English. */
export function chooseLanguage(setting: string, browserLanguages: readonly string[]): Language {
  if (setting) {
    const chosen = languageOf(setting);
    if (chosen) return chosen;
  }
  for (const tag of browserLanguages) {
    const match = languageOf(tag);
    if (match) return match;
  }
  return "en";
}

/** navigator.languages, or navigator.language on browsers that lack the list. */
export function browserLanguages(
  nav: Pick<Navigator, "language"> & { languages?: readonly string[] } = navigator,
): readonly string[] {
  return nav.languages?.length ? nav.languages : nav.language ? [nav.language] : [];
}
