import {
  Registerer,
  RegistererState,
  SIPExtension,
  TransportState,
  UserAgent,
  UserAgentState,
  type Invitation,
  type LogConnector,
  type SessionDescriptionHandlerFactory,
  type UserAgentOptions,
} from "sip.js";
import { displayNameForSip } from "./display-name";
import { OptionsKeepAlive } from "./keep-alive";
import { refuseMalformedRequests } from "./malformed-request";
import { countNonceUsesOnRegister } from "./register-digest";
import { errorForResponse, isTransient, type PhoneErrorInfo } from "./phone-error";
import { reconnectDelay } from "./reconnect-backoff";
import type { RegistrationState, TransportStatus } from "./registration-state";
import type { ResolvedSettings } from "./settings";

export interface SipConnectionEnvironment {
  transportConstructor?: UserAgentOptions["transportConstructor"];
  /** RFC 5626 instance id (a UUID), the same for every registration from this browser. */
  instanceId: string;
  sessionDescriptionHandlerFactory: SessionDescriptionHandlerFactory;
  now: () => number;
  random: () => number;
  logConnector?: LogConnector;
}

/** How long stopping waits for the registrar to confirm the un-REGISTER (a dead one never does). */
const UNREGISTER_WAIT_MS = 5000;

export interface SipConnectionEvents {
  onRegistration(state: RegistrationState): void;
  onTransport(status: TransportStatus): void;
  onInvite(invitation: Invitation): void;
  /** The connection dropped (not by us): calls not answered yet are over, the server fails them. */
  onConnectionLost(): void;
  /** Registered again after the connection was lost: calls that survived need new media paths. */
  onRecovered(): void;
  onCredentialsRejected(error: PhoneErrorInfo): void;
  /** A request was refused as malformed (answered 400 unless it was an ACK) and not acted upon. */
  onMalformedRequest(reason: string): void;
}

/**
 * The user agent, its registration and the connection to the SIP server, kept alive. sip.js
 * leaves reconnection to the application and keeps a registerer "Registered" after its socket is
 * gone, so this owns that: reconnect with capped, jittered backoff; a new Registerer for every
 * connection (a disposed registerer cannot race a new REGISTER against an old one); keep-alives
 * to find dead sockets; and signals when calls not answered yet are lost with the connection and
 * when answered ones need their media renegotiated.
 */
export class SipConnection {
  readonly ua: UserAgent;
  private registerer: Registerer | undefined;
  private detachRegisterer: (() => void) | undefined;
  private readonly keepAlive: OptionsKeepAlive | undefined;
  private running = false;
  /** Consecutive failed attempts since the last success. */
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The connection was lost since the last registration: live calls need an ICE restart. */
  private recovering = false;
  private keepAliveFailed = false;
  private intentionalDisconnect = false;
  /** Unregistered while the page is frozen (`sleep`); registers again at `wake`. */
  private asleep = false;
  /** The un-REGISTER of `sleep`, until the registrar has answered it. */
  private unregistering: Promise<void> | undefined;
  private state: RegistrationState = { status: "stopped" };

  constructor(
    private readonly settings: ResolvedSettings,
    private readonly env: SipConnectionEnvironment,
    private readonly events: SipConnectionEvents,
  ) {
    const ka = settings.keepAlive;
    this.ua = new UserAgent({
      uri: settings.aor,
      instanceId: env.instanceId,
      authorizationUsername: settings.authorizationUsername,
      authorizationPassword: settings.password,
      // sip.js writes the name between quotes as given: a quote in it would break every From.
      ...(settings.displayName ? { displayName: displayNameForSip(settings.displayName) } : {}),
      transportOptions: {
        server: settings.server,
        traceSip: false,
        connectionTimeout: 5,
        keepAliveInterval: ka.mode === "crlf" ? ka.intervalSec : 0,
      },
      ...(env.transportConstructor ? { transportConstructor: env.transportConstructor } : {}),
      sessionDescriptionHandlerFactory: env.sessionDescriptionHandlerFactory,
      sessionDescriptionHandlerFactoryOptions: {
        iceGatheringTimeout: settings.iceGatheringTimeoutMs,
        peerConnectionConfiguration: {
          iceServers: settings.iceServers,
          iceTransportPolicy: settings.iceTransportPolicy,
        },
      },
      // An attended transfer made elsewhere may hand a call over to us with INVITE/Replaces.
      sipExtensionReplaces: SIPExtension.Supported,
      noAnswerTimeout: settings.noAnswerTimeoutSec,
      // We end calls and unregister ourselves; sip.js's graceful stop waits ~32 s on a dead server.
      gracefulShutdown: false,
      userAgentString: settings.userAgentString,
      logLevel: "warn",
      logConfiguration: false,
      logBuiltinEnabled: !env.logConnector,
      ...(env.logConnector ? { logConnector: env.logConnector } : {}),
      delegate: {
        onConnect: () => this.onConnect(),
        onDisconnect: (error) => this.onDisconnect(error),
        onInvite: (invitation) => this.events.onInvite(invitation),
      },
    });
    refuseMalformedRequests(this.ua.transport, (reason) => this.events.onMalformedRequest(reason));
    countNonceUsesOnRegister(this.ua, () => this.ua.configuration.authorizationPassword);
    this.ua.transport.stateChange.addListener((s) => this.events.onTransport(transportStatus(s)));
    if (ka.mode === "options") {
      this.keepAlive = new OptionsKeepAlive(this.ua, ka.intervalSec, ka.timeoutSec, () => {
        this.keepAliveFailed = true;
        void this.ua.transport.disconnect().catch(() => {});
      });
    }
  }

