import {
  type Core,
  Inviter,
  SessionState,
  UserAgent,
  type Invitation,
  type Referral,
  type Session,
  type Info,
  type Bye,
  type Cancel,
} from "sip.js";
import { NotifyUserAgentClient } from "sip.js/lib/core/user-agents/notify-user-agent-client.js";
import type { ImpairedLink, MediaPlane, WebRtcLeg } from "../media";
import { ChannelBase, type ChannelHost, type ChannelInit } from "../switch/channel";
import type { HangupCause, OriginateOptions } from "../switch/types";
import { displayNameForSip } from "./display-name";
import { sipHeaderLines } from "./extra-headers";
import { causeOfSipStatus, COMPLETED_ELSEWHERE, reasonHeaderOf, sipStatusOfCause } from "./causes";
import type { Log } from "../log";
import { isHoldDirection } from "./media-direction";
import type { Binding } from "./registrar";
import type { LegMediaHooks } from "./sdh";

/** A session's media: its leg, the hooks its handler calls, and the network path it goes through. */
export interface LegMedia {
  leg: WebRtcLeg;
  hooks: LegMediaHooks;
  link?: ImpairedLink;
}

/** What SIP channels need from the SIP server that made them. */
export interface SipChannelDeps {
  ua: UserAgent;
  media: MediaPlane;
  log: Log;
  /** Tells the session description handler factory which leg a session's media is. */
  provideLeg(session: Session, provider: () => LegMedia): void;
  /** The network path of a new leg of this extension's phone, when the platform can impair it (/sim). */
  linkFor?(extension: string): ImpairedLink | undefined;
  /** The phone's in-dialog target (Contact user) is known: its connection is watched from now on. */
  watchContact(ch: SipChannel, contactUser: string): void;
  onRefer(ch: SipChannel, referral: Referral): void;
}

/**
 * A channel to or from a registered phone: a sip.js session of the platform's UserAgent whose
 * media is a WebRTC leg of the media plane. Shared here: the dialog's requests (BYE, INFO, REFER,
 * re-INVITE hold), platform hold, DTMF both ways and the end of the leg with its cause.
 */
export abstract class SipChannel extends ChannelBase {
  readonly kind = "sip" as const;
  session?: Session;
  contactUser?: string;
  /** The phone's connection closed; the leg waits for it to come back until this time. */
  lostSince?: Date;

  constructor(
    host: ChannelHost,
    init: ChannelInit,
    protected readonly deps: SipChannelDeps,
  ) {
    super(host, init);
  }

  async signalHold(held: boolean): Promise<void> {
    const session = this.session;
    if (!session || session.state !== SessionState.Established) return;
    await new Promise<void>((resolve) => {
      session
        .invite({
          sessionDescriptionHandlerOptions: { hold: held } as Record<string, unknown>,
          requestDelegate: {
            onAccept: () => resolve(),
            onReject: (r) => {
              this.deps.log.info(`hold re-INVITE to ${this.toString()} answered ${r.message.statusCode}`);
              resolve();
            },
          },
        })
        .catch((error: unknown) => {
          this.deps.log.info({ err: error }, `hold re-INVITE to ${this.toString()} not sent`);
          resolve();
        });
    });
  }

  deliverDtmf(digit: string, method: "info" | "inband"): void {
    const session = this.session;
    if (method !== "info" || !session || session.state !== SessionState.Established) return;
    session
      .info({
        requestOptions: {
          body: {
            contentDisposition: "render",
            contentType: "application/dtmf-relay",
            content: `Signal=${digit}\r\nDuration=160`,
          },
        },
      })
      .catch((error: unknown) => this.deps.log.debug({ err: error }, "INFO not sent"));
  }

  /** The phone's connection went away for good (the reconnect grace ended). */
  connectionGone(cause: HangupCause): void {
    if (!this.isUp) return;
    this.causeDetail = "websocket closed";
    this.hangup(cause);
  }

