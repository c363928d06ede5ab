import { render } from "preact";
import { browserStorage, createSessionStore, createSettingsStore, followOtherTabs } from "./cc";
import { App } from "./ui/app";
import { browserLanguages } from "./ui/i18n";
import { layoutFrom } from "./ui/layout";
import { ModelContext, createUiModel } from "./ui/model";
import "./ui/styles.css";

const deviceStorage = browserStorage("localStorage");
const settings = createSettingsStore(deviceStorage);
followOtherTabs(settings, window);
const session = createSessionStore({ settings, tabStorage: browserStorage("sessionStorage"), deviceStorage, pageOrigin: location.origin });

const layout = layoutFrom(location.search);
document.documentElement.dataset.layout = layout;

const model = createUiModel({
  session,
  settings,
  browserLanguages: browserLanguages(navigator),
  pageOrigin: location.origin,
  layout,
  root: document.documentElement,
});

render(
  <ModelContext.Provider value={model}>
    <App />
  </ModelContext.Provider>,
  document.getElementById("app")!,
);

void session.getState().restore();
