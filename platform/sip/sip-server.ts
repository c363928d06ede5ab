import "./fast-grammar";
import "./node-webrtc";
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { Core } from "sip.js";
import { SessionState, UserAgent, type Invitation, type Referral, type Session, type URI } from "sip.js";
import type { ImpairedLink, MediaPlane } from "../media";
import type { AuthService } from "../auth/sessions";
import type { Clock } from "../clock";
import type { ChannelBase, ChannelHost, ChannelInit } from "../switch/channel";
import type { PhoneLegs, SoftSwitch } from "../switch/soft-switch";
import type { HangupCause, OriginateOptions } from "../switch/types";
import type { ExtensionRow, UserStore } from "../store/users";
import { sipStatusOfCause } from "./causes";
import { SipHub, extensionKey, type HubConnection } from "./hub";
import type { Log } from "../log";
import { Registrar, type RegistrarOptions } from "./registrar";
import { SipAuthenticator } from "./sip-authenticator";
import { legHandlerFactory } from "./sdh";
import { SipChannel, SipInboundChannel, SipOutboundChannel, type LegMedia, type SipChannelDeps } from "./sip-channel";

export interface SipServerOptions extends RegistrarOptions {
  log: Log;
  /** What digest nonces and the password-guessing rule take the time from. */
  now: Clock;
  /** How long an answered call waits for a phone whose WebSocket died to reconnect, ms. */
  reconnectGraceMs: number;
  rateBurst: number;
  ratePerSecond: number;
  sourceRateBurst: number;
  sourceRatePerSecond: number;
  /** Share (0-1) of the event loop one source's SIP messages may take. */
  sourceShare: number;
  /** The network path of a new leg of an extension's phone, when media can be impaired (/sim). */
  linkFor?: (extension: string) => ImpairedLink | undefined;
}

/**
 * The Request-URI a request was sent to, before the platform's UserAgent core saw it (see
 * `acceptAnyRequestUri`).
 */
const dialledUris = new WeakMap<Core.IncomingRequestMessage, URI>();

export function dialledUriOf(message: Core.IncomingRequestMessage): URI | undefined {
  return dialledUris.get(message) ?? message.ruri;
}

/**
 * sip.js's UserAgentCore answers 404 "Request-URI does not point to us" to any request whose
 * Request-URI user is neither its own AOR nor its Contact user (user-agent-core.js,
 * receiveRequest, RFC 3261 §8.2.2.1). The platform is a registrar and a back-to-back user agent:
 * REGISTER has no user at all and an INVITE names whom it is for. So out-of-dialog requests (no
 * To tag) have their Request-URI user replaced by the platform's AOR user on the way in; the
 * dialled URI is kept aside (`dialledUriOf`). In-dialog requests already target the platform's
 * Contact and pass untouched. This is the only change to sip.js's behaviour; it is covered by
 * test/integration/sip-registrar.test.ts (REGISTER, OPTIONS, INVITE to a number).
 */
export function acceptAnyRequestUri(ua: UserAgent): void {
  const core = ua.userAgentCore as unknown as {
    receiveRequest(message: Core.IncomingRequestMessage): void;
    configuration: { aor: URI };
  };
  const receive = core.receiveRequest.bind(core);
  core.receiveRequest = (message) => {
    if (!message.toTag && message.ruri) {
      dialledUris.set(message, message.ruri);
      const ruri = message.ruri.clone();
      ruri.user = core.configuration.aor.user;
      message.ruri = ruri;
    }
    receive(message);
  };
}

/**
 * The platform's SIP side: one sip.js UserAgent behind a multiplexing transport (SipHub), the
 * registrar, and the phone legs of the switch (incoming calls from phones, legs the switch rings
 * on phones, REFER transfers, reconnects).
 */
export class SipServer implements PhoneLegs {
  readonly hub: SipHub;
  readonly registrar: Registrar;
  readonly ua: UserAgent;
  readonly authenticator: SipAuthenticator;
  private readonly legs = new WeakMap<Session, () => LegMedia>();
  private readonly byContact = new Map<string, Set<SipChannel>>();
  private readonly graceTimers = new Map<SipChannel, NodeJS.Timeout>();
  private readonly deps: SipChannelDeps;