  /** Media of a session of this channel: a new leg, watched for hold and DTMF once it is ours. */
  protected legProvider(label: string): () => LegMedia {
    return () => {
      const leg = this.deps.media.createWebRtcLeg(label);
      const hooks: LegMediaHooks = {
        onRemoteOffer: (direction) => {
          if (this.endpoint === leg) this.host.remoteHold(this, isHoldDirection(direction));
        },
        onCodec: (codec) => {
          this.codec ||= codec;
        },
      };
      const link = this.extension ? this.deps.linkFor?.(this.extension) : undefined;
      return { leg, hooks, ...(link ? { link } : {}) };
    };
  }

  /** The leg's media is this session's: DTMF heard in what the phone says is reported. */
  protected adoptLeg(leg: WebRtcLeg | undefined): void {
    if (!leg || this.endpoint === leg) return;
    const detector = this.deps.media.detectDtmf(leg, "said");
    detector.onDigit((digit) => this.host.dtmfFrom(this, digit, "inband"));
    this.setEndpoint(leg);
  }

  /** Takes the established (or establishing) session's in-dialog requests. */
  protected wireDialog(session: Session): void {
    this.session = session;
    session.delegate = {
      onBye: (bye: Bye) => {
        bye.accept().catch(() => undefined);
        this.markHungup("NORMAL_CLEARING", "recv_bye");
      },
      onInfo: (info: Info) => {
        info.accept().catch(() => undefined);
        const digit = dtmfOfInfo(info.request.getHeader("content-type") ?? "", info.request.body);
        if (digit) this.host.dtmfFrom(this, digit, "info");
      },
      onRefer: (referral: Referral) => this.deps.onRefer(this, referral),
    };
    session.stateChange.addListener((state) => {
      // Ended by sip.js itself (a transaction failed, a media error): the leg is over.
      if (state === SessionState.Terminated) {
        this.markHungup(
          this.state === "answered" ? "NORMAL_CLEARING" : "NORMAL_TEMPORARY_FAILURE",
          this.state === "answered" ? "recv_bye" : "",
        );
      }
    });
  }

  /** Ends an established session with a BYE carrying the cause. */
  protected bye(cause: HangupCause): void {
    const session = this.session;
    this.markHungup(cause, "send_bye");
    if (session?.state === SessionState.Established) {
      session.bye({ requestOptions: { extraHeaders: [reasonHeaderOf(cause)] } }).catch(() => undefined);
    }
  }
}

/** A call from a phone into the platform (an A-leg): a sip.js Invitation. */
export class SipInboundChannel extends SipChannel {
  private signalling: Promise<void> = Promise.resolve();
  private earlySent = false;

  constructor(
    host: ChannelHost,
    init: ChannelInit,
    deps: SipChannelDeps,
    readonly invitation: Invitation,
  ) {
    super(host, init, deps);
    this.sipCallId = invitation.request.callId;
    deps.provideLeg(invitation, () => {
      const provided = this.legProvider(`phone ${init.callerIdNumber}`)();
      this.adoptLeg(provided.leg);
      return provided;
    });
    const contact = invitation.request.parseHeader("contact") as { uri?: { user?: string } } | undefined;
    if (contact?.uri?.user) {
      this.contactUser = contact.uri.user;
      deps.watchContact(this, contact.uri.user);
    }
    this.wireDialog(invitation);
    const delegate = invitation.delegate ?? {};
    invitation.delegate = {
      ...delegate,
      onCancel: (_cancel: Cancel) => this.markHungup("ORIGINATOR_CANCEL", "recv_cancel"),
    };
    invitation.stateChange.addListener((state) => {
      if (state === SessionState.Established) this.markAnswered();
    });
  }

  /** Sends 183 with the platform's SDP: the caller hears what the switch plays (ringback). */
  earlyMedia(): Promise<void> {
    return this.serially(async () => {
      if (this.earlySent || this.invitation.state !== SessionState.Initial || !this.isUp) return;
      this.earlySent = true;
      await this.invitation.progress({ statusCode: 183 });
      this.markProgress(true);
    });
  }

  answer(): Promise<void> {
    return this.serially(async () => {
      if (this.invitation.state !== SessionState.Initial || !this.isUp) return;
      await this.invitation.accept();
    });
  }

