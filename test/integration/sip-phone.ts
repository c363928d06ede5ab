import "../../platform/sip/node-webrtc";
import type { RegistererState } from "sip.js";
import { Invitation, Inviter, Registerer, SessionState, UserAgent, type Session, type Web } from "sip.js";
import {
  MediaPlane,
  sineTone,
  type DtmfDetector,
  type Room,
  type SimulatedParty,
  type ToneDetector,
  type WebRtcLeg,
} from "../../platform/media";
import type { MediaDirection } from "../../platform/sip/media-direction";
import { legHandlerFactory, type LegMediaHooks } from "../../platform/sip/sdh";

/**
 * A SIP phone for integration tests: sip.js in Node over a real WebSocket, media through
 * @roamhq/wrtc. Its microphone says a steady tone (the frequency names the phone, so a test can
 * prove who hears whom) and its ear is a tone detector and a DTMF detector on what it receives.
 * It can call, answer, reject, hold, send DTMF both ways (SIP INFO, in-band tones), transfer
 * (REFER, blind and attended) and records what it saw on the wire (status codes, Reason headers,
 * NOTIFY bodies, headers of incoming INVITEs).
 */

let plane: MediaPlane | undefined;

/** The media plane of all test phones of this process (their own clock, apart from the platform's). */
function phonePlane(): MediaPlane {
  plane ??= new MediaPlane();
  return plane;
}

/** Closes the phones' media plane; call in afterAll after the phones have stopped. */
export async function closePhoneMedia(): Promise<void> {
  await plane?.close();
  plane = undefined;
}

export interface PhoneOptions {
  /** Base URL of the platform, e.g. http://127.0.0.1:1234 */
  url: string;
  extension: string;
  password: string;
  domain: string;
  /** What the phone says, Hz. */
  tone: number;
  /** WebSocket path: /ws (with the sip subprotocol) or /sip. */
  path?: "/ws" | "/sip";
  registerExpires?: number;
  /** Register at start (default true). */
  register?: boolean;
}

export async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

export class TestPhone {
  readonly ua: UserAgent;
  readonly calls: TestCall[] = [];
  readonly registrations: { state: RegistererState; status?: number }[] = [];
  registerer?: Registerer;
  /** How the phone treats incoming calls: keep them ringing (default), answer, or reject. */
  incomingPolicy: "ring" | "answer" | { reject: number } = "ring";
  lastRegisterStatus?: number;
  /** Every SIP message the phone received, as text. */
  readonly wire: string[] = [];
  private readonly pendingLegs = new WeakMap<Session, TestCall>();

  constructor(readonly options: PhoneOptions) {
    const uri = UserAgent.makeURI(`sip:${options.extension}@${options.domain}`);
    if (!uri) throw new Error("bad phone URI");
    const server = options.url.replace(/^http/, "ws") + (options.path ?? "/ws");
    this.ua = new UserAgent({
      uri,
      authorizationUsername: options.extension,
      authorizationPassword: options.password,
      transportOptions: { server, traceSip: false },
      logBuiltinEnabled: false,
      logLevel: "error",
      gracefulShutdown: false,
      sessionDescriptionHandlerFactory: legHandlerFactory((session) => this.legFor(session)),
      delegate: {
        onInvite: (invitation) => this.onInvite(invitation),
      },
    });
    const transport = this.ua.transport;
    const deliver = transport.onMessage;
    transport.onMessage = (message) => {
      this.wire.push(message);
      deliver?.(message);
    };
  }

  static async start(options: PhoneOptions): Promise<TestPhone> {
    const phone = new TestPhone(options);
    await phone.ua.start();
    if (options.register !== false) await phone.register();
    return phone;
  }

  get contactUser(): string {
    return this.ua.contact.uri.user ?? "";
  }

  /** Registers and waits for the outcome; resolves with the final status code. */
  async register(expires = this.options.registerExpires ?? 600): Promise<number> {
    this.registerer?.dispose().catch(() => undefined);
    const registerer = new Registerer(this.ua, { expires });
    this.registerer = registerer;
    registerer.stateChange.addListener((state) =>
      this.registrations.push({ state, ...(this.lastRegisterStatus ? { status: this.lastRegisterStatus } : {}) }),
    );
    const status = await new Promise<number>((resolve) => {
      registerer
        .register({
          requestDelegate: {
            onAccept: (r) => resolve(r.message.statusCode ?? 200),
            onReject: (r) => resolve(r.message.statusCode ?? 0),
          },
        })
        .catch(() => resolve(0));
    });
    this.lastRegisterStatus = status;
    return status;
  }

  async unregister(all = false): Promise<number> {
    const registerer = this.registerer;
    if (!registerer) return 0;
    return new Promise<number>((resolve) => {
      registerer
        .unregister({
          all,
          requestDelegate: {
            onAccept: (r) => resolve(r.message.statusCode ?? 200),
            onReject: (r) => resolve(r.message.statusCode ?? 0),
          },
        })
        .catch(() => resolve(0));
    });
  }

