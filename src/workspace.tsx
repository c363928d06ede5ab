import { createAgentSession, createEventFeed, createTabMirror, eventChannelConnector, type AgentSession } from "./cc";
import {
  browserTabs,
  createPhoneSession,
  type KeyValueStorage,
  type PhoneSession,
  type SessionStore,
  type SettingsStore,
} from "./session";
import { deploymentEmbedConfig } from "./embed/config";
import { Phone, isLive } from "./softphone";
import { beginAfterStart } from "./ui/after-start";
import { AgentScreen } from "./ui/agent-screen";
import { withEnglishPanels } from "./ui/i18n";
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
  // One phone for the page's lifetime: started at sign-in, stopped (unregistered) at sign-out; of
  // the agent's tabs in this browser, one has it at a time (phone-owner.ts).
  const phoneSession = createPhoneSession({
    session,
    settings,
    phone: new Phone(),
    deviceStorage,
    pageHref: () => location.href,
    tabs: browserTabs(),
  });

  // The call-center toolbar: the agent's queues, status, queue calls and after-call work.
  const feed = createEventFeed({ session, settings, pageHref: () => location.href, connect: eventChannelConnector() });
  // The headers that are a call's data (an IVR's input), as the deployment lists them.
  let callData: readonly string[] = [];
  void deploymentEmbedConfig().then((c) => (callData = c.callData));
  const ownSession = createAgentSession({
    session,
    phoneSession,
    settings,
    deviceStorage,
    tabStorage,
    feed,
    callDataHeaders: () => callData,
  });
  // The agent's other tabs show this one's calls and agent while it has the phone, and this one
  // theirs while another has it; every surface acts through the tab with the phone.
  const mirror = createTabMirror({
    owner: phoneSession.owner,
    agent: ownSession,
    calls: phoneSession.phone.callsStore,
    tabStorage,
  });
  const agentSession = { ...ownSession, actions: mirror.actions, dispatch: mirror.dispatch };
  // The tab with the phone asks before it closes while a call is ringing or up: closing it would
  // end the call (another tab takes the phone, and takes a customer call back, but not at once).
  addEventListener("beforeunload", (e) => {
    const role = phoneSession.owner.store.getState().role;
    if ((role === "owner" || role === "alone") && phoneSession.phone.callsStore.getState().calls.some(isLive))
      e.preventDefault();
  });

  const model = withWorkspace(deps.model, { phoneSession, agentSession, document });
  whenReadyForCalls(deps.session, phoneSession, agentSession, beginAfterStart);
  // A supervisor's wallboard (on the same event feed) and what a supervisor does to agents' calls.
  const Wallboard = lazy(() =>
    withEnglishPanels(import("./supervisor")).then((m) =>
      m.startWallboard({ model, session, feed, phone: phoneSession.phone }),
    ),
  );

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

/** Longest wait for the phone and the toolbar before what comes after the start loads anyway. */
const READY_WAIT_MS = 5_000;

/**
 * Calls `ready` once, when the page is ready for calls (the toolbar is on, which it is only with
 * the phone registered, or could not start), when nobody is signed in (the sign-in screen shows:
 * the agent types), when the phone cannot start, or after READY_WAIT_MS.
 */
function whenReadyForCalls(
  session: SessionStore,
  phoneSession: PhoneSession,
  agentSession: AgentSession,
  ready: () => void,
): void {
  const stops: (() => void)[] = [];
  const check = () => {
    const phase = agentSession.store.getState().phase;
    const settled =
      phase === "on" ||
      phase === "no-queues" ||
      phase === "failed" ||
      session.getState().status === "signed-out" ||
      phoneSession.store.getState().status === "unavailable";
    if (settled) done();
  };
  const timer = setTimeout(() => done(), READY_WAIT_MS);
  const done = () => {
    clearTimeout(timer);
    stops.forEach((s) => s());
    stops.length = 0;
    ready();
  };
  stops.push(session.subscribe(check), phoneSession.store.subscribe(check), agentSession.store.subscribe(check));
  check();
}