  hangup(cause: HangupCause = "NORMAL_CLEARING"): void {
    if (!this.isUp) return;
    const state = this.invitation.state;
    if (state === SessionState.Initial || state === SessionState.Establishing) {
      this.markHungup(cause, "send_refuse");
      this.invitation.reject({ statusCode: sipStatusOfCause(cause) }).catch(() => undefined);
      return;
    }
    this.bye(cause);
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const next = this.signalling.then(step);
    this.signalling = next.catch(() => undefined);
    return next;
  }
}

interface Fork {
  binding: Binding;
  inviter: Inviter;
  /** The early dialog the phone's 180 made, for NOTIFYs while it rings. */
  early?: Core.Session;
  leg?: WebRtcLeg;
  status?: number;
  done: boolean;
}

/**
 * A leg the platform rings on a phone (a B-leg, an agent leg): one INVITE per registered contact
 * of the extension; the first to answer wins and the others get CANCEL with
 * `Reason: SIP;cause=200;text="Call completed elsewhere"`.
 */
export class SipOutboundChannel extends SipChannel {
  private readonly forks: Fork[] = [];
  private winner?: Fork;

  constructor(
    host: ChannelHost,
    init: ChannelInit,
    deps: SipChannelDeps,
    contacts: Binding[],
    private readonly options: OriginateOptions,
  ) {
    super(host, init, deps);
    setImmediate(() => this.start(contacts));
  }

  async answer(): Promise<void> {
    // The phone answers an outbound leg, not the platform.
  }

  hangup(cause: HangupCause = "NORMAL_CLEARING"): void {
    if (!this.isUp) return;
    if (this.winner) {
      this.bye(cause);
      return;
    }
    this.markHungup(cause, this.forks.length ? "send_cancel" : "");
    this.cancelForks(undefined, reasonHeaderOf(cause));
  }

  private start(contacts: Binding[]): void {
    if (!this.isUp) return;
    if (contacts.length === 0) {
      this.markHungup("USER_NOT_REGISTERED", "", "no registered contact");
      return;
    }
    for (const binding of contacts) this.fork(binding);
  }

  private fork(binding: Binding): void {
    const target = UserAgent.makeURI(binding.contactUri);
    if (!target) return;
    if (this.options.autoAnswer) target.setParam("intercom", "true");
    const domain = this.domain;
    const extraHeaders = [...(this.options.headers ?? []), ...sipHeaderLines(this.variables)];
    if (this.options.autoAnswer) extraHeaders.push(`Call-Info: <sip:${domain}>;answer-after=0`);
    const inviter = new Inviter(this.deps.ua, target, {
      params: {
        fromUri: `sip:${uriUser(this.callerIdNumber)}@${domain}`,
        fromDisplayName: displayNameForSip(this.callerIdName),
        toUri: `sip:${binding.extension}@${domain}`,
      },
      extraHeaders,
    });
    const fork: Fork = { binding, inviter, done: false };
    this.forks.push(fork);
    this.sipCallId ??= inviter.request.callId;
    const provide = this.legProvider(`phone ${binding.extension}`);
    this.deps.provideLeg(inviter, () => {
      const provided = provide();
      fork.leg = provided.leg;
      return provided;
    });
    inviter.stateChange.addListener((state) => {
      if (state === SessionState.Established) this.won(fork);
      // sip.js ends the session before it hands the final response to the request delegate.
      if (state === SessionState.Terminated && fork !== this.winner)
        setImmediate(() => this.failed(fork, fork.status ?? 487));
    });
    inviter
      .invite({
        requestDelegate: {
          onProgress: (r) => {
            const early = (r as Partial<Core.PrackableIncomingResponseWithSession>).session;
            if (early) fork.early = early;
            if (r.message.statusCode && r.message.statusCode > 100) this.markProgress(false);
          },
          onReject: (r) => {
            fork.status = r.message.statusCode;
          },
          onRedirect: (r) => {
            fork.status = r.message.statusCode;
          },
        },
      })
      .catch((error: unknown) => {
        this.deps.log.info({ err: error }, `INVITE to ${binding.contactUri} not sent`);
        fork.status ??= 503;
        this.failed(fork, fork.status);
      });
  }