  /** Calls a number; the call's `ended`/`answered` promises tell the outcome. */
  call(number: string, extraHeaders: string[] = []): TestCall {
    const target = UserAgent.makeURI(`sip:${number}@${this.options.domain}`);
    if (!target) throw new Error(`bad target ${number}`);
    const inviter = new Inviter(this.ua, target, { extraHeaders, earlyMedia: true });
    const call = new TestCall(this, inviter, "outgoing");
    this.pendingLegs.set(inviter, call);
    this.calls.push(call);
    inviter
      .invite({
        requestDelegate: {
          onProgress: (r) => call.provisional.push(r.message.statusCode ?? 0),
          onReject: (r) => {
            call.finalStatus = r.message.statusCode;
            call.finalReason = r.message.reasonPhrase;
          },
          onAccept: (r) => {
            call.finalStatus = r.message.statusCode;
          },
        },
      })
      .catch((error: unknown) => call.errors.push(String(error)));
    return call;
  }

  /** The next incoming call not yet taken by a test (waits for it). */
  async incoming(): Promise<TestCall> {
    let found: TestCall | undefined;
    await until(`${this.options.extension} gets a call`, () => {
      found = this.calls.find((c) => c.direction === "incoming" && !c.taken);
      return found !== undefined;
    });
    found!.taken = true;
    return found!;
  }

  /** Drops the WebSocket as a network failure would (the platform sees it close). */
  dropConnection(): void {
    const transport = this.ua.transport as unknown as { _ws?: { terminate?: () => void; close: () => void } };
    const ws = transport._ws;
    if (ws?.terminate) ws.terminate();
    else ws?.close();
  }

  /** Reconnects after a drop and registers again (same Contact, as sip.js phones do). */
  async reconnect(): Promise<number> {
    await until("the phone's transport is down", () => !this.ua.isConnected());
    await this.ua.reconnect();
    return this.register();
  }

  async stop(): Promise<void> {
    for (const call of this.calls) call.close();
    await this.registerer?.dispose().catch(() => undefined);
    await this.ua.stop().catch(() => undefined);
  }

  private onInvite(invitation: Invitation): void {
    const call = new TestCall(this, invitation, "incoming");
    this.pendingLegs.set(invitation, call);
    this.calls.push(call);
    const policy = this.incomingPolicy;
    if (policy === "answer") void call.answer();
    else if (typeof policy === "object") void call.reject(policy.reject);
  }

  private legFor(session: Session): { leg: WebRtcLeg; hooks: LegMediaHooks } | undefined {
    const call = this.pendingLegs.get(session);
    if (!call) return undefined;
    return { leg: call.createMedia(), hooks: { onRemoteOffer: (direction) => call.remoteOffers.push(direction) } };
  }
}

/** One call of a test phone. */
export class TestCall {
  taken = false;
  finalStatus?: number;
  finalReason?: string;
  readonly provisional: number[] = [];
  readonly errors: string[] = [];
  /** Reason header of the BYE or CANCEL that ended the call, if the far end ended it. */
  endReason?: string;
  endedBy?: "bye" | "cancel" | "local" | "other";
  readonly notifies: string[] = [];
  readonly infos: string[] = [];
  /** Directions of the platform's offers (its hold is a=sendonly). */
  readonly remoteOffers: MediaDirection[] = [];
  ears?: ToneDetector;
  dtmfEars?: DtmfDetector;
  private leg?: WebRtcLeg;
  private voice?: SimulatedParty;
  private room?: Room;

  constructor(
    readonly phone: TestPhone,
    readonly session: Inviter | Invitation,
    readonly direction: "incoming" | "outgoing",
  ) {
    session.delegate = {
      onBye: (bye) => {
        this.endedBy = "bye";
        this.endReason = bye.request.getHeader("reason");
        void bye.accept();
      },
      onInfo: (info) => {
        this.infos.push(info.request.body);
        void info.accept();
      },
      onNotify: (notification) => {
        this.notifies.push(notification.request.body);
        void notification.accept();
      },
      ...(session instanceof Invitation
        ? {
            onCancel: (cancel: { request: { getHeader(name: string): string | undefined } }) => {
              this.endedBy = "cancel";
              this.endReason = cancel.request.getHeader("reason");
            },
          }
        : {}),
    } as Session["delegate"];
    session.stateChange.addListener((state) => {
      if (state === SessionState.Terminated) {
        this.endedBy ??= "other";
        this.close();
      }
    });
  }

  get state(): SessionState {
    return this.session.state;
  }

  /** The SIP Call-ID of the call as this phone sees it. */
  get callId(): string {
    return this.session instanceof Invitation ? this.session.request.callId : this.session.request.callId;
  }

  /** A header of the INVITE this call came in with (incoming calls). */
  header(name: string): string | undefined {
    return this.session instanceof Invitation ? this.session.request.getHeader(name) : undefined;
  }

  /** The names of the INVITE's headers, lower case. */
  headerNames(): string[] {
    return this.session instanceof Invitation
      ? Object.keys(this.session.request.headers).map((h) => h.toLowerCase())
      : [];
  }

  get requestUri(): string {
    return this.session instanceof Invitation ? (this.session.request.ruri?.toString() ?? "") : "";
  }

