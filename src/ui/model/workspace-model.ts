import type { AgentSession } from "../../cc";
import type { PhoneSession } from "../../session";
import { afterStart } from "../after-start";
import { completeEnglish, loadEnglishPanels } from "../i18n";
import { enWorkspace } from "../i18n/en-workspace";
import { createAgentUi } from "./agent-ui";
import { installShortcuts } from "./keyboard-shortcuts";
import type { UiModel } from "./model";
import { createPhoneUi } from "./phone-ui";

export interface WorkspaceModelDeps {
  phoneSession: PhoneSession;
  agentSession: AgentSession;
  /** The page: sound unlocking, tab title and icon for ringing calls, keyboard shortcuts. */
  document?: Document;
}

/**
 * The signed-in screen's model: the sign-in screen's, with the phone and the toolbar. Its code
 * is loaded after the sign-in screen shows (or at once when a session is kept), so the sign-in
 * screen does not wait for sip.js.
 */
export function withWorkspace(model: UiModel, deps: WorkspaceModelDeps): UiModel {
  completeEnglish(enWorkspace);
  // The panels' English is there before anyone opens one (they wait for it if not).
  void afterStart.then(loadEnglishPanels).catch(() => undefined);
  // So is the code for outgoing calls before the first one is dialled (a failed fetch is tried again by that call).
  void afterStart.then(() => deps.phoneSession.phone.loadOutgoingCalls()).catch(() => undefined);
  const { settings, t, language, announce } = model;
  // The phone's calls are acted on through the agent session, which chooses the platform or the phone for each.
  const phone = createPhoneUi({
    session: deps.phoneSession,
    agent: deps.agentSession,
    settings,
    t,
    language,
    announce,
    ...(deps.document ? { document: deps.document } : {}),
  });
  const agent = createAgentUi({ session: deps.agentSession, settings, t, announce });
  if (deps.document) installShortcuts({ target: deps.document, settings, phone, agent });
  return { ...model, phone, agent };
}
