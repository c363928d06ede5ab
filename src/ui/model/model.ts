import { computed, effect, signal, type ReadonlySignal } from "@preact/signals";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { SessionState, SessionStore, SettingsState, SettingsStore } from "../../session";
import { chooseLanguage, loadedMessages, loadMessages, type Language, type Messages } from "../i18n";
import type { Layout } from "../layout";
import { signInErrorText } from "../words/sign-in-words";
import type { AgentUi } from "./agent-ui";
import type { PhoneUi } from "./phone-ui";
import { storeSignal } from "./store-signal";
import type { SupervisorUi } from "./supervisor-ui";

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
  /**
   * The phone and the call history: null on the sign-in screen, whose code comes without them;
   * the signed-in screen's model has them (`withWorkspace`, workspace-model.ts).
   */
  phone: PhoneUi | null;
  /** The call-center toolbar, beside the phone. */
  agent: AgentUi | null;
  /** The supervisor's wallboard and actions: only in the wallboard's own region (`withSupervisor`), loaded for supervisors. */
  supervisor: SupervisorUi | null;
}

export interface UiModelDeps {
  session: SessionStore;
  settings: SettingsStore;
  browserLanguages: readonly string[];
  pageOrigin: string;
  layout?: Layout;
  /** The document whose `lang` follows the UI language. */
  root?: HTMLElement;
  now?: () => number;
}

/** Announcements closer together than this are said together. */
export const ANNOUNCE_MERGE_MS = 1000;

export function createUiModel(deps: UiModelDeps): UiModel {
  const session = storeSignal(deps.session);
  const settings = storeSignal(deps.settings);
  const wanted = computed(() => chooseLanguage(settings.value.language, deps.browserLanguages));
  // The language shown is the one asked for once its catalogue is here; until then the one before.
  let shown: Language = wanted.value;
  const language = computed(() => {
    const have = loadedMessages.value;
    if (have[wanted.value]) shown = wanted.value;
    else if (!have[shown]) shown = (Object.keys(have)[0] as Language | undefined) ?? wanted.value;
    return shown;
  });
  const t = computed(() => {
    const m = loadedMessages.value[language.value];
    if (!m) throw new Error(`no catalogue loaded for ${language.value}: await loadMessages() before rendering`);
    return m;
  });
  effect(() => {
    const lang = wanted.value;
    if (!loadedMessages.value[lang])
      loadMessages(lang).catch((e: unknown) => console.warn(`agentbar: could not load the ${lang} messages`, e));
  });
  const announcement = signal({ text: "", serial: 0 });
  const now = deps.now ?? Date.now;
  let announcedAt = -Infinity;
  // One live region: a message that replaced the one before within a second would cut it off
  // before a screen reader has read it (signed in, then the phone ready), so it is added to it.
  const announce = (text: string) => {
    const at = now();
    const before = announcement.value;
    const joined = at - announcedAt < ANNOUNCE_MERGE_MS && before.text ? `${before.text} ${text}` : text;
    announcedAt = at;
    announcement.value = { text: joined.length > 400 ? joined.slice(-400) : joined, serial: before.serial + 1 };
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
    if (now.status === "signed-in" && before.status !== "signed-in" && now.user)
      announce(m.announce.signedIn(now.user.name));
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
    phone: null,
    agent: null,
    supervisor: null,
  };
}

export const ModelContext = createContext<UiModel | null>(null);

export function useModel(): UiModel {
  const model = useContext(ModelContext);
  if (!model) throw new Error("useModel outside <ModelContext.Provider>");
  return model;
}

/** The phone part of the model; phone components are only placed when the app has it. */
export function usePhone(): PhoneUi {
  const phone = useModel().phone;
  if (!phone) throw new Error("phone component without a phone in the model");
  return phone;
}

/** The agent part of the model; toolbar components are only placed when the app has it. */
export function useAgent(): AgentUi {
  const agent = useModel().agent;
  if (!agent) throw new Error("toolbar component without an agent session in the model");
  return agent;
}
