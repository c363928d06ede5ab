import type { StoreApi } from "zustand/vanilla";
import type { Call, CallId } from "../call";
import type { CallSessions } from "../call-sessions";
import { findCall } from "../calls-store";
import { memoryStorage } from "../device-preferences";
import { Phone, type PhoneEnvironment } from "../phone";
import type { PhoneSettings } from "../settings";
import { FakeSipServer } from "./fake-sip-server";
import { FakeAudioElement, FakeMediaDevices, FakePage, mockMedia, type MockSdh } from "./mock-media";

export interface PhoneRig {
  phone: Phone;
  sw: FakeSipServer;
  media: ReturnType<typeof mockMedia>;
  devices: FakeMediaDevices;
  page: FakePage;
  storage: ReturnType<typeof memoryStorage>;
  audio: FakeAudioElement[];
  /** The media handler behind a call. */
  sdh(id: CallId): MockSdh;
  call(id: CallId): Call;
}

export interface RigOptions {
  user?: string;
  settings?: Partial<PhoneSettings>;
  env?: Partial<PhoneEnvironment>;
  /** Wait until registered (default true). */
  registered?: boolean;
  storage?: ReturnType<typeof memoryStorage>;
  devices?: FakeMediaDevices;
}

/** A Phone wired to a FakeSipServer with test doubles for media, devices, audio and the page. */
export async function startPhone(sw: FakeSipServer, options: RigOptions = {}): Promise<PhoneRig> {
  const user = options.user ?? "1001";
  const media = mockMedia();
  const devices = options.devices ?? new FakeMediaDevices();
  const page = new FakePage();
  const storage = options.storage ?? memoryStorage();
  const audio: FakeAudioElement[] = [];
  const phone = new Phone({
    transportConstructor: sw.Transport,
    sessionDescriptionHandlerFactory: media.factory,
    mediaDevices: devices,
    storage,
    createAudioElement: () => {
      const a = new FakeAudioElement();
      audio.push(a);
      return a;
    },
    canChooseOutput: true,
    window: page,
    document: page,
    now: () => Date.now(),
    logConnector: () => {},
    ...options.env,
  });
  await phone.start({
    server: "wss://pbx.test/sip",
    address: `${user}@${sw.domain}`,
    password: "secret",
    ...options.settings,
  });
  if (options.registered !== false) await until(phone.phoneStore, (s) => s.registration.status === "registered");
  const sessions = (phone as unknown as { sessions: CallSessions }).sessions;
  return {
    phone,
    sw,
    media,
    devices,
    page,
    storage,
    audio,
    sdh: (id) => {
      const cs = sessions.find(id);
      if (!cs) throw new Error(`no live call ${id}`);
      return media.of(cs.session);
    },
    call: (id) => {
      const c = findCall(phone.callsStore.getState(), id);
      if (!c) throw new Error(`no call ${id} in the store`);
      return c;
    },
  };
}

/** Resolves when the store's state satisfies `pred` (now or after a later change). */
export function until<T>(store: StoreApi<T>, pred: (s: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    if (pred(store.getState())) return resolve(store.getState());
    const unsubscribe = store.subscribe((s) => {
      if (pred(s)) {
        unsubscribe();
        resolve(s);
      }
    });
  });
}

/** Resolves when call `id` satisfies `pred`. */
export function untilCall(phone: Phone, id: CallId, pred: (c: Call) => boolean): Promise<Call> {
  return until(phone.callsStore, (s) => {
    const c = findCall(s, id);
    return !!c && pred(c);
  }).then((s) => findCall(s, id)!);
}

/** Every value a store slice takes from now on, for asserting on sequences of states. */
export function history<T, U>(store: StoreApi<T>, select: (s: T) => U): U[] {
  const seen: U[] = [select(store.getState())];
  store.subscribe((s) => {
    const v = select(s);
    if (v !== seen[seen.length - 1]) seen.push(v);
  });
  return seen;
}

// Taken before any test installs fake timers.
const realSetTimeout = globalThis.setTimeout;

/**
 * Resolves once everything already under way in memory has run: the in-memory sockets and the
 * mock media work in microtasks, and a macrotask runs only when the microtask queue is empty,
 * however long the chain. A check that something did *not* happen waits this long; the
 * calibration test in auto-answer-calls.test.ts proves a whole auto-answer fits inside it.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => realSetTimeout(() => resolve(), 0));
}

export { FakeSipServer };
