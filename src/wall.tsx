import { signal } from "@preact/signals";
import { createWallboard } from "./cc/supervisor";
import { createEventFeed, eventChannelConnector } from "./cc/event-feed";
import type { KeyValueStorage, SessionStore, SettingsStore } from "./session";
import { Announcer } from "./ui/announcer";
import { completeEnglish } from "./ui/i18n";
import { enWorkspace } from "./ui/i18n/en-workspace";
import { ModelContext, type UiModel } from "./ui/model/model";
import { createBoardView } from "./ui/model/supervisor-ui";
import { WallView, type WallKey } from "./ui/supervisor/wall-view";

/** Where the wall screen keeps its developer key: the TV signs in again by itself after any loss. */
export const WALL_KEY = "agentbar.wall-key";

/**
 * The wall screen (`/wall`): the queues' figures and alerts across the whole width, for a TV that
 * nobody types on. It signs in with a supervisor's developer key (the spec's keys never expire
 * until deleted), given once in the address's fragment (`/wall#key=...`: a fragment is never sent
 * to the server, so it is in no log and no Referer) or typed into its one field; the page keeps
 * it in this browser and takes the fragment out of the address at once. Whenever the session ends
 * (the platform restarted, the network came back after the token expired) it signs in again, with
 * growing pauses; the board itself reads agent_state while the event channel is down.
 */
export function startWall(deps: {
  session: SessionStore;
  settings: SettingsStore;
  deviceStorage: KeyValueStorage;
  model: UiModel;
}) {
  const { session, settings, deviceStorage, model } = deps;
  // The board's words include the signed-in screen's English (agents' statuses), which the phone would add.
  completeEnglish(enWorkspace);
  const fromAddress = /(?:^#|&)key=([^&]+)/.exec(location.hash)?.[1];
  if (fromAddress) {
    deviceStorage.setItem(WALL_KEY, decodeURIComponent(fromAddress));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const key = signal<WallKey>({ value: deviceStorage.getItem(WALL_KEY) ?? "", error: null });
  const feed = createEventFeed({ session, settings, pageHref: () => location.href, connect: eventChannelConnector() });
  const wallboard = createWallboard({ session, feed });
  const view = createBoardView({ wallboard, session: model.session, t: model.t, announce: model.announce });

  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const signIn = () => {
    const k = key.value.value;
    const s = session.getState();
    if (!k || (s.status !== "signed-out" && s.status !== "session-expired")) return;
    void s.signIn({ login: "", password: "", devKey: k, platformUrl: s.platformUrl }).then(() => {
      const after = session.getState();
      if (after.status === "signed-in") {
        attempt = 0;
        key.value = { ...key.value, error: null };
        return;
      }
      // Refused (the key deleted or disabled) or the platform unreachable: said, and tried again.
      key.value = { ...key.value, error: after.error };
      clearTimeout(retry);
      retry = setTimeout(signIn, Math.min(30_000, 1000 * 2 ** attempt++));
    });
  };
  session.subscribe((s, before) => {
    if (s.status !== before.status && (s.status === "signed-out" || s.status === "session-expired")) signIn();
  });
  const useKey = (value: string) => {
    deviceStorage.setItem(WALL_KEY, value);
    key.value = { value, error: null };
    attempt = 0;
    signIn();
  };
  void session
    .getState()
    .restore()
    .then(() => signIn());

  return function Wall() {
    return (
      <ModelContext.Provider value={model}>
        <WallView view={view} wallKey={key} onKey={useKey} />
        <Announcer />
      </ModelContext.Provider>
    );
  };
}
