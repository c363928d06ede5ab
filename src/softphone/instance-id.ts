import type { PreferenceStorage } from "./device-preferences";

export const INSTANCE_ID_KEY = "agentbar.softphone.instance-id";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * This browser's SIP instance id (RFC 5626 `+sip.instance`): the same for every registration from
 * it, so that a registrar replaces the binding a reload or reconnection left behind instead of
 * adding one more. Kept where device choices are kept; a new one when that storage is unusable.
 */
export function instanceId(storage: PreferenceStorage | undefined): string {
  try {
    const kept = storage?.getItem(INSTANCE_ID_KEY);
    if (kept && UUID.test(kept)) return kept;
  } catch {
    // Unreadable storage: an id for this page only.
  }
  const id = globalThis.crypto.randomUUID();
  try {
    storage?.setItem(INSTANCE_ID_KEY, id);
  } catch {
    // Full or forbidden storage (private mode, sandboxed iframe): the id lasts for this page only.
  }
  return id;
}
