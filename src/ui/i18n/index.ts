import { signal, type ReadonlySignal } from "@preact/signals";
import type { Messages } from "./en";
import type { Language } from "./language";

export type { Messages };
export * from "./language";
export * from "./format";

/**
 * Catalogues are loaded on demand, one per language: a page in English never downloads the
 * Chinese text and the other way round. The app loads the user's language before it first
 * renders; switching language loads the other one then.
 */
const loaders: Record<Language, () => Promise<Messages>> = {
  en: () => import("./en").then((m) => m.en),
  "zh-CN": () => import("./zh-CN").then((m) => m.zhCN),
};

const loaded = signal<Partial<Record<Language, Messages>>>({});
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
