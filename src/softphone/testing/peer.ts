import {
  Registerer,
  RegistererState,
  SIPExtension,
  UserAgent,
  type Invitation,
  type SessionDescriptionHandlerFactory,
  type UserAgentDelegate,
} from "sip.js";
import type { FakeSipServer } from "./fake-sip-server";
import { mockMedia } from "./mock-media";

/**
 * A plain sip.js user agent on the switch, standing for the other people and devices in a test:
 * it follows REFERs by itself (sip.js's default), accepts INVITE/Replaces, and queues incoming
 * calls for the test to answer or reject.
 */
export interface Peer {
  user: string;
  ua: UserAgent;
  media: ReturnType<typeof mockMedia>;
  invitations: Invitation[];
  /** The next incoming call (already arrived or still to come). */
  nextInvitation(): Promise<Invitation>;
  stop(): Promise<void>;
}

export async function startPeer(
  sw: FakeSipServer,
  user: string,
  delegate: UserAgentDelegate = {},
  mediaFactory?: SessionDescriptionHandlerFactory,
): Promise<Peer> {
  const media = mockMedia();
  const invitations: Invitation[] = [];
  const waiting: Array<(i: Invitation) => void> = [];
  let taken = 0;
  const ua = new UserAgent({
    uri: UserAgent.makeURI(`sip:${user}@${sw.domain}`),
    transportConstructor: sw.Transport,
    sessionDescriptionHandlerFactory: mediaFactory ?? media.factory,
    sipExtensionReplaces: SIPExtension.Supported,
    logBuiltinEnabled: false,
    logConfiguration: false,
    gracefulShutdown: false,
    delegate: {
      ...delegate,
      onInvite: (invitation) => {
        invitations.push(invitation);
        const w = waiting.shift();
        if (w) {
          taken++;
          w(invitation);
        }
        delegate.onInvite?.(invitation);
      },
    },
  });
  await ua.start();
  const registerer = new Registerer(ua, { logConfiguration: false });
  await new Promise<void>((resolve) => {
    registerer.stateChange.addListener((s) => s === RegistererState.Registered && resolve());
    void registerer.register();
  });
  return {
    user,
    ua,
    media,
    invitations,
    nextInvitation: () =>
      new Promise((resolve) => {
        const ready = invitations[taken];
        if (ready) {
          taken++;
          resolve(ready);
        } else waiting.push(resolve);
      }),
    stop: () => ua.stop(),
  };
}
