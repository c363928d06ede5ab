import { createStore, type StoreApi } from "zustand/vanilla";
import { fetchRecording, listCdrs, type CallRecord, type CdrQuery } from "../api/cdrs";
import { PlatformError } from "../api/errors";

export type { CallRecord } from "../api/cdrs";
export { conversationsOf, type Conversation } from "./conversations";
import { conversationsOf, type Conversation } from "./conversations";
import type { SessionStore } from "./session";

export interface CallHistoryFilter {
  /** Part of the caller's number. */
  callerNumber: string;
  /** Part of the dialled number. */
  destinationNumber: string;
  /** "YYYY-MM-DD" or "" */
  startDate: string;
  endDate: string;
  /** Only the last N days (0 = any); the dates are ignored when set. */
  lastDays: number;
}

export const NO_FILTER: Readonly<CallHistoryFilter> = Object.freeze({
  callerNumber: "",
  destinationNumber: "",
  startDate: "",
  endDate: "",
  lastDays: 0,
});

/** A recording being played: fetched with the token, then played through a blob URL. */
export interface Playback {
  uuid: string;
  status: "loading" | "ready" | "failed";
  /** `blob:` URL of the audio once loaded; revoked when playback moves on. */
  url: string | null;
  error: string | null;
}

export interface CallHistoryState {
  status: "idle" | "loading" | "ready" | "failed";
  /** What went wrong loading, for the UI to word. */
  error: { kind: PlatformError["kind"] | "other"; message: string } | null;
  filter: CallHistoryFilter;
  page: number;
  perPage: number;
  pageCount: number;
  rowCount: number;
  /** The page's records, one per conversation of the user's (conversationsOf). */
  conversations: readonly Conversation[];
  playback: Playback | null;

  /** Loads a page (default: the current one, e.g. to refresh after a call). */
  load(page?: number): Promise<void>;
  /** Changes the filter and shows its first page. */
  setFilter(patch: Partial<CallHistoryFilter>): Promise<void>;
  play(record: CallRecord): Promise<void>;
  stopPlayback(): void;
}

export type CallHistoryStore = StoreApi<CallHistoryState>;

export interface CallHistoryDeps {
  session: SessionStore;
  perPage?: number;
  /** Blob URLs; replaceable in tests. */
  createObjectUrl?: (blob: Blob) => string;
  revokeObjectUrl?: (url: string) => void;
}

/**
 * The signed-in user's call records (GET /api/cdrs), page by page, with filters, and the
 * recordings played from blob URLs: the token travels in the request header and never in an
 * address an audio element would fetch.
 */
export function createCallHistory(deps: CallHistoryDeps): CallHistoryStore {
  const createUrl = deps.createObjectUrl ?? ((b: Blob) => URL.createObjectURL(b));
  const revokeUrl = deps.revokeObjectUrl ?? ((u: string) => URL.revokeObjectURL(u));
  let loadSerial = 0;
  let playSerial = 0;

  const initial = {
    status: "idle" as const,
    error: null,
    filter: { ...NO_FILTER },
    page: 1,
    // Every call is two records or more (one per leg): 30 records make about 12 calls a page.
    perPage: deps.perPage ?? 30,
    pageCount: 1,
    rowCount: 0,
    conversations: [] as Conversation[],
    playback: null,
  };

  const store = createStore<CallHistoryState>()((set, get) => ({
    ...initial,

    async load(page) {
      const client = deps.session.getState().client;
      if (!client) return;
      const serial = ++loadSerial;
      const { filter, perPage } = get();
      const wanted = Math.max(1, page ?? get().page);
      set({ status: "loading", error: null });
      try {
        const result = await listCdrs(client, queryOf(filter, wanted, perPage));
        if (serial !== loadSerial) return;
        set({
          status: "ready",
          conversations: conversationsOf(result.data, deps.session.getState().user?.extension ?? ""),
          page: result.page || wanted,
          pageCount: result.pageCount,
          rowCount: result.rowCount,
        });
      } catch (e) {
        if (serial !== loadSerial) return;
        set({
          status: "failed",
          error:
            e instanceof PlatformError ? { kind: e.kind, message: e.message } : { kind: "other", message: String(e) },
        });
      }
    },

    setFilter(patch) {
      set({ filter: { ...get().filter, ...patch } });
      return get().load(1);
    },

    async play(record) {
      const client = deps.session.getState().client;
      if (!client || !record.recordingId) return;
      get().stopPlayback();
      const serial = ++playSerial;
      set({ playback: { uuid: record.uuid, status: "loading", url: null, error: null } });
      try {
        const blob = await fetchRecording(client, record.recordingId);
        if (serial !== playSerial) return;
        set({ playback: { uuid: record.uuid, status: "ready", url: createUrl(blob), error: null } });
      } catch (e) {
        if (serial !== playSerial) return;
        set({
          playback: {
            uuid: record.uuid,
            status: "failed",
            url: null,
            error: e instanceof Error ? e.message : String(e),
          },
        });
      }
    },

    stopPlayback() {
      playSerial++;
      const url = get().playback?.url;
      if (url) revokeUrl(url);
      set({ playback: null });
    },
  }));

  // Another user signing in on this tab must not see the previous one's calls.
  deps.session.subscribe((s, before) => {
    if (s.user?.id === before.user?.id) return;
    store.getState().stopPlayback();
    loadSerial++;
    store.setState({ ...initial, filter: { ...NO_FILTER } });
  });
  return store;
}

function queryOf(f: CallHistoryFilter, page: number, perPage: number): CdrQuery {
  return {
    page,
    perPage,
    ...(f.callerNumber.trim() ? { callerNumber: f.callerNumber.trim() } : {}),
    ...(f.destinationNumber.trim() ? { destinationNumber: f.destinationNumber.trim() } : {}),
    ...(f.lastDays > 0
      ? { lastDays: f.lastDays }
      : { ...(f.startDate ? { startDate: f.startDate } : {}), ...(f.endDate ? { endDate: f.endDate } : {}) }),
  };
}