  private constructor(
    private readonly sw: SoftSwitch,
    private readonly users: UserStore,
    media: MediaPlane,
    auth: AuthService,
    private readonly options: SipServerOptions,
  ) {
    const log = options.log;
    this.hub = new SipHub({
      log,
      rateBurst: options.rateBurst,
      ratePerSecond: options.ratePerSecond,
      sourceRateBurst: options.sourceRateBurst,
      sourceRatePerSecond: options.sourceRatePerSecond,
      fairShare: { sourceShare: options.sourceShare },
      contactHoldMs: options.reconnectGraceMs,
    });
    this.authenticator = new SipAuthenticator(users, auth, log, options.now);
    this.registrar = new Registrar(users, this.authenticator, this.hub, log, options);
    const domain = users.defaultDomain() || "localhost";
    const uri = UserAgent.makeURI(`sip:platform@${domain}`);
    if (!uri) throw new Error(`cannot make the platform's SIP URI for domain ${domain}`);
    this.ua = new UserAgent({
      uri,
      contactName: "platform",
      viaHost: domain,
      userAgentString: "Agentbar platform",
      transportConstructor: this.hub.transportConstructor(),
      sendInitialProvisionalResponse: false,
      gracefulShutdown: false,
      // The switch decides how long a call rings (originate timeouts, the caller's patience).
      noAnswerTimeout: 24 * 3600,
      logBuiltinEnabled: false,
      logLevel: "warn",
      logConnector: (level, category, _label, content) => {
        if (level === "error") log.warn(`sip.js ${category}: ${content}`);
        else log.debug(`sip.js ${category}: ${content}`);
      },
      sessionDescriptionHandlerFactory: legHandlerFactory((session) => this.legs.get(session)?.()),
      delegate: {
        onRegisterRequest: (request) =>
          this.guard(() => this.registrar.handle(request as unknown as Core.IncomingRequest)),
        onInvite: (invitation) => this.guard(() => this.onInvite(invitation)),
      },
    });
    this.deps = {
      ua: this.ua,
      media,
      log,
      provideLeg: (session, provider) => this.legs.set(session, provider),
      ...(options.linkFor ? { linkFor: options.linkFor } : {}),
      watchContact: (ch, contactUser) => this.watch(ch, contactUser),
      onRefer: (ch, referral) =>
        void this.onRefer(ch, referral).catch((error: unknown) => log.error({ err: error }, "REFER failed")),
    };
    this.hub.on("closed", (_conn, contacts) => this.connectionClosed(contacts));
    // A page going away unregisters before its socket closes: its calls are left as a lost connection's.
    this.hub.on("released", (contactUser) => this.connectionClosed([contactUser]));
    this.hub.on("contact", (contactUser) => this.contactBack(contactUser));
    sw.phones = this;
  }

  static async start(
    sw: SoftSwitch,
    users: UserStore,
    media: MediaPlane,
    auth: AuthService,
    options: SipServerOptions,
  ): Promise<SipServer> {
    const server = new SipServer(sw, users, media, auth, options);
    await server.ua.start();
    acceptAnyRequestUri(server.ua);
    return server;
  }

  /** Takes an accepted WebSocket (subprotocol `sip`) from the upgrade router. */
  attach = (ws: WebSocket, req: IncomingMessage): void => {
    this.hub.attach(ws, req);
  };

  /** PhoneLegs: a leg the switch rings on every registered contact of an extension. */
  outbound(host: ChannelHost, init: ChannelInit, extension: ExtensionRow, options: OriginateOptions): ChannelBase {
    const contacts = this.registrar.refusal(extension) ? [] : this.registrar.contactsOf(extension.extn, init.domain);
    const ch = new SipOutboundChannel(host, init, this.deps, contacts, options);
    for (const binding of contacts) this.watch(ch, binding.contactUser);
    return ch;
  }

  async close(): Promise<void> {
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
    this.registrar.close();
    this.hub.close();
    await this.ua.stop().catch(() => undefined);
  }

