import { signal, type ReadonlySignal } from "@preact/signals";
import { en, type Messages } from "./en";
import type { Language } from "./language";

export type { Messages };
export * from "./language";

/**
 * English comes with the app (it is also the fallback), so an English page renders at once;
 * other catalogues are loaded when the language is chosen: an English page never downloads the
 * Chinese text. The app awaits the user's language before it first renders.
 */
const loaders: Record<Language, () => Promise<Messages>> = {
  en: () => Promise.resolve(en),
  "zh-CN": () => import("./zh-CN").then((m) => m.zhCN),
};

const loaded = signal<Partial<Record<Language, Messages>>>({ en });
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
