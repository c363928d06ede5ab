/** The `localStorage` subset the phone needs, so that tests and other hosts can give their own. */
export interface PreferenceStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** A device the user chose, remembered by id and by label: ids can change between sessions. */
export interface DevicePreference {
  deviceId: string;
  label: string;
}

export const DEVICE_PREFERENCES_KEY = "agentbar.softphone.audio-devices";

export type DevicePreferences<Role extends string> = Partial<Record<Role, DevicePreference>>;

export function loadDevicePreferences<Role extends string>(
  storage: PreferenceStorage | undefined,
  roles: readonly Role[],
): DevicePreferences<Role> {
  let raw: unknown;
  try {
    raw = JSON.parse(storage?.getItem(DEVICE_PREFERENCES_KEY) ?? "{}");
  } catch {
    return {};
  }
  const out: DevicePreferences<Role> = {};
  if (!raw || typeof raw !== "object") return out;
  for (const role of roles) {
    const p = (raw as Record<string, unknown>)[role];
    if (
      p &&
      typeof p === "object" &&
      typeof (p as DevicePreference).deviceId === "string" &&
      typeof (p as DevicePreference).label === "string"
    ) {
      out[role] = { deviceId: (p as DevicePreference).deviceId, label: (p as DevicePreference).label };
    }
  }
  return out;
}

export function saveDevicePreferences<Role extends string>(
  storage: PreferenceStorage | undefined,
  prefs: DevicePreferences<Role>,
): void {
  try {
    storage?.setItem(DEVICE_PREFERENCES_KEY, JSON.stringify(prefs));
  } catch {
    // Storage can be full or forbidden (private mode, sandboxed iframe): the choice then lasts for this page only.
  }
}

/** Storage that lives as long as the page: for tests and hosts without localStorage. */
export function memoryStorage(): PreferenceStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}
