import { createStore, type StoreApi } from "zustand/vanilla";
import type { DevicesState } from "./audio-devices";
import { NOTICES_KEPT, type Notice, type NoticeBody } from "./notice";
import type { RegistrationState, TransportStatus } from "./registration-state";
import type { PublicSettings } from "./settings";

export interface PhoneState {
  registration: RegistrationState;
  transport: TransportStatus;
  /** The settings in use (no password); null before `start()`. */
  settings: PublicSettings | null;
  devices: DevicesState;
  notices: readonly Notice[];
}

export type PhoneStore = StoreApi<PhoneState>;

export const INITIAL_DEVICES: DevicesState = {
  microphones: [],
  speakers: [],
  selected: { microphone: "", speaker: "", ringer: "" },
  preferred: {},
  canChooseOutput: false,
  available: false,
};

export function createPhoneStore(): PhoneStore {
  return createStore<PhoneState>()(() => ({
    registration: { status: "stopped" },
    transport: "disconnected",
    settings: null,
    devices: INITIAL_DEVICES,
    notices: [],
  }));
}

let lastNoticeId = 0;

export function pushNotice(store: PhoneStore, body: NoticeBody, now: number): Notice {
  const notice = { id: ++lastNoticeId, at: now, ...body } as Notice;
  store.setState((s) => ({ notices: [...s.notices, notice].slice(-NOTICES_KEPT) }));
  return notice;
}

export function dismissNotice(store: PhoneStore, id: number): void {
  store.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}