  private guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.log.error({ err: error }, "SIP request handling failed");
    }
  }

  private onInvite(invitation: Invitation): void {
    const message = invitation.request;
    const domain = this.registrar.resolveDomain(message.from.uri.host);
    const caller = message.from.uri.user ?? "";
    const conn = message.viaBranch ? this.hub.connectionOfBranch(message.viaBranch) : undefined;
    // The answer makes this call (this Call-ID from this caller) and no other; its `uri` is checked
    // against the Request-URI, the destination.
    const binding = `INVITE ${caller}@${domain} ${message.callId}`;
    this.authenticator.check({ message, extension: caller, domain, conn, binding }, (verdict) => {
      // The caller may have given up while its answer was held back.
      if (invitation.state !== SessionState.Initial) return;
      if (!verdict.ok) invitation.reject(verdict).catch(() => undefined);
      else this.call(invitation, verdict.extension, domain, conn);
    });
  }

  private call(invitation: Invitation, extension: ExtensionRow, domain: string, conn: HubConnection | undefined): void {
    const message = invitation.request;
    const refusal = this.registrar.refusal(extension);
    if (refusal) {
      invitation.reject({ statusCode: 403, reasonPhrase: refusal }).catch(() => undefined);
      return;
    }
    const contact = message.parseHeader("contact") as { uri?: { user?: string } } | undefined;
    const contactUser = contact?.uri?.user;
    if (contactUser) {
      const owner = extensionKey(extension.extn, domain);
      const current = this.hub.ownerOfContact(contactUser);
      if (current !== undefined && current !== owner) {
        this.options.log.info(`INVITE from ${owner} refused: Contact ${contactUser} belongs to ${current}`);
        invitation
          .reject({ statusCode: 403, reasonPhrase: "Contact Belongs To Another Extension" })
          .catch(() => undefined);
        return;
      }
      // A phone may call without registering: its dialog's requests still need a way back.
      if (conn && !this.hub.connectionOfContact(contactUser)) this.hub.bindContact(contactUser, owner, conn);
    }

    const destination = decodeURIComponent(dialledUriOf(message)?.user ?? message.to.uri.user ?? "");
    const ch = new SipInboundChannel(
      this.sw,
      {
        direction: "inbound",
        callerIdName: extension.cid_name || extension.name || extension.extn,
        callerIdNumber: extension.cid_number || extension.extn,
        destinationNumber: destination,
        domain,
        context: extension.context,
        extension: extension.extn,
      },
      this.deps,
      invitation,
    );
    ch.userId = extension.user_id;
    if (conn) {
      ch.networkAddr = conn.remoteAddress;
      ch.networkPort = String(conn.remotePort);
    }
    this.sw.add(ch);
    this.sw.route(ch, destination);
  }

  private async onRefer(ch: SipChannel, referral: Referral): Promise<void> {
    const session = ch.session;
    if (!session) {
      await referral.reject({ statusCode: 481 });
      return;
    }
    let target: string;
    let replaces: string | undefined;
    try {
      target = decodeURIComponent(referral.referTo.uri.user ?? "");
      replaces = referral.replaces;
    } catch {
      await referral.reject({ statusCode: 400, reasonPhrase: "Bad Refer-To" });
      return;
    }
    await referral.accept({ statusCode: 202 });
    const notify = sipfragNotifier(session, this.options.log);
    notify("SIP/2.0 100 Trying", false);
    ch.variables.set("transfer_to", replaces ? `att:${target}` : `blind:${target}`);

    if (replaces) {
      const other = this.channelOfDialog(decodeURIComponent(replaces));
      const p1 = this.sw.partnerOf(ch) as ChannelBase | undefined;
      const p2 = other ? (this.sw.partnerOf(other) as ChannelBase | undefined) : undefined;
      if (!other || !p1 || !p2 || other === ch) {
        await notify(other ? "SIP/2.0 603 Declined" : "SIP/2.0 481 Call/Transaction Does Not Exist", true);
        return;
      }
      this.sw.unbridge(ch);
      this.sw.unbridge(other);
      this.sw.bridge(p1, p2);
      await notify("SIP/2.0 200 OK", true);
      ch.hangup("NORMAL_CLEARING");
      other.hangup("NORMAL_CLEARING");
      return;
    }

    const transferee = this.sw.partnerOf(ch) as ChannelBase | undefined;
    if (!transferee) {
      await notify("SIP/2.0 603 Declined", true);
      return;
    }
    this.sw.unbridge(ch);
    this.sw.transferTo(transferee, target, {
      onProgress: () => notify("SIP/2.0 180 Ringing", false),
      onAnswer: () => {
        void notify("SIP/2.0 200 OK", true).then(() => ch.hangup("NORMAL_CLEARING"));
      },
      onFail: (cause) => {
        const status = sipStatusOfCause(cause);
        void notify(`SIP/2.0 ${status} ${reasonPhrase(status)}`, true);
        // The transfer failed: the transferee goes back to the phone that tried it.
        if (ch.isUp && transferee.isUp) {
          this.sw.bridge(ch, transferee);
          return true;
        }
        return false;
      },
    });
  }

  /** The SIP channel whose dialog a Replaces value (call-id;to-tag=..;from-tag=..) names. */
  private channelOfDialog(replaces: string): SipChannel | undefined {
    const [callId, ...params] = replaces.split(";");
    const tag = (name: string) => params.map((p) => p.trim().split("=")).find(([k]) => k?.toLowerCase() === name)?.[1];
    const toTag = tag("to-tag");
    const fromTag = tag("from-tag");
    for (const ch of this.sw.channels()) {
      if (!(ch instanceof SipChannel)) continue;
      const dialog = ch.session?.dialog;
      if (!dialog || dialog.callId !== callId) continue;
      const tags = [dialog.localTag, dialog.remoteTag];
      if (tags.includes(toTag ?? "") && tags.includes(fromTag ?? "")) return ch;
    }
    return undefined;
  }

  private watch(ch: SipChannel, contactUser: string): void {
    let set = this.byContact.get(contactUser);
    if (!set) this.byContact.set(contactUser, (set = new Set()));
    if (set.has(ch)) return;
    set.add(ch);
    ch.once("hangup", () => {
      set.delete(ch);
      if (set.size === 0 && this.byContact.get(contactUser) === set) this.byContact.delete(contactUser);
      const timer = this.graceTimers.get(ch);
      if (timer) clearTimeout(timer);
      this.graceTimers.delete(ch);
    });
  }

  /**
   * A phone's WebSocket closed, or the phone unregistered the Contact (a page going away does so
   * first). Its ringing legs fail at once; its answered calls wait `reconnectGraceMs` for the phone
   * to reconnect and register the same Contact again (then in-dialog requests follow the new
   * connection) and are ended after that; meanwhile their partners hear music on hold.
   */
  private connectionClosed(contacts: string[]): void {
    for (const contactUser of contacts) {
      for (const ch of [...(this.byContact.get(contactUser) ?? [])]) {
        if (!ch.isUp) continue;
        if (ch instanceof SipOutboundChannel && ch.state !== "answered") {
          ch.dropContact(contactUser);
          continue;
        }
        if (ch.state !== "answered") {
          ch.connectionGone("ORIGINATOR_CANCEL");
          continue;
        }
        if (ch instanceof SipOutboundChannel && ch.answeredContact !== contactUser) continue;
        if (this.graceTimers.has(ch)) continue;
        ch.lostSince = new Date();
        this.sw.phoneAway(ch, true);
        const timer = setTimeout(() => {
          this.graceTimers.delete(ch);
          if (ch.lostSince && !this.hub.connectionOfContact(contactUser)) ch.connectionGone(LOST_CONNECTION_CAUSE);
        }, this.options.reconnectGraceMs);
        timer.unref();
        this.graceTimers.set(ch, timer);
      }
    }
  }

  private contactBack(contactUser: string): void {
    for (const ch of this.byContact.get(contactUser) ?? []) {
      const timer = this.graceTimers.get(ch);
      if (timer) clearTimeout(timer);
      this.graceTimers.delete(ch);
      ch.lostSince = undefined;
      this.sw.phoneAway(ch, false);
    }
  }
}