  get registration(): RegistrationState {
    return this.state;
  }

  get connected(): boolean {
    return this.ua.isConnected();
  }

  /**
   * How many sessions sip.js's user agent still holds, for leak checks (`Phone.diagnostics`). It
   * keeps each one in a private map until the session has terminated and has no public count or
   * list, so this is the one place the phone reads a private field of sip.js (0.21's `_sessions`);
   * a sip.js without it reads as 0. Nothing but diagnostics depends on it.
   */
  sessionCount(): number {
    const sessions = (this.ua as unknown as { _sessions?: Record<string, unknown> })._sessions;
    return sessions && typeof sessions === "object" ? Object.keys(sessions).length : 0;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  /**
   * Unregisters and closes the connection. The socket stays open until the registrar has answered
   * the un-REGISTER (a challenge included), or for a few seconds at most: a registrar that keeps
   * bindings after the socket closes would otherwise keep routing calls to us until it expires.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.asleep = false;
    clearTimeout(this.retryTimer);
    this.keepAlive?.stop();
    const registerer = this.registerer;
    this.dropRegisterer(false);
    if (registerer && registerer.state === RegistererState.Registered && this.ua.isConnected()) {
      // Best effort: without an answer the server forgets us when the registration expires.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, UNREGISTER_WAIT_MS);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        registerer.unregister({ requestDelegate: { onAccept: done, onReject: done } }).catch(done);
      });
    }
    this.intentionalDisconnect = true;
    await this.ua.stop().catch(() => {});
    this.setState({ status: "stopped" });
  }

  /** Page unload: send what can be sent synchronously, wait for nothing. */
  unload(): void {
    this.running = false;
    this.asleep = false;
    clearTimeout(this.retryTimer);
    this.keepAlive?.stop();
    const registerer = this.registerer;
    this.dropRegisterer(false);
    if (registerer?.state === RegistererState.Registered && this.ua.isConnected())
      registerer.unregister().catch(() => {});
    this.intentionalDisconnect = true;
    void this.ua.stop().catch(() => {});
    this.setState({ status: "stopped" });
  }

  /**
   * The page is being frozen: unregister with what can be sent synchronously (the un-REGISTER
   * leaves before the page stops) and stop every timer. The socket stays open.
   */
  sleep(): void {
    const registerer = this.registerer;
    if (!this.running || this.asleep || registerer?.state !== RegistererState.Registered || !this.ua.isConnected())
      return;
    this.asleep = true;
    clearTimeout(this.retryTimer);
    this.keepAlive?.stop();
    this.dropRegisterer(false);
    this.unregistering = registerer.dispose().catch(() => {});
    this.setState({ status: "stopped" });
  }

  /** The page is awake again (or back online, or visible): registers again after `sleep`, else checks the socket. */
  wake(): void {
    if (!this.asleep) return this.checkNow();
    this.asleep = false;
    if (!this.running) return;
    if (this.ua.isConnected()) {
      this.keepAlive?.start();
      // A socket that died while the page slept looks open: ask at once instead of at the next keep-alive.
      this.keepAlive?.pingNow();
    }
    // The un-REGISTER's answer is read only now, and a digest challenge answered only now: register
    // again once it is done, or it would remove the new binding (the same contact).
    const unregistered = this.unregistering;
    this.unregistering = undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void Promise.race([
      unregistered,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, UNREGISTER_WAIT_MS))),
    ]).then(() => {
      clearTimeout(timer);
      if (this.running && !this.asleep && this.state.status === "stopped") this.retry();
    });
  }

  /** Tries again now instead of at `nextAttemptAt` (or after a final failure). */
  retryNow(): void {
    if (!this.running) return;
    if (this.state.status !== "reconnecting" && this.state.status !== "failed") return;
    clearTimeout(this.retryTimer);
    this.retry();
  }

  /** New credentials (e.g. a renewed extension token); used by the next REGISTER or challenge. */
  setPassword(password: string): void {
    this.ua.configuration.authorizationPassword = password;
    if (this.state.status === "failed" && this.state.error.kind === "auth") {
      this.failures = 0;
      this.retryNow();
    }
  }

  /** The network may have changed: check the socket now (or retry at once if waiting). */
  checkNow(): void {
    if (this.state.status === "reconnecting") this.retryNow();
    else this.keepAlive?.pingNow();
  }

  private connect(): void {
    clearTimeout(this.retryTimer);
    this.setState({ status: "connecting", attempt: this.failures + 1 });
    const connecting = this.ua.state === UserAgentState.Started ? this.ua.reconnect() : this.ua.start();
    connecting.catch((e: unknown) => {
      if (!this.running) return;
      this.fail({ kind: "transport", detail: e instanceof Error ? e.message : String(e) });
    });
  }

  private retry(): void {
    if (!this.running) return;
    if (this.ua.isConnected()) this.register();
    else this.connect();
  }

  private onConnect(): void {
    if (!this.running) return;
    this.keepAliveFailed = false;
    this.keepAlive?.start();
    this.register();
  }

  private onDisconnect(error?: Error): void {
    this.keepAlive?.stop();
    this.dropRegisterer(true);
    if (this.intentionalDisconnect || !this.running) {
      this.intentionalDisconnect = false;
      return;
    }
    this.recovering = true;
    const detail = this.keepAliveFailed
      ? "no answer to keep-alive"
      : (error?.message ?? "connection closed by the server");
    this.keepAliveFailed = false;
    this.fail({ kind: "transport", detail });
    this.events.onConnectionLost();
  }

  private register(): void {
    this.dropRegisterer(true);
    const registerer = new Registerer(this.ua, {
      expires: this.settings.registerExpiresSec,
      // Refresh with a margin: background tabs get their timers delayed by up to a minute.
      refreshFrequency: 80,
      // sip.js says "Supported: outbound" on every request; RFC 5626 wants the REGISTER to carry
      // the instance and a flow id then. Our keep-alives (CRLF or OPTIONS) keep that one flow up.
      regId: 1,
      extraHeaders: this.settings.registerHeaders,
      logConfiguration: false,
    });
    let lastReject: { status: number; reasonPhrase: string; fromServer: boolean; retryAfterSec?: number } | undefined;
    const onState = (s: RegistererState) => {
      if (s === RegistererState.Registered) {
        this.failures = 0;
        this.setState({ status: "registered", registeredAt: this.env.now() });
        if (this.recovering) {
          this.recovering = false;
          this.events.onRecovered();
        }
      } else if (s === RegistererState.Unregistered) {
        // sip.js turns Unregistered just before it hands the failure response to onReject, in
        // the same call stack: look at the outcome once that has run.
        queueMicrotask(() => {
          if (this.registerer !== registerer) return;
          const r = lastReject;
          lastReject = undefined;
          this.fail(
            r
              ? errorForResponse(r.status, r.reasonPhrase, r.fromServer, r.retryAfterSec)
              : // No failure response: the registration ran out, or the registrar's 200 did not list our contact.
                { kind: "timeout", detail: "registration lost" },
          );
        });
      }
    };
    registerer.stateChange.addListener(onState);
    this.registerer = registerer;
    this.detachRegisterer = () => registerer.stateChange.removeListener(onState);
    this.setState({ status: "registering", attempt: this.failures + 1 });
    registerer
      .register({
        requestDelegate: {
          onReject: (r) => {
            const retryAfter = Number.parseInt(r.message.getHeader("retry-after") ?? "", 10);
            lastReject = {
              status: r.message.statusCode ?? 0,
              reasonPhrase: r.message.reasonPhrase ?? "",
              fromServer: r.message.hasHeader("via"),
              ...(Number.isFinite(retryAfter) ? { retryAfterSec: retryAfter } : {}),
            };
          },
        },
      })
      .catch((e: unknown) => this.fail({ kind: "transport", detail: e instanceof Error ? e.message : String(e) }));
  }

  /**
   * Forgets the current registerer. `dispose` unregisters it if it is still registered; that is
   * right when we replace it on a live connection and harmless on a dead one (nothing can be sent).
   */
  private dropRegisterer(dispose: boolean): void {
    const r = this.registerer;
    this.detachRegisterer?.();
    this.detachRegisterer = undefined;
    this.registerer = undefined;
    if (r && dispose) r.dispose().catch(() => {});
  }

  private fail(error: PhoneErrorInfo): void {
    if (!this.running) return;
    clearTimeout(this.retryTimer);
    if (!isTransient(error)) {
      this.setState({ status: "failed", error });
      if (error.kind === "auth") this.events.onCredentialsRejected(error);
      return;
    }
    this.failures++;
    const backoff = reconnectDelay(this.failures, this.settings.reconnect, this.env.random);
    const delay = Math.max(backoff, (error.retryAfterSec ?? 0) * 1000);
    this.setState({ status: "reconnecting", attempt: this.failures + 1, nextAttemptAt: this.env.now() + delay, error });
    this.retryTimer = setTimeout(() => this.retry(), delay);
  }

  private setState(state: RegistrationState): void {
    this.state = state;
    this.events.onRegistration(state);
  }
}

function transportStatus(s: TransportState): TransportStatus {
  return s === TransportState.Connected ? "connected" : s === TransportState.Connecting ? "connecting" : "disconnected";
}
