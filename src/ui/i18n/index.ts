import { signal, type ReadonlySignal } from "@preact/signals";
import { en, type Messages } from "./en";
import type { enPanels } from "./en-panels";
import type { enWorkspace } from "./en-workspace";
import type { Language } from "./language";

export type { Messages };
export * from "./language";

/**
 * English comes with the app (it is also the fallback), so an English page renders at once;
 * other catalogues are loaded when the language is chosen: an English page never downloads the
 * Chinese text. The app awaits the user's language before it first renders.
 * English is in three parts: the sign-in screen's, built in; the signed-in screen's, which the
 * signed-in screen's code adds as it loads (`completeEnglish`); the panels' that show only later
 * (settings, devices, the history, the wallboard...), loaded once the page is ready for calls and
 * awaited by each of those panels' loaders (`withEnglishPanels`). Until the second part is there
 * the page shows only the sign-in screen (or a wait), which reads nothing of it.
 */
let english = en as Messages;
const loaders: Record<Language, () => Promise<Messages>> = {
  en: () => Promise.resolve(english),
  "zh-CN": () => import("./zh-CN").then((m) => m.zhCN),
};

const loaded = signal<Partial<Record<Language, Messages>>>({ en: english });

/** A catalogue with a part added: the part's sections are merged into the catalogue's. */
export function withPart<T extends object>(catalogue: T, part: object): T {
  const out = { ...catalogue } as Record<string, unknown>;
  for (const [section, words] of Object.entries(part))
    out[section] = { ...(out[section] as object | undefined), ...words };
  return out as T;
}

/** Adds a part of the English: the signed-in screen's (en-workspace.ts) or the panels' (en-panels.ts). */
export function completeEnglish(part: typeof enWorkspace | typeof enPanels): void {
  english = withPart(english, part);
  loaded.value = { ...loaded.value, en: english };
}

let panels: Promise<void> | undefined;
/** Loads the panels' English (en-panels.ts) once; a failed load is tried again by the next call. */
export function loadEnglishPanels(): Promise<void> {
  return (panels ??= import("./en-panels").then(
    (m) => completeEnglish(m.enPanels),
    (e: unknown) => {
      panels = undefined;
      throw e;
    },
  ));
}

/** A panel's code, once the English it reads is there too. */
export const withEnglishPanels = <T>(code: Promise<T>): Promise<T> =>
  Promise.all([code, loadEnglishPanels()]).then(([c]) => c);

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