  /** The tone the phone's microphone says. */
  get tone(): number {
    return this.phone.options.tone;
  }

  createMedia(): WebRtcLeg {
    const media = phonePlane();
    this.leg = media.createWebRtcLeg(`phone ${this.phone.options.extension}`);
    this.voice = media.createParty(`voice ${this.phone.options.extension}`, sineTone(this.phone.options.tone));
    this.ears = media.detectTones(this.voice, "heard");
    this.dtmfEars = media.detectDtmf(this.voice, "heard");
    this.room = media.bridge(this.leg, this.voice);
    return this.leg;
  }

  /** Whether the phone hears `frequency` in most of the last half second. */
  hears(frequency: number): boolean {
    return (this.ears?.presence(frequency, 500) ?? 0) >= 0.6;
  }

  /** Whether `frequency` was absent from everything heard in the last `ms`. */
  silentOn(frequency: number, ms = 600): boolean {
    return this.ears !== undefined && this.ears.recent(ms).length > 0 && this.ears.presence(frequency, ms) === 0;
  }

  async waitHears(frequency: number, what = `${this.phone.options.extension} hears ${frequency} Hz`): Promise<void> {
    await until(what, () => this.hears(frequency));
  }

  async waitSilentOn(
    frequency: number,
    what = `${this.phone.options.extension} no longer hears ${frequency} Hz`,
  ): Promise<void> {
    await until(what, () => this.silentOn(frequency));
  }

  async waitState(state: SessionState): Promise<void> {
    await until(`${this.phone.options.extension}'s call is ${state}`, () => this.session.state === state);
  }

  async waitEnded(): Promise<void> {
    await this.waitState(SessionState.Terminated);
  }

  async answer(): Promise<void> {
    if (!(this.session instanceof Invitation)) throw new Error("only incoming calls are answered");
    await this.session.accept();
  }

  async reject(statusCode: number): Promise<void> {
    if (!(this.session instanceof Invitation)) throw new Error("only incoming calls are rejected");
    await this.session.reject({ statusCode });
  }

  async hangup(): Promise<void> {
    this.endedBy ??= "local";
    const s = this.session;
    if (s.state === SessionState.Established) await s.bye();
    else if (s instanceof Inviter && (s.state === SessionState.Initial || s.state === SessionState.Establishing))
      await s.cancel();
    else if (s instanceof Invitation && (s.state === SessionState.Initial || s.state === SessionState.Establishing))
      await s.reject();
  }

  /** Puts the call on hold from the phone (re-INVITE a=sendonly) or takes it off. */
  async hold(held = true): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.session
        .invite({
          sessionDescriptionHandlerOptions: { hold: held } as Web.SessionDescriptionHandlerOptions,
          requestDelegate: {
            onAccept: () => resolve(),
            onReject: (r) => reject(new Error(`re-INVITE answered ${r.message.statusCode}`)),
          },
        })
        .catch(reject);
    });
  }

  /** DTMF as SIP INFO (application/dtmf-relay), one request per digit. */
  async sendInfo(digits: string): Promise<void> {
    for (const digit of digits) {
      await new Promise<void>((resolve, reject) => {
        this.session
          .info({
            requestDelegate: {
              onAccept: () => resolve(),
              onReject: (r) => reject(new Error(`INFO answered ${r.message.statusCode}`)),
            },
            requestOptions: {
              body: {
                contentDisposition: "render",
                contentType: "application/dtmf-relay",
                content: `Signal=${digit}\r\nDuration=160`,
              },
            },
          })
          .catch(reject);
      });
    }
  }

  /**
   * DTMF in the audio. @roamhq/wrtc cannot send RFC 4733 events (it has no RTCDTMFSender), so a
   * Node phone plays the tones; the platform's WebRTC stack turns a browser's RFC 4733 events
   * into the same tones, which is where the platform detects them.
   */
  async sendInband(digits: string): Promise<void> {
    const voice = this.voice;
    if (!voice) throw new Error("the call has no media");
    const generator = voice.sayDigits(digits);
    await until("the digits have been played", () => generator.finished || voice.closed);
    if (!voice.closed) voice.say(sineTone(this.phone.options.tone));
  }

  /** Blind transfer: REFER to a number. */
  async referTo(number: string): Promise<number> {
    const target = UserAgent.makeURI(`sip:${number}@${this.phone.options.domain}`)!;
    return this.refer(target);
  }

  /** Attended transfer: REFER with Replaces naming another established call of this phone. */
  async referToCall(other: TestCall): Promise<number> {
    return this.refer(other.session);
  }

  close(): void {
    this.room?.close();
    this.voice?.close();
    this.room = undefined;
    this.voice = undefined;
  }

  private refer(target: Parameters<Session["refer"]>[0]): Promise<number> {
    return new Promise<number>((resolve) => {
      this.session
        .refer(target, {
          requestDelegate: {
            onAccept: (r) => resolve(r.message.statusCode ?? 0),
            onReject: (r) => resolve(r.message.statusCode ?? 0),
          },
          onNotify: (notification) => {
            this.notifies.push(notification.request.body);
            void notification.accept();
          },
        })
        .catch(() => resolve(0));
    });
  }
}