  override phoneEvent(event: "talk" | "hold"): boolean {
    const dialogs = this.winner ? [this.winner.inviter.dialog] : this.forks.filter((f) => !f.done).map((f) => f.early);
    let sent = false;
    for (const dialog of dialogs) {
      if (!dialog) continue;
      try {
        // sip.js's dialog.notify() refuses early dialogs; FreeSWITCH sends this one while the
        // phone rings, so the request is made by the core's user agent client directly.
        new NotifyUserAgentClient(
          dialog as unknown as ConstructorParameters<typeof NotifyUserAgentClient>[0],
          undefined,
          {
            extraHeaders: [`Event: ${event}`, "Subscription-State: terminated;reason=noresource"],
          },
        );
        sent = true;
      } catch (error) {
        this.deps.log.debug({ err: error }, "phone event NOTIFY not sent");
      }
    }
    return sent;
  }

  /** A contact's connection went away while it rang: it will never answer. */
  dropContact(contactUser: string): void {
    for (const fork of this.forks) {
      if (fork.binding.contactUser === contactUser && !fork.done && fork !== this.winner) {
        fork.status ??= 480;
        this.failed(fork, fork.status);
      }
    }
  }

  get answeredContact(): string | undefined {
    return this.winner?.binding.contactUser;
  }

  private won(fork: Fork): void {
    if (this.winner || !this.isUp) {
      // A second phone answered in the same instant, or the leg was given up: that phone's call
      // was completed elsewhere.
      if (fork !== this.winner) {
        fork.done = true;
        fork.inviter.bye({ requestOptions: { extraHeaders: [COMPLETED_ELSEWHERE] } }).catch(() => undefined);
      }
      return;
    }
    this.winner = fork;
    fork.done = true;
    this.sipCallId = fork.inviter.request.callId;
    this.contactUser = fork.binding.contactUser;
    this.networkAddr = fork.binding.connection.remoteAddress;
    this.networkPort = String(fork.binding.connection.remotePort);
    this.deps.watchContact(this, fork.binding.contactUser);
    this.cancelForks(fork, COMPLETED_ELSEWHERE);
    this.wireDialog(fork.inviter);
    this.adoptLeg(fork.leg);
    this.markAnswered();
  }

  private failed(fork: Fork, status: number): void {
    if (fork.done) return;
    fork.done = true;
    fork.status ??= status;
    if (this.winner || !this.isUp) return;
    if (this.forks.some((f) => !f.done)) return;
    const statuses = this.forks.map((f) => f.status ?? 480);
    const chosen =
      statuses.find((s) => s === 486 || s === 600) ??
      statuses.find((s) => s === 603 || s === 403) ??
      statuses[0] ??
      480;
    this.markHungup(causeOfSipStatus(chosen), "recv_refuse", `sip:${chosen}`);
  }

  private cancelForks(except: Fork | undefined, reason: string): void {
    for (const fork of this.forks) {
      if (fork === except || fork.done) continue;
      fork.done = true;
      const state = fork.inviter.state;
      if (state === SessionState.Initial || state === SessionState.Establishing) {
        fork.inviter.cancel({ extraHeaders: [reason] }).catch(() => undefined);
      }
    }
  }
}

/** The digit of a DTMF INFO body (application/dtmf-relay "Signal=5", or application/dtmf "5"). */
export function dtmfOfInfo(contentType: string, body: string): string | undefined {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  let digit: string | undefined;
  if (type === "application/dtmf-relay") digit = /^\s*Signal\s*=\s*(\S)/im.exec(body)?.[1];
  else if (type === "application/dtmf") digit = body.trim().charAt(0);
  if (!digit) return undefined;
  digit = digit.toUpperCase();
  return /^[0-9A-D*#]$/.test(digit) ? digit : undefined;
}

/** A caller number as the user part of a SIP URI (anything odd reads as "anonymous"). */
function uriUser(number: string): string {
  return /^[A-Za-z0-9+*#._-]+$/.test(number) ? number.replace(/#/g, "%23") : "anonymous";
}
