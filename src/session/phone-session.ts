import { createStore, type StoreApi } from "zustand/vanilla";
import { PlatformError, getExtensionToken, type PlatformClient } from "../api";
import {
  isLive,
  type CallId,
  type CallOptions,
  type IncomingCallHandler,
  type Phone,
  type PhoneSettings,
} from "../softphone";
import { toRtcIceServers } from "./ice-servers";
import { createPhoneOwner, type PhoneOwner, type TabCoordination } from "./phone-owner";
import type { SessionState, SessionStore } from "./session";
import { effectiveSipWebSocketUrl, type Settings, type SettingsStore } from "./settings";
import type { KeyValueStorage } from "./storage";

/**
 * - `off`: nobody signed in (or signing out);
 * - `starting`: fetching the extension token;
 * - `on`: the phone is started; its own store tells how registration goes;
 * - `unavailable`: signed in but the phone cannot start; `problem` says why;
 * - `elsewhere`: another tab of this browser has the agent's phone (phone-owner.ts).
 */
export type PhoneSessionStatus = "off" | "starting" | "on" | "unavailable" | "elsewhere";

/**
 * Why the phone is not running for a signed-in user:
 * - `no-extension`: the user has no extension to register;
 * - `token`: the platform did not give the extension token (network, refused permission...);
 * - `settings`: the SIP WebSocket URL or the address cannot be used.
 */
export type PhoneSessionProblem =
  | { kind: "no-extension" }
  | { kind: "token"; error: { kind: PlatformError["kind"] | "other"; status: number; message: string } }
  | { kind: "settings"; detail: string };

export interface PhoneSessionState {
  status: PhoneSessionStatus;
  problem: PhoneSessionProblem | null;
  /** `extension@domain` the phone registers as ("" when off). */
  address: string;
  /** The SIP WebSocket URL in use. */
  server: string;
  /** The last number dialled in this browser, for Redial. */
  lastDialled: string;
  /** While calls are up a change of server or ICE servers waits; it applies when the last call ends. */
  restartPending: boolean;

  /**
   * Dials and remembers the number for Redial. Resolves with the phone's call id, or undefined
   * when the call-center layer's dialer placed it (the platform then calls the phone).
   */
  dial(input: string, options?: CallOptions): Promise<CallId | undefined>;
  /** Tries again now: the token request after a failure, or the phone's next connection attempt. */
  retry(): void;
}

export type PhoneSessionStore = StoreApi<PhoneSessionState>;

/** Places a call some other way than the phone's own INVITE; false: not for this dialer. */
export type Dialer = (input: string) => Promise<boolean>;

export interface PhoneSessionDeps {
  session: SessionStore;
  settings: SettingsStore;
  phone: Phone;
  /** Remembers the last number dialled (localStorage). */
  deviceStorage: KeyValueStorage;
  /** Resolves "" and relative platform addresses for the default SIP URL. */
  pageHref: () => string;
  /** Longest wait for ICE candidates: host candidates come at once; a TURN relay on a LAN in a few hundred ms. */
  iceGatheringTimeoutMs?: number;
  now?: () => number;
  /** Web Locks and BroadcastChannel, for one phone per agent across the tabs; without them every tab has its own. */
  tabs?: TabCoordination;
}

export interface PhoneSession {
  store: PhoneSessionStore;
  phone: Phone;
  /** Which tab of this browser has the agent's phone. */
  owner: PhoneOwner;
  /**
   * The call-center layer's hook (src/cc/agent-session.ts installs `decideIncomingCall`). It runs
   * for every incoming INVITE before the call shows up, and may label the call (queue, customer),
   * answer it by itself or turn it away; see `IncomingCallHandler` in src/softphone. One hook at a
   * time; `undefined` removes it. Kept here so that the call-center layer never reaches into the
   * phone's start-up.
   */
  setCallCenterHook(handler: IncomingCallHandler | undefined): void;
  /**
   * The call-center layer's way of placing calls (click-to-dial through the platform). It returns
   * false to leave a call to the phone (a SIP address, or the agent is not signed in). One at a
   * time; `undefined` removes it.
   */
  setDialer(dialer: Dialer | undefined): void;
  /** Stops following the stores (tests). */
  dispose(): void;
}

export const REDIAL_KEY = "agentbar.redial";

/** When the token's lifetime is unknown (not a JWT): renew this often; a refusal renews at once anyway. */
export const TOKEN_RENEWAL_FALLBACK_MS = 30 * 60_000;
/** A REGISTER refused right after a renewal is not fixed by another renewal this soon. */
const RENEWAL_QUIET_MS = 10_000;
const TOKEN_RETRY_MS = [2_000, 5_000, 15_000, 30_000, 60_000];
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The phone of the signed-in user: after sign-in, the extension token (the SIP password) is
 * fetched and the phone registers with it; the token is renewed before it expires and whenever
 * the SIP server refuses it; sign-out and the end of the session stop the phone (unregister).
 * Page unload is the phone's own business (it unregisters on `pagehide`).
 */
