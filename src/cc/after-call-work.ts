import type { KeyValueStorage } from "../session";
import { isLive, type Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { CallDisposition, NextStatus, WrapUp } from "./agent-state";
import { statusKind } from "./agent-status";
import { ccCallOf, hasLiveCcCall, type CcCall, type Handovers } from "./cc-call";
import { CC, ccLabelsOf } from "./queue-calls";
import { matches, nextOfView, type StatusChoice } from "./status-commands";
import { WrapUpStorage, dispositionFor } from "./wrap-up-storage";

/** The break reason of extended after-call work: the platform shows why no call is offered. */
export const WRAP_UP_BREAK_REASON = "After-call work";
export const DEFAULT_EXTEND_SEC = 30;

/**
 * After-call work: every answered queue call (and a queue's customer handed over to the agent)
 * that ends starts a countdown from the agent's `wrap_up_time`, with an outcome, notes and the
 * status to take afterwards. mod_callcenter only holds the next offer back meanwhile, so the
 * countdown is the toolbar's; *Extend* past `wrap_up_time` holds offers back with a break. Kept in
 * localStorage on every change: a reload or a crash goes on where it was.
 */
export interface AfterCallWork {
  /** For the agent of this run: the after-call work a reload left, if any (its countdown starts with `resume`). */
  begin(agent: string): WrapUp | null;
  /** Restarts the countdown of the after-call work `begin` found. */
  resume(): void;
  stop(): void;
  active(): boolean;
  /** A status chosen during after-call work: taken when it ends, a break or a sign-out at once. */
  chooseNext(next: NextStatus): Promise<void>;
  /** The phone's calls changed: a call that ended may start after-call work, or its next status. */
  onCalls(calls: readonly Call[], before: readonly Call[]): void;
  setDisposition(disposition: string): void;
  setNotes(notes: string): void;
  /** Adds `seconds`; past wrap_up_time the agent is held On Break meanwhile. */
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
}

export interface AfterCallWorkDeps {
  ctx: AgentContext;
  deviceStorage: KeyValueStorage;
  handovers: Handovers;
  applyStatus(next: StatusChoice): Promise<void>;
}

export function createAfterCallWork(deps: AfterCallWorkDeps): AfterCallWork {
  const { ctx, applyStatus } = deps;
  const { store, now } = ctx;
  let storage: WrapUpStorage | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const keep = (w: WrapUp | null) => {
    storage?.keep(w);
    store.setState({ wrapUp: w });
  };

  const arm = () => {
    clearTimeout(timer);
    const w = store.getState().wrapUp;
    if (!w) return;
    timer = setTimeout(() => void finish().catch(() => {}), Math.max(0, w.endsAt - now()));
  };

  /** After-call work of a call that ended, seen as the call center saw it while it was live. */
  const startWrapUp = (call: Call, view: CcCall | undefined) => {
    const party = view?.party ?? call.remote;
    startFor({
      id: view?.callId || call.id,
      customerUuid: call.context[CC.customerUuid] ?? "",
      queue: view?.queue ?? "",
      customerName: party.name ?? "",
      customerNumber: party.number ?? "",
      endedAt: call.endedAt ?? now(),
    });
  };

  const startFor = (ended: EndedCall) => {
    const s = store.getState();
    if (!storage) return;
    const w: WrapUp = {
      id: ended.id,
      customerUuid: ended.customerUuid,
      queue: ended.queue,
      customerName: ended.customerName,
      customerNumber: ended.customerNumber,
      callEndedAt: ended.endedAt,
      endsAt: ended.endedAt + s.wrapUpSec * 1000,
      wrapUpSec: s.wrapUpSec,
      extendedSec: 0,
      heldOnBreak: false,
      disposition: "",
      notes: "",
      // Unless the agent chose otherwise during the call, the status stays what it was.
      next: s.next ?? nextOfView(s.agent),
    };
    store.setState({ next: null });
    keep(w);
    arm();
    void holdOffersBack().catch(() => {});
  };

  /**
   * A break or sign-out chosen for after the call applies on the platform at once, while after-call
   * work goes on: the platform's wrap_up_time may end before the countdown, and an offer would ring
   * meanwhile. Ready waits for the end of after-call work.
   */
  const holdOffersBack = async (): Promise<void> => {
    const w = store.getState().wrapUp;
    if (!w || (w.next.kind !== "break" && w.next.kind !== "logged-out") || matches(w.next, store.getState().agent))
      return;
    // The chosen status now holds offers back: Extend needs no break of its own.
    keep({ ...w, heldOnBreak: false });
    await applyStatus(w.next);
  };

  const finish = async (): Promise<void> => {
    clearTimeout(timer);
    const w = store.getState().wrapUp;
    if (!w || !storage) return;
    const record: CallDisposition = {
      id: w.id,
      customerUuid: w.customerUuid,
      queue: w.queue,
      customerName: w.customerName,
      customerNumber: w.customerNumber,
      disposition: w.disposition,
      notes: w.notes,
      endedAt: w.callEndedAt,
      savedAt: now(),
    };
    storage.record(record);
    store.setState({ lastDisposition: record });
    keep(null);
    if (w.heldOnBreak || !matches(w.next, store.getState().agent)) await applyStatus(w.next);
  };

  return {
    begin(agent) {
      storage = new WrapUpStorage(deps.deviceStorage, agent);
      return storage.active() ?? null;
    },
    resume: arm,
    stop() {
      clearTimeout(timer);
      storage = undefined;
    },
    active: () => !!store.getState().wrapUp,
    async chooseNext(next) {
      const w = store.getState().wrapUp;
      if (!w) return;
      keep({ ...w, next });
      await holdOffersBack();
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
        if ((labels?.action === "queue" || handover) && c.answeredAt && s.wrapUpSec > 0)
          startWrapUp(c, ccCallOf(old, s, before.filter(isLive)));
        else if (labels && s.next && !hasLiveCcCall(calls)) {
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
    setNotes(notes) {
      const w = store.getState().wrapUp;
      if (w) keep({ ...w, notes });
    },
    async extend(seconds = DEFAULT_EXTEND_SEC) {
      const w = store.getState().wrapUp;
      if (!w) return;
      const base = Math.max(w.endsAt, now());
      keep({ ...w, endsAt: base + seconds * 1000, extendedSec: w.extendedSec + seconds });
      arm();
      // The platform offers again once wrap_up_time has passed: a break holds offers back meanwhile.
      const kind = statusKind(store.getState().agent?.status ?? "");
      if (!w.heldOnBreak && (kind === "ready" || kind === "on-demand")) {
        await applyStatus({ kind: "break", reason: WRAP_UP_BREAK_REASON });
        const after = store.getState().wrapUp;
        if (after?.id === w.id) keep({ ...after, heldOnBreak: true });
      }
    },
    finish,
    startFor(ended) {
      if (store.getState().wrapUpSec > 0 && !store.getState().wrapUp) startFor(ended);
    },
    disposition: (uuid) => dispositionFor(deps.deviceStorage, uuid),
  };
}
