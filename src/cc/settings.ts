import { createStore, type StoreApi } from "zustand/vanilla";
import { platformWebSocketUrl } from "./platform-address";
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
}

export const defaultSettings: Readonly<Settings> = Object.freeze({
  platformUrl: "",
  language: "",
  sipWebSocketUrl: "",
  eventChannelUrl: "",
});

type Decoder<T> = (raw: unknown) => T | undefined;
const string: Decoder<string> = (raw) => (typeof raw === "string" ? raw : undefined);
const wsUrl: Decoder<string> = (raw) => (typeof raw === "string" && (raw === "" || /^wss?:\/\/\S+$/i.test(raw)) ? raw : undefined);

/** Stored values come from an older version or another tab: each is checked before use. */
const decoders: { [K in keyof Settings]: Decoder<Settings[K]> } = {
  platformUrl: (raw) => (typeof raw === "string" && (raw === "" || /^https?:\/\/\S+$/i.test(raw)) ? raw : undefined),
  language: string,
  sipWebSocketUrl: wsUrl,
  eventChannelUrl: wsUrl,
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

function decode(raw: unknown): Settings {
  const out: Settings = { ...defaultSettings };
  if (!raw || typeof raw !== "object") return out;
  const record = raw as Record<string, unknown>;
  for (const key of keys) {
    const value = decoders[key](record[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function settingsOf(state: SettingsState): Settings {
  const out = {} as Record<keyof Settings, unknown>;
  for (const key of keys) out[key] = state[key];
  return out as Settings;
}

export function createSettingsStore(storage: KeyValueStorage, storageKey = SETTINGS_KEY): SettingsStore {
  const store = createStore<SettingsState>()((set) => ({
    ...decode(readJson(storage, storageKey)),
    change: (patch) => set(decode({ ...settingsOf(store.getState()), ...patch })),
    reset: (...names) => {
      const which = names.length ? names : keys;
      set(Object.fromEntries(which.map((k) => [k, defaultSettings[k]])));
    },
    reload: () => set(decode(readJson(storage, storageKey))),
  }));
  store.subscribe((state, prev) => {
    if (keys.every((k) => state[k] === prev[k])) return;
    // Only values that differ from the defaults are written, so new defaults reach old users.
    const changed = Object.fromEntries(keys.filter((k) => state[k] !== defaultSettings[k]).map((k) => [k, state[k]]));
    storage.setItem(storageKey, JSON.stringify(changed));
  });
  return store;
}

/** Keeps a tab's settings in step with changes made in other tabs of the same origin. */
export function followOtherTabs(store: SettingsStore, target: Pick<Window, "addEventListener">, storageKey = SETTINGS_KEY): void {
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
