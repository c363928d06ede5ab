import { createStore, type StoreApi } from "zustand/vanilla";
import { checkIceServer, type IceServerSetting } from "./ice-servers";
import { platformWebSocketUrl } from "./platform-address";
import { parseShortcut } from "./shortcuts";
import { readJson, type KeyValueStorage } from "./storage";

/**
 * What the user (or an administrator's deployment) can choose, kept in localStorage. To add a
 * setting: a field here, its default in `defaultSettings` and its decoder in `decoders` (the
 * compiler insists on all three).
 */
export interface Settings {
  /** Base address of the platform; "" = the page's own origin. */
  platformUrl: string;
  /** UI language tag chosen by the user; "" = follow the browser. */
  language: string;
  /** SIP over WebSocket endpoint; "" = the platform's `/ws`. */
  sipWebSocketUrl: string;
  /** JSON-RPC event channel endpoint; "" = the platform's `/ws`. */
  eventChannelUrl: string;
  /** STUN/TURN servers for calls; none by default (no public STUN server is ever assumed). */
  iceServers: readonly IceServerSetting[];
  /**
   * Calls marked for auto-answer (Call-Info answer-after, intercom, Alert-Info, Answer-Mode):
   * `platform` answers only legs the platform itself originated, `always` any marked call,
   * `never` none.
   */
  autoAnswer: "always" | "platform" | "never";
  /** DTMF in the media (RFC 4733) or as SIP INFO, for servers that want that. */
  dtmfMode: "rfc4733" | "info";
  /** A request from the other side to transfer us elsewhere (REFER): ask the user, or refuse. Never followed silently. */
  referPolicy: "ask" | "reject";
  /** A desktop notification with Answer and Reject when a call rings while the tab is hidden. */
  desktopAlerts: boolean;
  /** Queue offers answered by themselves after this many seconds; -1: they ring until answered. */
  queueAutoAnswerSec: number;
  /** After-call work ends by itself after this many seconds (never while the agent types); 0: only with Done. */
  wrapUpMaxSec: number;
  /** Calls typed in the dial pad: through the call center (ccDial, tracked as the agent's) or straight from the phone. */
  outboundCalls: "call-center" | "phone";
  /** Break reasons offered; empty: the built-in list in the UI language. */
  breakReasons: readonly string[];
  /** Dispositions offered after a call; empty: the built-in list in the UI language. */
  dispositions: readonly string[];
  /** Layout when the address does not choose one. */
  layout: "bar" | "side" | "full";
  /** The number of the platform's echo service, called by the pre-call check's echo test. */
  echoTestNumber: string;
  /** Keyboard shortcuts of the toolbar's actions, e.g. "Alt+A"; "" = none. */
  shortcuts: Readonly<Record<ShortcutAction, string>>;
}

export type ShortcutAction = "answer" | "hangup" | "hold" | "mute" | "ready" | "break";

export const SHORTCUT_ACTIONS: readonly ShortcutAction[] = ["answer", "hangup", "hold", "mute", "ready", "break"];

export const defaultSettings: Readonly<Settings> = Object.freeze({
  platformUrl: "",
  language: "",
  sipWebSocketUrl: "",
  eventChannelUrl: "",
  iceServers: Object.freeze([]) as readonly IceServerSetting[],
  autoAnswer: "platform",
  dtmfMode: "rfc4733",
  referPolicy: "ask",
  desktopAlerts: true,
  queueAutoAnswerSec: -1,
  wrapUpMaxSec: 300,
  outboundCalls: "call-center",
  breakReasons: Object.freeze([]) as readonly string[],
  dispositions: Object.freeze([]) as readonly string[],
  layout: "full",
  echoTestNumber: "9196",
  shortcuts: Object.freeze({
    answer: "Alt+A",
    hangup: "Alt+H",
    hold: "Alt+O",
    mute: "Alt+M",
    ready: "Alt+R",
    break: "Alt+B",
  }),
});

type Decoder<T> = (raw: unknown) => T | undefined;
const string: Decoder<string> = (raw) => (typeof raw === "string" ? raw : undefined);
const oneOf =
  <T extends string>(...values: T[]): Decoder<T> =>
  (raw) =>
    values.includes(raw as T) ? (raw as T) : undefined;
const boolean: Decoder<boolean> = (raw) => (typeof raw === "boolean" ? raw : undefined);
/** The stored array itself when every entry checks out, so that an unchanged list keeps its identity. */
const iceServers: Decoder<readonly IceServerSetting[]> = (raw) => {
  if (!Array.isArray(raw)) return undefined;
  const ok = raw.every(
    (s: unknown) =>
      !!s &&
      typeof s === "object" &&
      typeof (s as IceServerSetting).urls === "string" &&
      ["username", "credential"].every(
        (k) => (s as Record<string, unknown>)[k] === undefined || typeof (s as Record<string, unknown>)[k] === "string",
      ) &&
      !checkIceServer(s as IceServerSetting),
  );
  return ok ? (raw as IceServerSetting[]) : undefined;
};
/** A list of short texts (reasons, dispositions): trimmed, no empties or repeats. */
const textList: Decoder<readonly string[]> = (raw) => {
  if (!Array.isArray(raw) || !raw.every((x) => typeof x === "string" && x.trim().length <= 60)) return undefined;
  const clean = [...new Set((raw as string[]).map((x) => x.trim()).filter(Boolean))].slice(0, 30);
  return clean.length === raw.length ? (raw as string[]) : clean;
};
const shortcuts: Decoder<Readonly<Record<ShortcutAction, string>>> = (raw) => {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  if (!SHORTCUT_ACTIONS.every((a) => typeof r[a] === "string" && (r[a] === "" || parseShortcut(r[a] as string))))
    return undefined;
  return Object.fromEntries(SHORTCUT_ACTIONS.map((a) => [a, r[a]])) as Record<ShortcutAction, string>;
};
const wsUrl: Decoder<string> = (raw) =>
  typeof raw === "string" && (raw === "" || /^wss?:\/\/\S+$/i.test(raw)) ? raw : undefined;

