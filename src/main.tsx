import { signal } from "@preact/signals";
import { render, type ComponentType } from "preact";
// From the files, not src/session's index: the sign-in screen's code leaves the phone's session out.
import { createSessionStore } from "./session/session";
import { createSettingsStore, followOtherTabs } from "./session/settings";
import { browserStorage } from "./session/storage";
import { App, loadSignInScreen } from "./ui/app";
import { browserLanguages, chooseLanguage, loadMessages, loadedMessages, withEnglishPanels } from "./ui/i18n";
import { layoutFrom } from "./ui/layout";
import { ModelContext, createUiModel } from "./ui/model/model";
import type { Workspace } from "./workspace";
import "./ui/styles.css";

const deviceStorage = browserStorage("localStorage");
const settings = createSettingsStore(deviceStorage);
followOtherTabs(settings, window);
const tabStorage = browserStorage("sessionStorage");
const session = createSessionStore({ settings, tabStorage, deviceStorage, pageOrigin: location.origin });

const layout = layoutFrom(location.search, settings.getState().layout);
document.documentElement.dataset.layout = layout;

/**
 * The wall screen (`/wall`): its own chunk, no phone, no sign-in form (src/wall.tsx), shown once
 * the English it reads is there (the panels' part, where the board's words are). Not awaited,
 * like the sign-in form below: its file imports this one's, and an import awaited at the top of
 * this module would wait for this module to finish, which waits for the import (a blank page).
 */
const wall = location.pathname.replace(/\/+$/, "") === "/wall";
const wallCode = wall ? withEnglishPanels(import("./wall")) : null;

// Without a kept session the sign-in form shows first: fetched at once. (Not awaited here: its file
// imports this one's, which would wait for this module to finish.)
if (!wall && session.getState().status !== "restoring") void loadSignInScreen().catch(() => undefined);

// A language other than English is downloaded before the first render, so no English flashes.
const language = chooseLanguage(settings.getState().language, browserLanguages(navigator));
if (!loadedMessages.value[language]) await loadMessages(language);

const model = createUiModel({
  session,
  settings,
  browserLanguages: browserLanguages(navigator),
  pageOrigin: location.origin,
  layout,
  root: document.documentElement,
});

if (wallCode) {
  void wallCode.then(
    ({ startWall }) => {
      const Wall = startWall({ session, settings, deviceStorage, model });
      render(<Wall />, document.getElementById("app")!);
    },
    // Nobody is at a TV to reload it: its code could not be fetched (the network or the platform away), so it tries again.
    () => setTimeout(() => location.reload(), 10_000),
  );
} else startApp();

function startApp() {
  /**
   * The signed-in half of the page (sip.js, the phone, the toolbar: src/workspace.tsx) is a chunk
   * of its own, so that the sign-in screen shows on a fraction of the code. It is loaded at once
   * when the tab kept its session or runs in a CRM's frame, else as soon as the sign-in screen is
   * painted, while the agent types; and again on sign-in if that load failed.
   */
  const workspaceScreen = signal<ComponentType | null>(null);
  let workspace: Promise<Workspace> | undefined;
  const loadWorkspace = (): Promise<Workspace> =>
    (workspace ??= import("./workspace").then(
      (m) => {
        const w = m.startWorkspace({ session, settings, deviceStorage, tabStorage, model });
        workspaceScreen.value = w.Workspace;
        return w;
      },
      (e: unknown) => {
        workspace = undefined;
        console.warn("agentbar: could not load the phone and the toolbar", e);
        throw e;
      },
    ));
  const framed = window.parent !== window;
  if (session.getState().status === "restoring" || framed) void loadWorkspace().catch(() => undefined);

  render(
    <ModelContext.Provider value={model}>
      <App workspace={workspaceScreen} />
    </ModelContext.Provider>,
    document.getElementById("app")!,
  );

  void session.getState().restore();

  if (!workspace) {
    const soon = () => setTimeout(() => void loadWorkspace().catch(() => undefined));
    // After the sign-in form's first paint; a tab opened in the background paints nothing until shown, so it loads at once.
    const afterForm = () => (document.visibilityState === "visible" ? requestAnimationFrame(soon) : soon());
    void loadSignInScreen().then(afterForm, afterForm);
  }
  session.subscribe((s) => {
    if (s.status === "signed-in" && !workspaceScreen.value) void loadWorkspace().catch(() => undefined);
  });

  // Framed by a CRM: the host page may talk to the app (docs/embedding.md). Loaded only in a frame.
  if (framed) {
    void Promise.all([loadWorkspace(), import("./embed/start")]).then(([w, m]) =>
      m.startEmbedding({ session, settings, phoneSession: w.phoneSession, agentSession: w.agentSession }),
    );
  }
}