const PHRASES: Record<number, string> = {
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  480: "Temporarily Unavailable",
  486: "Busy Here",
  487: "Request Terminated",
  488: "Not Acceptable Here",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Server Time-out",
  603: "Decline",
};

function reasonPhrase(status: number): string {
  return PHRASES[status] ?? "Failed";
}

/** The cause of a call whose phone lost its connection and did not come back in time. */
export const LOST_CONNECTION_CAUSE: HangupCause = "NETWORK_OUT_OF_ORDER";

/**
 * NOTIFYs of a REFER's implicit subscription (RFC 3515), in order, each with the progress of the
 * transfer as a message/sipfrag body. Resolves when the phone answered (or could not be reached).
 */
function sipfragNotifier(session: Session, log: Log): (fragment: string, final: boolean) => Promise<boolean> {
  return (fragment, final) =>
    new Promise<boolean>((resolve) => {
      const dialog = session.dialog;
      if (!dialog || session.state !== SessionState.Established) {
        resolve(false);
        return;
      }
      const timer = setTimeout(() => resolve(false), 4000);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      try {
        dialog.notify(
          { onAccept: () => done(true), onReject: () => done(false) },
          {
            extraHeaders: [
              "Event: refer",
              `Subscription-State: ${final ? "terminated;reason=noresource" : "active;expires=60"}`,
            ],
            body: { contentDisposition: "render", contentType: "message/sipfrag;version=2.0", content: fragment },
          },
        );
      } catch (error) {
        log.debug({ err: error }, "NOTIFY not sent");
        done(false);
      }
    });
}
