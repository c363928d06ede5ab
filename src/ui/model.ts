import { computed, effect, signal, type ReadonlySignal } from "@preact/signals";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { SessionState, SessionStore, SettingsState, SettingsStore } from "../cc";
import { catalogues, chooseLanguage, type Language, type Messages } from "./i18n";
import type { Layout } from "./layout";
import { signInErrorText } from "./sign-in/error-text";
import { storeSignal } from "./store-signal";

/** What components see: the stores as signals, the language and its messages, announcements. */
export interface UiModel {
  sessionStore: SessionStore;
  settingsStore: SettingsStore;
  session: ReadonlySignal<SessionState>;
  settings: ReadonlySignal<SettingsState>;
  language: ReadonlySignal<Language>;
  t: ReadonlySignal<Messages>;
  /** The latest announcement for screen readers (see Announcer). */
  announcement: ReadonlySignal<{ text: string; serial: number }>;
  announce(text: string): void;
  /** Shown as the platform address when none is set. */
  pageOrigin: string;
  /** The page's layout: components placed in the shell's regions render for it. */
  layout: Layout;
}

export interface UiModelDeps {
  session: SessionStore;
  settings: SettingsStore;
  browserLanguages: readonly string[];
  pageOrigin: string;
  layout?: Layout;
  /** The document whose `lang` follows the UI language. */
  root?: HTMLElement;
}

export function createUiModel(deps: UiModelDeps): UiModel {
  const session = storeSignal(deps.session);
  const settings = storeSignal(deps.settings);
  const language = computed(() => chooseLanguage(settings.value.language, deps.browserLanguages));
  const t = computed(() => catalogues[language.value]);
  const announcement = signal({ text: "", serial: 0 });
  const announce = (text: string) => {
    announcement.value = { text, serial: announcement.value.serial + 1 };
  };

  const root = deps.root;
  if (root) {
    effect(() => {
      root.lang = language.value;
    });
  }

  // Sign-in, sign-out, session end and errors are announced as they happen, wherever focus is.
  deps.session.subscribe((now, before) => {
    const m = t.value;
    if (now.status === "signed-in" && before.status !== "signed-in" && now.user) announce(m.announce.signedIn(now.user.name));
    else if (now.status === "signed-out" && before.status === "signing-out") announce(m.announce.signedOut);
    else if (now.status === "session-expired" && before.status !== "session-expired") announce(m.signIn.sessionEnded);
    if (now.error && now.error !== before.error) announce(signInErrorText(now.error, m, language.value));
  });

  return {
    sessionStore: deps.session,
    settingsStore: deps.settings,
    session,
    settings,
    language,
    t,
    announcement,
    announce,
    pageOrigin: deps.pageOrigin,
    layout: deps.layout ?? "full",
  };
}

export const ModelContext = createContext<UiModel | null>(null);

export function useModel(): UiModel {
  const model = useContext(ModelContext);
  if (!model) throw new Error("useModel outside <ModelContext.Provider>");
  return model;
}