/** Stored values come from an older version or another tab: each is checked before use. */
const decoders: { [K in keyof Settings]: Decoder<Settings[K]> } = {
  platformUrl: (raw) => (typeof raw === "string" && (raw === "" || /^https?:\/\/\S+$/i.test(raw)) ? raw : undefined),
  language: string,
  sipWebSocketUrl: wsUrl,
  eventChannelUrl: wsUrl,
  iceServers,
  autoAnswer: oneOf("always", "platform", "never"),
  dtmfMode: oneOf("rfc4733", "info"),
  referPolicy: oneOf("ask", "reject"),
  desktopAlerts: boolean,
  queueAutoAnswerSec: (raw) =>
    typeof raw === "number" && Number.isInteger(raw) && raw >= -1 && raw <= 60 ? raw : undefined,
  wrapUpMaxSec: (raw) =>
    typeof raw === "number" && Number.isInteger(raw) && raw >= 0 && raw <= 3600 ? raw : undefined,
  outboundCalls: oneOf("call-center", "phone"),
  breakReasons: textList,
  dispositions: textList,
  layout: oneOf("bar", "side", "full"),
  echoTestNumber: (raw) => (typeof raw === "string" && /^[A-Za-z0-9+*#._@:-]{1,64}$/.test(raw) ? raw : undefined),
  shortcuts,
};

export interface SettingsActions {
  /** Changes some settings; unknown or invalid values are ignored. */
  change(patch: Partial<Settings>): void;
  /** Back to the defaults (all, or the named ones). */
  reset(...keys: (keyof Settings)[]): void;
  /** Re-reads storage (another tab changed it). */
  reload(): void;
}

export type SettingsState = Settings & SettingsActions;
export type SettingsStore = StoreApi<SettingsState>;

export const SETTINGS_KEY = "agentbar.settings";

const keys = Object.keys(defaultSettings) as (keyof Settings)[];

/** Each value of `raw` that checks out, over `base` (the defaults, or the settings now for a change). */
function decode(raw: unknown, base: Settings = defaultSettings): Settings {
  const out: Record<keyof Settings, unknown> = { ...base };
  if (!raw || typeof raw !== "object") return out as Settings;
  const record = raw as Record<string, unknown>;
  for (const key of keys) {
    const value = decoders[key](record[key]);
    if (value !== undefined) out[key] = value;
  }
  return out as Settings;
}

export function settingsOf(state: SettingsState): Settings {
  const out = {} as Record<keyof Settings, unknown>;
  for (const key of keys) out[key] = state[key];
  return out as Settings;
}

export function createSettingsStore(storage: KeyValueStorage, storageKey = SETTINGS_KEY): SettingsStore {
  const store = createStore<SettingsState>()((set) => ({
    ...decode(readJson(storage, storageKey)),
    change: (patch) => set(decode(patch, settingsOf(store.getState()))),
    reset: (...names) => {
      const which = names.length ? names : keys;
      set(Object.fromEntries(which.map((k) => [k, defaultSettings[k]])));
    },
    reload: () => set(decode(readJson(storage, storageKey))),
  }));
  store.subscribe((state, prev) => {
    if (keys.every((k) => state[k] === prev[k])) return;
    // Only values that differ from the defaults are written, so new defaults reach old users.
    const changed = Object.fromEntries(
      keys.filter((k) => !sameValue(state[k], defaultSettings[k])).map((k) => [k, state[k]]),
    );
    storage.setItem(storageKey, JSON.stringify(changed));
  });
  return store;
}

/** Settings are plain data (strings, flags, lists of records): equal when their JSON is. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Keeps a tab's settings in step with changes made in other tabs of the same origin. */
export function followOtherTabs(
  store: SettingsStore,
  target: Pick<Window, "addEventListener">,
  storageKey = SETTINGS_KEY,
): void {
  target.addEventListener("storage", (event) => {
    if (event.key === storageKey || event.key === null) store.getState().reload();
  });
}

/** The SIP over WebSocket URL in effect (the setting, or the platform's `/ws`). */
export function effectiveSipWebSocketUrl(settings: Settings, platformUrl: string, pageHref: string): string {
  return settings.sipWebSocketUrl || platformWebSocketUrl(platformUrl, pageHref);
}

/** The event channel URL in effect (the setting, or the platform's `/ws`). */
export function effectiveEventChannelUrl(settings: Settings, platformUrl: string, pageHref: string): string {
  return settings.eventChannelUrl || platformWebSocketUrl(platformUrl, pageHref);
}
