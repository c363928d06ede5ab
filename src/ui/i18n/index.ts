import { signal, type ReadonlySignal } from "@preact/signals";
import { en, type Messages } from "./en";
import type { enWorkspace } from "./en-workspace";
import type { Language } from "./language";

export type { Messages };
export * from "./language";

/**
 * English comes with the app (it is also the fallback), so an English page renders at once;
 * other catalogues are loaded when the language is chosen: an English page never downloads the
 * Chinese text. The app awaits the user's language before it first renders.
 * English is in two parts: the sign-in screen's, built in, and the signed-in screen's, which the
 * signed-in screen's code adds as it loads (`completeEnglish`). Until then the page shows only
 * the sign-in screen (or a wait), which reads nothing of the second part.
 */
let english = en as Messages;
const loaders: Record<Language, () => Promise<Messages>> = {
  en: () => Promise.resolve(english),
  "zh-CN": () => import("./zh-CN").then((m) => m.zhCN),
};

const loaded = signal<Partial<Record<Language, Messages>>>({ en: english });

/** Adds the signed-in screen's English (en-workspace.ts). */
export function completeEnglish(rest: typeof enWorkspace): void {
  english = { ...en, ...rest };
  loaded.value = { ...loaded.value, en: english };
}

const pending = new Map<Language, Promise<Messages>>();

/** The catalogues loaded so far. */
export const loadedMessages: ReadonlySignal<Partial<Record<Language, Messages>>> = loaded;

export function loadMessages(language: Language): Promise<Messages> {
  const have = loaded.value[language];
  if (have) return Promise.resolve(have);
  let p = pending.get(language);
  if (!p) {
    p = loaders[language]().then((m) => {
      loaded.value = { ...loaded.value, [language]: m };
      return m;
    });
    p.catch(() => pending.delete(language));
    pending.set(language, p);
  }
  return p;
}
