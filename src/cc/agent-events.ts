import { CALL_CENTER_CHANNEL, EventChannel, type SocketFactory } from "../api/event-channel";
import type { EventFeedFactory } from "./agent-session";
import { isCallCenterEvent } from "./agent-status";

/**
 * The agent session's live events from the platform's JSON-RPC channel: mod_callcenter's events
 * as mod_verto publishes them, logged in with the user token (renewed tokens are read at each
 * reconnection).
 */
export function eventChannelFeed(socket?: SocketFactory): EventFeedFactory {
  return (o) => {
    let open = false;
    const channel = new EventChannel({
      url: o.url,
      credentials: () => ({ login: o.login, token: o.token() }),
      channels: [CALL_CENTER_CHANNEL],
      onEvent: (_channel, data) => {
        if (isCallCenterEvent(data)) o.onEvent(data);
      },
      onStatus: (status, detail) => {
        if (detail.error) console.info(`agentbar: event channel ${status}: ${detail.error}`);
        if ((status === "open") === open) return;
        open = status === "open";
        o.onOpenChange(open);
      },
      ...(socket ? { socket } : {}),
    });
    return { close: () => channel.close() };
  };
}