export function createPhoneSession(deps: PhoneSessionDeps): PhoneSession {
  const { phone, session, settings } = deps;
  const now = deps.now ?? Date.now;
  /** Bumped on every start and stop: an answer for an older run is dropped. */
  let run = 0;
  let client: PlatformClient | null = null;
  let user: SessionState["user"] = null;
  let renewTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let tokenFailures = 0;
  let lastRenewalAt = 0;
  let started: { server: string; iceServers: Settings["iceServers"] } | null = null;
  let dialer: Dialer | undefined;

  const clearTimers = () => {
    clearTimeout(renewTimer);
    clearTimeout(retryTimer);
    renewTimer = retryTimer = undefined;
  };

  // The parts in the order they need each other: the phone session's store, then the tabs' election
  // (handing the phone to another tab stops it here and says so in the store).
  const store = createStore<PhoneSessionState>()((set, get) => ({
    status: "off",
    problem: null,
    address: "",
    server: "",
    lastDialled: deps.deviceStorage.getItem(REDIAL_KEY) ?? "",
    restartPending: false,

    async dial(input, options) {
      const id = dialer && !options && (await dialer(input)) ? undefined : await phone.call(input, options);
      const number = input.trim();
      deps.deviceStorage.setItem(REDIAL_KEY, number);
      set({ lastDialled: number });
      return id;
    },

    retry() {
      const { status, problem } = get();
      if (status === "unavailable" && problem?.kind === "token") {
        clearTimeout(retryTimer);
        void start(run);
      } else if (status === "on") phone.retryNow();
    },
  }));

  const owner = createPhoneOwner({
    locks: deps.tabs?.locks,
    openChannel: deps.tabs?.openChannel,
    ...(deps.tabs?.livenessMs ? { livenessMs: deps.tabs.livenessMs } : {}),
    ...(deps.tabs?.document ? { document: deps.tabs.document } : {}),
    canRelease: () => !phone.callsStore.getState().calls.some(isLive),
    release: async () => {
      if (store.getState().status === "off") return;
      run++;
      clearTimers();
      started = null;
      store.setState({ status: "elsewhere", problem: null, restartPending: false });
      await phone.stop().catch((e: unknown) => console.warn("agentbar: stopping the phone failed", e));
    },
  });
  /** The phone runs in this tab: it has the phone, or tabs are not coordinated. */
  const mine = () => owner.store.getState().role === "owner" || owner.store.getState().role === "alone";

  const fetchToken = async (): Promise<{ token: string; domain: string }> => {
    if (!client || !user) throw new Error("not signed in");
    const t = await getExtensionToken(client, user.extension, user.domain, true);
    return { token: t.token, domain: t.domain || user.domain };
  };

  const scheduleRenewal = (token: string, myRun: number) => {
    clearTimeout(renewTimer);
    const exp = jwtExpiry(token);
    // 80 % into the token's life (at least 30 s on), so a slow or failed renewal has time for a retry.
    const delay = exp ? Math.max((exp - now()) * 0.8, 30_000) : TOKEN_RENEWAL_FALLBACK_MS;
    renewTimer = setTimeout(() => void renew(myRun), Math.min(delay, MAX_TIMER_MS));
  };

  const renew = async (myRun: number) => {
    if (myRun !== run) return;
    lastRenewalAt = now();
    try {
      const { token } = await fetchToken();
      if (myRun !== run) return;
      phone.setPassword(token);
      scheduleRenewal(token, myRun);
    } catch (e) {
      if (myRun !== run) return;
      console.warn("agentbar: renewing the extension token failed", e);
      // The current token may still be good for a while: try again soon.
      renewTimer = setTimeout(() => void renew(myRun), 30_000);
    }
  };

  const start = async (myRun: number) => {
    if (!user) return;
    if (!user.extension) {
      store.setState({ status: "unavailable", problem: { kind: "no-extension" }, address: "" });
      return;
    }
    if (!mine()) {
      // Until the tabs have found out which of them has the phone, it is starting.
      const elsewhere = owner.store.getState().role === "other";
      store.setState({
        status: elsewhere ? "elsewhere" : "starting",
        problem: null,
        address: elsewhere ? `${user.extension}@${user.domain}` : "",
      });
      return;
    }
    store.setState({ status: "starting", problem: null });
    let token: string;
    let domain: string;
    try {
      ({ token, domain } = await fetchToken());
    } catch (e) {
      if (myRun !== run) return;
      tokenFailures++;
      store.setState({ status: "unavailable", problem: { kind: "token", error: describeError(e) } });
      // A refused permission will not change by waiting; network trouble may.
      if (!(e instanceof PlatformError) || e.kind !== "http" || e.status >= 500) {
        const wait = TOKEN_RETRY_MS[Math.min(tokenFailures - 1, TOKEN_RETRY_MS.length - 1)]!;
        retryTimer = setTimeout(() => void start(myRun), wait);
      }
      return;
    }
    if (myRun !== run) return;
    tokenFailures = 0;
    lastRenewalAt = now();
    const s = settings.getState();
    const server = effectiveSipWebSocketUrl(s, session.getState().platformUrl, deps.pageHref());
    const address = `${user.extension}@${domain}`;
    const phoneSettings: PhoneSettings = {
      server,
      address,
      password: token,
      displayName: user.name,
      iceServers: toRtcIceServers(s.iceServers),
      iceGatheringTimeoutMs: deps.iceGatheringTimeoutMs ?? 500,
      autoAnswer: s.autoAnswer,
      dtmfMode: s.dtmfMode,
      referPolicy: s.referPolicy,
      // Call waiting while consulting for an attended transfer: the waiting call still rings.
      maxCalls: 3,
    };
    try {
      await phone.start(phoneSettings);
    } catch (e) {
      if (myRun !== run) return;
      store.setState({
        status: "unavailable",
        problem: { kind: "settings", detail: e instanceof Error ? e.message : String(e) },
      });
      return;
    }
    if (myRun !== run) {
      void phone.stop();
      return;
    }
    started = { server, iceServers: s.iceServers };
    store.setState({ status: "on", problem: null, address, server, restartPending: false });
    scheduleRenewal(token, myRun);
  };

  const stop = async () => {
    run++;
    clearTimers();
    started = null;
    tokenFailures = 0;
    store.setState({ status: "off", problem: null, address: "", server: "", restartPending: false });
    await phone.stop().catch((e: unknown) => console.warn("agentbar: stopping the phone failed", e));
    // The next user of this tab does not see the previous one's finished calls.
    for (const c of phone.callsStore.getState().calls) phone.dismiss(c.id);
  };

  const restartIfIdle = () => {
    if (!store.getState().restartPending) return;
    if (phone.callsStore.getState().calls.some(isLive)) return;
    run++;
    clearTimers();
    store.setState({ restartPending: false });
    void start(run);
  };

  const onSession = (s: SessionState, before: SessionState) => {
    const signedIn = s.status === "signed-in" && !!s.user && !!s.client;
    const wasSignedIn = before.status === "signed-in" && !!before.user;
    if (signedIn && (!wasSignedIn || s.client !== client)) {
      client = s.client;
      user = s.user;
      run++;
      clearTimers();
      if (user!.extension) owner.start(`${user!.extension}@${user!.domain}`);
      void start(run);
    } else if (!signedIn && (wasSignedIn || store.getState().status !== "off")) {
      client = null;
      user = null;
      void stop().then(() => owner.stop());
    }
  };

  const onSettings = (s: Settings, before: Settings) => {
    if (store.getState().status !== "on") return;
    if (s.autoAnswer !== before.autoAnswer || s.dtmfMode !== before.dtmfMode || s.referPolicy !== before.referPolicy) {
      phone.updateSettings({ autoAnswer: s.autoAnswer, dtmfMode: s.dtmfMode, referPolicy: s.referPolicy });
    }
    const server = effectiveSipWebSocketUrl(s, session.getState().platformUrl, deps.pageHref());
    if (started && (server !== started.server || JSON.stringify(s.iceServers) !== JSON.stringify(started.iceServers))) {
      store.setState({ restartPending: true });
      restartIfIdle();
    }
  };

  const unsubscribe = [
    // The tabs found out who has the phone, or it came to this tab (the owner closed, froze, or gave it up).
    owner.store.subscribe((o, before) => {
      if (o.role === before.role || !user) return;
      const status = store.getState().status;
      if (mine() && (status === "elsewhere" || status === "starting")) {
        run++;
        void start(run);
      } else if (o.role === "other" && status === "starting") void start(run);
    }),
    session.subscribe(onSession),
    settings.subscribe(onSettings),
    phone.callsStore.subscribe(restartIfIdle),
    phone.on("credentials-rejected", () => {
      // A token refused right after renewing it will not be fixed by renewing again: the phone
      // then shows the refusal and the user can retry.
      if (now() - lastRenewalAt < RENEWAL_QUIET_MS) return;
      void renew(run);
    }),
  ];
  // Signed in already (a restored session that finished before we subscribed).
  onSession(session.getState(), { ...session.getState(), status: "signed-out", user: null, client: null });

  return {
    store,
    phone,
    owner,
    setCallCenterHook: (handler) => phone.setIncomingCallHandler(handler),
    setDialer: (d) => {
      dialer = d;
    },
    dispose() {
      unsubscribe.forEach((u) => u());
      owner.stop();
      clearTimers();
      run++;
    },
  };
}

/** `exp` of a JWT in ms, or undefined for tokens that are not JWTs (an opaque UUID). */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split(".")[1];
  if (!payload || token.split(".").length !== 3) return undefined;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof json.exp === "number" ? json.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function describeError(e: unknown): { kind: PlatformError["kind"] | "other"; status: number; message: string } {
  if (e instanceof PlatformError) return { kind: e.kind, status: e.status, message: e.message };
  return { kind: "other", status: 0, message: e instanceof Error ? e.message : String(e) };
}
