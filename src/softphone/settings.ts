import { Grammar, type URI } from "sip.js";
import type { AutoAnswerPolicy } from "./auto-answer";
import type { DtmfMode } from "./dtmf";
import { PhoneError } from "./phone-error";

/**
 * What to do with a REFER the other side sends inside a call (it asks us to call someone else):
 * - `reject`: refuse with 603 and report it (a notice and a `refer` event);
 * - `ask`: keep it pending on the call for the user to accept or refuse (603 after a time-out);
 * - `accept`: accept (202) and dial the target, reporting progress to the sender.
 */
export type ReferPolicy = "reject" | "ask" | "accept";

/**
 * - `options`: an OPTIONS request to the registrar every `intervalSec`; no answer within
 *   `timeoutSec` means the socket is dead and the phone reconnects;
 * - `crlf`: RFC 5626 double-CRLF pings that keep NAT bindings open (sip.js does not tell us
 *   whether the pong came back, so they do not detect a dead socket);
 * - `off`.
 */
export interface KeepAliveSettings {
  mode: "options" | "crlf" | "off";
  intervalSec: number;
  timeoutSec: number;
}

export interface PhoneSettings {
  /** SIP over WebSocket URL, e.g. `wss://pbx.example.com/sip`. */
  server: string;
  /** SIP address of record, `user@domain` (a `sip:` prefix is accepted). */
  address: string;
  /** Digest password (on the platform: the extension token). */
  password: string;
  /** Digest user name when it differs from the user part of `address`. */
  authorizationUsername?: string;
  displayName?: string;
  /** STUN/TURN servers. Empty means host candidates only: there is no public STUN default. */
  iceServers?: RTCIceServer[];
  iceTransportPolicy?: RTCIceTransportPolicy;
  /** Longest wait for ICE candidates before an offer or answer goes out. */
  iceGatheringTimeoutMs?: number;
  /** Registration lifetime we ask for; the registrar has the last word. */
  registerExpiresSec?: number;
  dtmfMode?: DtmfMode;
  dtmfDurationMs?: number;
  dtmfInterToneGapMs?: number;
  autoAnswer?: AutoAnswerPolicy;
  referPolicy?: ReferPolicy;
  /** With `referPolicy: 'ask'`, how long a REFER waits for the user before it is refused. */
  referAskTimeoutSec?: number;
  /** Calls the phone holds at once; an INVITE beyond that is answered 486 Busy. 1 = no call waiting. */
  maxCalls?: number;
  /** An unanswered incoming call is given up after this long (sip.js answers 480 then). */
  noAnswerTimeoutSec?: number;
  keepAlive?: Partial<KeepAliveSettings>;
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Extra headers on every REGISTER (full `Name: value` lines). */
  registerHeaders?: string[];
  userAgentString?: string;
}

/** Settings with every default filled in and the addresses checked. */
export interface ResolvedSettings extends Required<
  Omit<PhoneSettings, "authorizationUsername" | "displayName" | "keepAlive" | "reconnect">
> {
  authorizationUsername: string;
  displayName?: string;
  keepAlive: KeepAliveSettings;
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  aor: URI;
  user: string;
  domain: string;
}

/** What the phone store shows of the settings in use: everything except the password. */
export type PublicSettings = Omit<ResolvedSettings, "password" | "aor">;

export const DEFAULT_SETTINGS = {
  iceServers: [] as RTCIceServer[],
  iceTransportPolicy: "all" as RTCIceTransportPolicy,
  iceGatheringTimeoutMs: 1000,
  registerExpiresSec: 600,
  dtmfMode: "rfc4733" as DtmfMode,
  dtmfDurationMs: 100,
  dtmfInterToneGapMs: 70,
  autoAnswer: "platform" as AutoAnswerPolicy,
  referPolicy: "reject" as ReferPolicy,
  referAskTimeoutSec: 30,
  maxCalls: 2,
  noAnswerTimeoutSec: 60,
  keepAlive: { mode: "options", intervalSec: 30, timeoutSec: 10 } as KeepAliveSettings,
  reconnect: { initialDelayMs: 1000, maxDelayMs: 30_000 },
  registerHeaders: [] as string[],
  userAgentString: "Agentbar",
};

export function resolveSettings(s: PhoneSettings): ResolvedSettings {
  const invalid = (detail: string) => new PhoneError({ kind: "invalid-settings", detail });
  let server: URL;
  try {
    server = new URL(s.server);
  } catch {
    throw invalid(`WebSocket URL "${s.server}" is not a URL`);
  }
  if (server.protocol !== "wss:" && server.protocol !== "ws:")
    throw invalid(`WebSocket URL must start with wss:// or ws://, not ${server.protocol}//`);
  const address = s.address.trim().replace(/^sips?:/i, "");
  const aor = Grammar.URIParse(`sip:${address}`);
  if (!aor?.user || !aor.host || !/^[^@]+@[^@]+$/.test(address))
    throw invalid(`SIP address "${s.address}" is not user@domain`);
  if (!s.password) throw invalid("the password is empty");
  const positive = (value: number | undefined, fallback: number, name: string) => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v < 0) throw invalid(`${name} must be a positive number`);
    return v;
  };
  const d = DEFAULT_SETTINGS;
  return {
    server: s.server,
    address,
    password: s.password,
    authorizationUsername: s.authorizationUsername || aor.user,
    ...(s.displayName ? { displayName: s.displayName } : {}),
    iceServers: s.iceServers ?? d.iceServers,
    iceTransportPolicy: s.iceTransportPolicy ?? d.iceTransportPolicy,
    iceGatheringTimeoutMs: positive(s.iceGatheringTimeoutMs, d.iceGatheringTimeoutMs, "iceGatheringTimeoutMs"),
    registerExpiresSec: Math.max(60, positive(s.registerExpiresSec, d.registerExpiresSec, "registerExpiresSec")),
    dtmfMode: s.dtmfMode ?? d.dtmfMode,
    dtmfDurationMs: positive(s.dtmfDurationMs, d.dtmfDurationMs, "dtmfDurationMs"),
    dtmfInterToneGapMs: positive(s.dtmfInterToneGapMs, d.dtmfInterToneGapMs, "dtmfInterToneGapMs"),
    autoAnswer: s.autoAnswer ?? d.autoAnswer,
    referPolicy: s.referPolicy ?? d.referPolicy,
    referAskTimeoutSec: positive(s.referAskTimeoutSec, d.referAskTimeoutSec, "referAskTimeoutSec"),
    maxCalls: Math.max(1, Math.floor(positive(s.maxCalls, d.maxCalls, "maxCalls"))),
    noAnswerTimeoutSec: positive(s.noAnswerTimeoutSec, d.noAnswerTimeoutSec, "noAnswerTimeoutSec"),
    keepAlive: { ...d.keepAlive, ...s.keepAlive },
    reconnect: { ...d.reconnect, ...s.reconnect },
    registerHeaders: s.registerHeaders ?? d.registerHeaders,
    userAgentString: s.userAgentString ?? d.userAgentString,
    aor,
    user: aor.user,
    domain: aor.host,
  };
}

export function publicSettings(s: ResolvedSettings): PublicSettings {
  const { password: _password, aor: _aor, ...rest } = s;
  return rest;
}
