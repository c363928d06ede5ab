/** The part of the Web Storage API the stores use, so tests and blocked storage can stand in. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A storage that lives as long as the page (tests, or when the browser refuses storage). */
export function memoryStorage(initial: Record<string, string> = {}): KeyValueStorage {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/**
 * The browser's localStorage or sessionStorage. In a CRM iframe with third-party storage blocked,
 * merely touching `window.localStorage` throws; the app then keeps working with memory only.
 */
export function browserStorage(kind: "localStorage" | "sessionStorage"): KeyValueStorage {
  try {
    const storage = globalThis[kind];
    const probe = "agentbar.probe";
    storage.setItem(probe, "1");
    storage.removeItem(probe);
    return {
      getItem: (key) => storage.getItem(key),
      setItem: (key, value) => {
        try {
          storage.setItem(key, value);
        } catch (e) {
          // A full or revoked storage must not break a sign-in; the value is simply not kept.
          console.warn(`agentbar: could not write ${kind}`, e);
        }
      },
      removeItem: (key) => storage.removeItem(key),
    };
  } catch {
    return memoryStorage();
  }
}

/** Reads a JSON record, treating anything unreadable as absent. */
export function readJson(storage: KeyValueStorage, key: string): unknown {
  const raw = storage.getItem(key);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
