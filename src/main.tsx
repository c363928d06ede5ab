import { render } from "preact";
import { createAgentSession, createEventFeed, createSupervision, createWallboard, eventChannelConnector } from "./cc";
import { browserStorage, createPhoneSession, createSessionStore, createSettingsStore, followOtherTabs } from "./session";
import { Phone } from "./softphone";
import { App } from "./ui/app";
import { browserLanguages, chooseLanguage, loadMessages, loadedMessages } from "./ui/i18n";
import { layoutFrom } from "./ui/layout";
import { ModelContext, createUiModel } from "./ui/model/model";
import "./ui/styles.css";

const deviceStorage = browserStorage("localStorage");
const settings = createSettingsStore(deviceStorage);
followOtherTabs(settings, window);
const session = createSessionStore({ settings, tabStorage: browserStorage("sessionStorage"), deviceStorage, pageOrigin: location.origin });

// One phone for the page's lifetime: started at sign-in, stopped (unregistered) at sign-out.
const phoneSession = createPhoneSession({ session, settings, phone: new Phone(), deviceStorage, pageHref: () => location.href });

// The call-center toolbar: the agent's queues, status, queue calls and after-call work.
const feed = createEventFeed({ session, settings, pageHref: () => location.href, connect: eventChannelConnector() });
const agentSession = createAgentSession({ session, phoneSession, settings, deviceStorage, feed });

// The supervisor's wallboard (on the same event feed) and what a supervisor does to agents' calls.
const wallboard = createWallboard({ session, feed });
const supervision = createSupervision({ session, phone: phoneSession.phone, wallboard: wallboard.store });

const layout = layoutFrom(location.search, settings.getState().layout);
document.documentElement.dataset.layout = layout;

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
  phoneSession,
  agentSession,
  wallboard,
  supervision,
  document,
});

render(
  <ModelContext.Provider value={model}>
    <App />
  </ModelContext.Provider>,
  document.getElementById("app")!,
);

void session.getState().restore();

// Framed by a CRM: the host page may talk to the app (docs/embedding.md). Loaded only in a frame.
if (window.parent !== window) {
  void import("./embed/start").then((m) => m.startEmbedding({ session, phoneSession, agentSession }));
}
