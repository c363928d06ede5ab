import type { KeyValueStorage } from "../session";
import { isLive, type Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { CallDisposition, NextStatus, WrapUp } from "./agent-state";
import { statusKind } from "./agent-status";
import { ccCallOf, hasLiveCcCall, type CcCall, type Handovers } from "./cc-call";
import type { CallNotes } from "./call-notes";
import { CC, ccLabelsOf, conversationOf } from "./queue-calls";
import { matches, nextOfView, type StatusChoice } from "./status-commands";
import { WrapUpStorage, dispositionFor } from "./wrap-up-storage";

/** The break reason of after-call work past the platform's wrap_up_time: the platform shows why no call is offered. */
export const WRAP_UP_BREAK_REASON = "After-call work";
export const DEFAULT_EXTEND_SEC = 60;
/**
 * How long before the platform's wrap_up_time ends the break that holds offers back is sent: its
 * request and the platform's confirmation take milliseconds, the platform counts from its own
 * end of the call (a moment before the phone's), and a busy page runs timers late.
 */
export const HOLD_LEAD_MS = 3000;
/** After-call work does not end by its maximum while the agent types: it waits this long after the last keystroke. */
export const TYPING_GRACE_MS = 15_000;

/**
 * After-call work: every answered queue call (and a queue's customer handed over to the agent)
 * that ends starts it, with an outcome, notes (those typed during the call come along) and the
 * status to take afterwards, and it lasts until the agent presses *Done*. mod_callcenter only
 * holds the next offer back for `wrap_up_time`, so a little before that ends the agent is put On
 * Break ("After-call work"), a break the agent did not ask for, taken back at Done. A maximum set
 * in the toolbar settings (`wrapUpMaxSec`, 0: none) ends it by itself, never while the agent
 * types. Kept in localStorage on every change: a reload or a crash goes on where it was, and
 * nothing typed is lost.
 */
export interface AfterCallWork {
  /** For the agent of this run: the after-call work a reload left, if any (its timers start with `resume`). */
  begin(agent: string): WrapUp | null;
  /** Restarts the timers of the after-call work `begin` found. */
  resume(): void;
  stop(): void;
  active(): boolean;
  /** A status chosen during after-call work: taken when it ends, a break or a sign-out at once. */
  chooseNext(next: NextStatus): Promise<void>;
  /** The phone's calls changed: a call that ended may start after-call work, or its next status. */
  onCalls(calls: readonly Call[], before: readonly Call[]): void;
  setDisposition(disposition: string): void;
  setNotes(notes: string): void;
  /** Adds `seconds` to the maximum (when one is set). */
  extend(seconds?: number): Promise<void>;
  /** Ends it now, records the outcome and applies the next status. */
  finish(): Promise<void>;
  /** After-call work of a queue call that ended while no page had it (a reload left it to the platform). */
  startFor(ended: EndedCall): void;
  /** What was recorded after a call (outcome, notes), by the uuid of either of its legs. */
  disposition(uuid: string): CallDisposition | undefined;
}

/** A call that ended, as after-call work names it. */
export interface EndedCall {
  /** The agent leg's uuid, else the phone's call id. */
  id: string;
  customerUuid: string;
  queue: string;
  customerName: string;
  customerNumber: string;
  endedAt: number;
  /** The conversation's key (call-notes.ts): the notes typed during the call come along. */
  conversation: string;
}

export interface AfterCallWorkDeps {
  ctx: AgentContext;
  deviceStorage: KeyValueStorage;
  handovers: Handovers;
  notes: CallNotes;
  applyStatus(next: StatusChoice): Promise<void>;
}

export function createAfterCallWork(deps: AfterCallWorkDeps): AfterCallWork {
  const { ctx, applyStatus, notes } = deps;
  const { store, now } = ctx;
  let storage: WrapUpStorage | undefined;
  let endTimer: ReturnType<typeof setTimeout> | undefined;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the agent last typed in the notes: the maximum waits for a pause. */
  let typedAt = 0;

  const keep = (w: WrapUp | null) => {
    storage?.keep(w);
    store.setState({ wrapUp: w });
  };

  const clearTimers = () => {
    clearTimeout(endTimer);
    clearTimeout(holdTimer);
  };

  const arm = () => {
    clearTimers();
    const w = store.getState().wrapUp;
    if (!w) return;
    if (!w.heldOnBreak)
      holdTimer = setTimeout(
        () => void holdOffersBack().catch(() => {}),
        Math.max(0, w.platformEndsAt - HOLD_LEAD_MS - now()),
      );
    if (w.endsAt > 0) {
      // Never under the agent's fingers: the end waits for a pause in the typing.
      const at = Math.max(w.endsAt, typedAt + TYPING_GRACE_MS);
      endTimer = setTimeout(
        () => {
          if (now() < typedAt + TYPING_GRACE_MS) arm();
          else void finish().catch(() => {});
        },
        Math.max(0, at - now()),
      );
    }
  };

  /** A record of what was written about a call, under both of its uuids. */
  const record = (
    w: Pick<WrapUp, "id" | "customerUuid" | "queue" | "customerName" | "customerNumber" | "disposition" | "notes"> & {
      endedAt: number;
    },
  ) => {
    const d: CallDisposition = {
      id: w.id,
      customerUuid: w.customerUuid,
      queue: w.queue,
      customerName: w.customerName,
      customerNumber: w.customerNumber,
      disposition: w.disposition,
      notes: w.notes,
      endedAt: w.endedAt,
      savedAt: now(),
    };
    storage?.record(d);
    store.setState({ lastDisposition: d });
  };

  /** What a call that ended looked like to the call center while it was live. */
  const endedCallOf = (call: Call, view: CcCall | undefined): EndedCall => {
    const party = view?.party ?? call.remote;
    return {
      id: view?.callId || call.id,
      customerUuid: call.context[CC.customerUuid] ?? "",
      queue: view?.queue ?? "",
      customerName: party.name ?? "",
      customerNumber: party.number ?? "",
      endedAt: call.endedAt ?? now(),
      conversation: conversationOf(call),
    };
  };

  const startFor = (ended: EndedCall) => {
    const s = store.getState();
    if (!storage) return;
    // Nothing typed is lost: after-call work still open (a call came meanwhile) is recorded first.
    const open = s.wrapUp;
    if (open) record({ ...open, endedAt: open.callEndedAt });
    const maxSec = ctx.settings.getState().wrapUpMaxSec;
    // Unless the agent chose otherwise during the call, the status stays what it was (not the
    // break this very work sets).
    const was = nextOfView(s.agent);
    const w: WrapUp = {
      id: ended.id,
      customerUuid: ended.customerUuid,
      queue: ended.queue,
      customerName: ended.customerName,
      customerNumber: ended.customerNumber,
      callEndedAt: ended.endedAt,
      platformEndsAt: ended.endedAt + s.wrapUpSec * 1000,
      endsAt: maxSec > 0 ? ended.endedAt + maxSec * 1000 : 0,
      wrapUpSec: s.wrapUpSec,
      extendedSec: 0,
      heldOnBreak: open?.heldOnBreak ?? false,
      disposition: "",
      notes: notes.take(ended.conversation),
      next:
        s.next ?? open?.next ?? (was.kind === "break" && was.reason === WRAP_UP_BREAK_REASON ? { kind: "ready" } : was),
    };
    typedAt = 0;
    store.setState({ next: null, nextOfferAt: 0 });
    keep(w);
    arm();
    // A break or a sign-out chosen for after the call applies at once.
    if (w.next.kind === "break" || w.next.kind === "logged-out") void holdOffersBack().catch(() => {});
  };

  /**
   * No offer comes while after-call work lasts. A break or a sign-out chosen for after the call
   * applies on the platform at once; otherwise, a little before the platform's wrap_up_time ends,
   * the agent is put On Break "After-call work" (a ready agent only: one on a break is held
   * already), taken back at Done.
   */
  const holdOffersBack = async (): Promise<void> => {
    const w = store.getState().wrapUp;
    if (!w) return;
    const agent = store.getState().agent;
    if (w.next.kind === "break" || w.next.kind === "logged-out") {
      if (matches(w.next, agent)) return;
      // The chosen status holds offers back: the break of after-call work is not needed.
      keep({ ...w, heldOnBreak: false });
      clearTimeout(holdTimer);
      await applyStatus(w.next);
      return;
    }
    const kind = statusKind(agent?.status ?? "");
    if (w.heldOnBreak || (kind !== "ready" && kind !== "on-demand")) return;
    keep({ ...w, heldOnBreak: true });
    try {
      await applyStatus({ kind: "break", reason: WRAP_UP_BREAK_REASON });
    } catch (e) {
      // Refused (said in the error line): not held after all, and tried again at the next change.
      const now = store.getState().wrapUp;
      if (now?.id === w.id) keep({ ...now, heldOnBreak: false });
      throw e;
    }
  };

  const finish = async (): Promise<void> => {
    clearTimers();
    const w = store.getState().wrapUp;
    if (!w || !storage) return;
    record({ ...w, endedAt: w.callEndedAt });
    keep(null);
    // Ready before the platform's wrap_up_time is over: the platform still holds the next offer
    // until then (nothing in the spec lets an agent end it sooner), and the status says when.
    const ready = w.next.kind === "ready" || w.next.kind === "on-demand";
    if (ready && w.platformEndsAt > now()) store.setState({ nextOfferAt: w.platformEndsAt });
    if (w.heldOnBreak || !matches(w.next, store.getState().agent)) await applyStatus(w.next);
  };

  return {
    begin(agent) {
      storage = new WrapUpStorage(deps.deviceStorage, agent);
      return storage.active() ?? null;
    },
    resume: arm,
    stop() {
      clearTimers();
      storage = undefined;
    },
    active: () => !!store.getState().wrapUp,
    async chooseNext(next) {
      const w = store.getState().wrapUp;
      if (!w) return;
      keep({ ...w, next });
      if (next.kind === "break" || next.kind === "logged-out") await holdOffersBack();
      else arm();
    },
    onCalls(calls, before) {
      for (const c of calls) {
        const old = before.find((o) => o.id === c.id);
        if (c.state !== "ended" || !old || old.state === "ended") continue;
        // The page is going away and left the call to the platform: the next page takes it back,
        // or starts its after-call work if it ended meanwhile (call-recovery.ts).
        if (c.end?.kind === "connection-lost") continue;
        const labels = ccLabelsOf(c);
        const s = store.getState();
        const handover = deps.handovers.ended(c.id);
        const view = ccCallOf(old, s, before.filter(isLive));
        if ((labels?.action === "queue" || handover) && c.answeredAt && s.wrapUpSec > 0) {
          startFor(endedCallOf(c, view));
          continue;
        }
        // Notes typed during a call without after-call work go to its record at once.
        const ended = endedCallOf(c, view);
        const typed = notes.take(ended.conversation);
        if (typed) record({ ...ended, disposition: "", notes: typed });
        if (labels && s.next && !hasLiveCcCall(calls)) {
          // A call-center call without after-call work: the status chosen for its end applies now.
          const next = s.next;
          store.setState({ next: null });
          void applyStatus(next).catch(() => {});
        }
      }
    },
    setDisposition(disposition) {
      const w = store.getState().wrapUp;
      if (w) keep({ ...w, disposition });
    },
    setNotes(text) {
      const w = store.getState().wrapUp;
      if (!w) return;
      typedAt = now();
      keep({ ...w, notes: text });
    },
    async extend(seconds = DEFAULT_EXTEND_SEC) {
      const w = store.getState().wrapUp;
      if (!w || w.endsAt === 0) return;
      keep({ ...w, endsAt: Math.max(w.endsAt, now()) + seconds * 1000, extendedSec: w.extendedSec + seconds });
      arm();
    },
    finish,
    startFor(ended) {
      if (store.getState().wrapUpSec > 0 && !store.getState().wrapUp) startFor(ended);
    },
    disposition: (uuid) => dispositionFor(deps.deviceStorage, uuid),
  };
}
