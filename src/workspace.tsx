import { createAgentSession, createEventFeed, eventChannelConnector } from "./cc";
import { createPhoneSession, type KeyValueStorage, type SessionStore, type SettingsStore } from "./session";
import { Phone } from "./softphone";
import { AgentScreen } from "./ui/agent-screen";
import { lazy } from "./ui/lazy";
import { ModelContext, type UiModel } from "./ui/model/model";
import { withWorkspace } from "./ui/model/workspace-model";

export interface WorkspaceDeps {
  session: SessionStore;
  settings: SettingsStore;
  deviceStorage: KeyValueStorage;
  /** sessionStorage: what a reload of this tab needs (the live call). */
  tabStorage: KeyValueStorage;
  /** The sign-in screen's model, which the signed-in screen's extends. */
  model: UiModel;
}

/**
 * The signed-in half of the page: sip.js and the phone, the call-center toolbar and its event
 * feed, and the screen that shows them. main.tsx loads it in the background while the sign-in
 * screen shows, or at once when the tab kept its session.
 */
export function startWorkspace(deps: WorkspaceDeps) {
  const { session, settings, deviceStorage, tabStorage } = deps;
  // One phone for the page's lifetime: started at sign-in, stopped (unregistered) at sign-out.
  const phoneSession = createPhoneSession({ session, settings, phone: new Phone(), deviceStorage, pageHref: () => location.href });

  // The call-center toolbar: the agent's queues, status, queue calls and after-call work.
  const feed = createEventFeed({ session, settings, pageHref: () => location.href, connect: eventChannelConnector() });
  const agentSession = createAgentSession({ session, phoneSession, settings, deviceStorage, tabStorage, feed });

  const model = withWorkspace(deps.model, { phoneSession, agentSession, document });
  // A supervisor's wallboard (on the same event feed) and what a supervisor does to agents' calls.
  const Wallboard = lazy(() => import("./supervisor").then((m) => m.startWallboard({ model, session, feed, phone: phoneSession.phone })));

  function Workspace() {
    return (
      <ModelContext.Provider value={model}>
        <AgentScreen Wallboard={Wallboard} />
      </ModelContext.Provider>
    );
  }
  return { phoneSession, agentSession, Workspace };
}

export type Workspace = ReturnType<typeof startWorkspace>;
