import type { LogConnector, SessionDescriptionHandlerFactory, UserAgentOptions } from "sip.js";
import type { MediaDevicesLike } from "./audio-devices";
import type { PreferenceStorage } from "./device-preferences";
import type { PageEventTarget } from "./page-lifecycle";
import type { AudioElementLike } from "./remote-audio";

/**
 * What the phone takes from its surroundings. Everything has a browser default; tests replace the
 * WebSocket transport, the WebRTC media, devices, storage, the page and the clock.
 */
export interface PhoneEnvironment {
  transportConstructor?: UserAgentOptions["transportConstructor"];
  sessionDescriptionHandlerFactory?: SessionDescriptionHandlerFactory;
  /** `null`: no devices. Default: `navigator.mediaDevices`. */
  mediaDevices?: MediaDevicesLike | null;
  /** `null`: remember nothing. Default: `localStorage` when it can be used. */
  storage?: PreferenceStorage | null;
  /** `null`: play no remote audio. Default: `new Audio()`. */
  createAudioElement?: (() => AudioElementLike) | null;
  /** Whether audio can be routed to a chosen output. Default: `setSinkId` support. */
  canChooseOutput?: boolean;
  /** `null`: follow no page events. Default: `window` and `document`. */
  window?: PageEventTarget | null;
  document?: PageEventTarget | null;
  now?: () => number;
  random?: () => number;
  /** sip.js log lines; default: sip.js's console logging of warnings and errors. */
  logConnector?: LogConnector;
}

/** The environment's browser parts, each the one given, or the browser's, or none (`null` given). */
export interface BrowserParts {
  mediaDevices: MediaDevicesLike | undefined;
  storage: PreferenceStorage | undefined;
  canChooseOutput: boolean;
  createAudioElement: (() => AudioElementLike) | undefined;
  window: PageEventTarget | undefined;
  document: PageEventTarget | undefined;
}

export function browserParts(env: PhoneEnvironment): BrowserParts {
  const g = globalThis as {
    navigator?: Navigator;
    localStorage?: Storage;
    window?: PageEventTarget;
    document?: PageEventTarget;
    HTMLMediaElement?: typeof HTMLMediaElement;
  };
  return {
    mediaDevices:
      env.mediaDevices === null
        ? undefined
        : (env.mediaDevices ?? (g.navigator?.mediaDevices as MediaDevicesLike | undefined)),
    storage: env.storage === null ? undefined : (env.storage ?? safeLocalStorage()),
    canChooseOutput: env.canChooseOutput ?? (!!g.HTMLMediaElement && "setSinkId" in g.HTMLMediaElement.prototype),
    createAudioElement:
      env.createAudioElement === null
        ? undefined
        : (env.createAudioElement ?? (typeof Audio === "function" ? () => new Audio() : undefined)),
    window: env.window === null ? undefined : (env.window ?? g.window),
    document: env.document === null ? undefined : (env.document ?? g.document),
  };
}

function safeLocalStorage(): PreferenceStorage | undefined {
  try {
    return (globalThis as { localStorage?: Storage }).localStorage;
  } catch {
    return undefined;
  }
}
