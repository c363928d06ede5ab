import type { WebSocket } from "ws";
import type { AuthService } from "../auth/sessions";
import type { CallCenter } from "../cc/call-center";
import { ccCaller, type CcCaller } from "../cc/cc-caller";
import type { CcEvent } from "../cc/cc-event";
import type { CcService } from "../cc/cc-functions";
import type { CallCenterDirectory } from "../cc/directory";
import type { Channel, Switch } from "../switch/types";
import type { UserRow } from "../store/users";
import {
  channelEventData,
  channelsOfCcEvent,
  maySeeCcEvent,
  maySeeChannelEvent,
  type ChannelEventChannel,
  type Viewer,
} from "./event-channels";
import { VertoSession, type RpcOptions, type SessionHost } from "./verto-session";

export interface RpcServerDeps {
  auth: AuthService;
  directory: CallCenterDirectory;
  cc: CallCenter;
  service: CcService;
  sw: Switch;
  /**
   * False: no events are pushed (the spec shows no event names or payloads on `/ws`): the channel
   * still logs in, subscribes, answers jsapi and pings, and stays quiet.
   */
  events?: boolean;
  options: RpcOptions;
}

/**
 * The JSON-RPC event channel on `/ws` (WebSocket without the `sip` subprotocol): accepts
 * connections, keeps their sessions, and fans call-center and channel events out to the sessions
 * subscribed to them that may see them.
 */
export class RpcServer implements SessionHost {
  private readonly sessions = new Set<VertoSession>();
  private readonly bySessid = new Map<string, { session: VertoSession; userId: number }>();
  readonly options: RpcOptions;

  constructor(private readonly deps: RpcServerDeps) {
    this.options = deps.options;
    deps.auth.onSessionsEnded((userId) => void this.endSessionsOf(userId));
    if (deps.events === false) return;
    deps.cc.events.on("event", (e) => this.publishCcEvent(e));
    const { sw } = deps;
    sw.on("channel-create", (ch) =>
      this.publishChannelEvent("FSevent.channel_create", [ch], channelEventData("CHANNEL_CREATE", ch)),
    );
    sw.on("channel-answer", (ch) =>
      this.publishChannelEvent("FSevent.channel_answer", [ch], channelEventData("CHANNEL_ANSWER", ch)),
    );
    sw.on("channel-bridge", (a, b) =>
      this.publishChannelEvent(
        "FSevent.channel_bridge",
        [a, b],
        channelEventData("CHANNEL_BRIDGE", a, { "Other-Leg-Unique-ID": b.uuid }),
      ),
    );
    sw.on("channel-hangup", (ch, cause) =>
      this.publishChannelEvent(
        "FSevent.channel_hangup",
        [ch],
        channelEventData("CHANNEL_HANGUP", ch, { "Hangup-Cause": cause }),
      ),
    );
  }

  accept = (socket: WebSocket): void => {
    const session = new VertoSession(socket, this);
    this.sessions.add(session);
    socket.on("close", () => this.sessions.delete(session));
  };

  /** Open sessions, for tests and the bench. */
  get count(): number {
    return this.sessions.size;
  }

  close(): void {
    for (const s of this.sessions) s.close();
  }

  /** The user's credentials changed: sessions whose token no longer holds are closed. */
  private async endSessionsOf(userId: number): Promise<void> {
    for (const session of [...this.sessions]) {
      if (session.caller?.userId === userId && !(await this.deps.auth.resolveAnyToken(session.token))) session.close();
    }
  }

  // ---- SessionHost ----------------------------------------------------------------------------

  authenticate(token: string) {
    return this.deps.auth.resolveAnyToken(token);
  }

  callerFor(user: UserRow, extensionId?: number): CcCaller {
    return ccCaller(user, this.deps.directory, extensionId);
  }

  viewerFor(caller: CcCaller): Viewer {
    const { directory, cc } = this.deps;
    return {
      caller,
      queues: () => {
        const set = new Set(caller.agentNumber ? directory.queuesOf(caller.agentNumber) : []);
        const group = caller.agentNumber ? cc.agent(caller.agentNumber)?.group : undefined;
        if (group) set.add(group);
        return set;
      },
      queueExists: (name) => directory.queue(name) !== undefined,
      agentExists: (number) => directory.agent(number) !== undefined,
    };
  }

  domain(): string {
    return this.deps.directory.domain();
  }

  runCc(func: string, data: unknown, caller: CcCaller) {
    return this.deps.service.run(func, data, caller);
  }

  claim(sessid: string, session: VertoSession, userId: number): boolean {
    const holder = this.bySessid.get(sessid);
    if (holder && holder.session !== session) {
      if (holder.userId !== userId) return false;
      holder.session.close();
    }
    this.bySessid.set(sessid, { session, userId });
    return true;
  }

  release(session: VertoSession): void {
    this.sessions.delete(session);
    if (this.bySessid.get(session.sessid)?.session === session) this.bySessid.delete(session.sessid);
  }

  // ---- fan-out --------------------------------------------------------------------------------

  private publishCcEvent(event: CcEvent): void {
    const channels = channelsOfCcEvent(event);
    for (const session of this.sessions) {
      if (!session.viewer || !maySeeCcEvent(event, session.viewer)) continue;
      for (const channel of channels) if (session.subscriptions.has(channel)) session.publish(channel, channel, event);
    }
  }

  private publishChannelEvent(channel: ChannelEventChannel, legs: Channel[], data: Record<string, string>): void {
    for (const session of this.sessions) {
      if (!session.viewer || !session.subscriptions.has(channel)) continue;
      if (!maySeeChannelEvent(legs, session.viewer, this.deps.sw)) continue;
      session.publish(channel, channel, data);
    }
  }
}
