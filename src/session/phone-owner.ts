import * as v from "valibot";
import { createStore, type StoreApi } from "zustand/vanilla";

/**
 * - `electing`: signed in, finding out whether another tab has the phone (a moment);
 * - `owner`: this tab has the agent's phone (its registration);
 * - `other`: another tab of this browser has it; this one shows its calls and acts through it;
 * - `alone`: the browser cannot coordinate tabs (no Web Locks or BroadcastChannel): every tab
 *   has its own phone, as before;
 * - `off`: nobody signed in.
 */
export type PhoneRole = "off" | "electing" | "owner" | "other" | "alone";

export interface PhoneOwnerState {
  role: PhoneRole;
  /** This tab's id, in messages between the tabs. */
  tabId: string;
  /** The owner: how many other tabs of the agent are open (they check on it now and then). */
  others: number;
  /** "Use the phone here": under way, or refused because the phone is on a call (`busy`). */
  move: "asking" | "busy" | null;
}

/** What the election uses of the Web Locks API (navigator.locks), so that tests can stand in. */
export interface LockManagerLike {
  request(
    name: string,
    options: { steal?: boolean; signal?: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<void>;
}

/** What the tabs use of a BroadcastChannel. */
export interface TabChannel {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (e: { data: unknown }) => void): void;
  removeEventListener(type: "message", listener: (e: { data: unknown }) => void): void;
  close(): void;
}

export interface TabCoordination {
  locks: LockManagerLike | undefined;
  /** Opens the channel the agent's tabs talk on. */
  openChannel: ((name: string) => TabChannel) | undefined;
  /** How often a tab without the phone checks that the owner answers, and how long it waits for the answer. */
  livenessMs?: { every: number; answerWithin: number };
  /**
   * The page, for its `freeze` (a frozen owner says so and lets the phone go) and `resume` events
   * (a frozen tab does not count the time it was frozen against the owner).
   */
  document?: Pick<EventTarget, "addEventListener" | "removeEventListener">;
}

export interface PhoneOwnerDeps extends TabCoordination {
  /** Whether this tab may give the phone away now (not while it has a live or ringing call). */
  canRelease(): boolean;
  /** Stops this tab's phone (unregisters); runs whenever the phone goes to another tab. */
  release(): Promise<void>;
  tabId?: string;
}

export interface PhoneOwner {
  store: StoreApi<PhoneOwnerState>;
  /** Joins the election for this agent (`key`: extension@domain): the first tab wins. */
  start(key: string): void;
  /** Leaves it (sign-out, page gone): the phone goes to the next tab. */
  stop(): void;
  /** "Use the phone here": the owner gives the phone up (never during a call) and this tab takes it. */
  takeOver(): Promise<boolean>;
  /** The channel of the agent's tabs while started, for what else they share (calls, status, commands). */
  channel(): TabChannel | undefined;
}

const tab = v.pipe(v.string(), v.maxLength(64));
/** The election's messages; others on the same channel (the mirror's) are not its business. */
const ElectionMessage = v.variant("type", [
  v.strictObject({ type: v.literal("ping"), from: tab }),
  v.strictObject({ type: v.literal("pong"), from: tab }),
  v.strictObject({ type: v.literal("bye"), from: tab }),
  v.strictObject({ type: v.literal("asleep"), from: tab, to: v.optional(tab) }),
  v.strictObject({ type: v.literal("release"), from: tab }),
  v.strictObject({ type: v.literal("released"), to: tab }),
  v.strictObject({ type: v.literal("busy"), to: tab }),
]);
type ElectionMessage = v.InferOutput<typeof ElectionMessage>;

export const LIVENESS_MS = { every: 1000, answerWithin: 2500 };

/** The names of the agent's lock and channel (one per extension@domain in this browser partition). */
export const lockName = (key: string) => `agentbar.phone:${key}`;

/**
 * One phone per agent per browser: the tabs and frames of the app in one storage partition elect
 * the owner of the registration with a Web Lock named after the agent. The browser hands the lock
 * to the next tab by itself when the owner closes, crashes or is discarded. A frozen owner keeps
 * it, so the other tabs ask it every second over the BroadcastChannel and take the lock from an
 * owner that has not answered for a few seconds (`steal`). "Use the phone here" asks the owner to
 * stop its phone first; the owner keeps the lock until the asking tab takes it, so that no third
 * tab slips in between.
 */
export function createPhoneOwner(deps: PhoneOwnerDeps): PhoneOwner {
  const tabId = deps.tabId ?? globalThis.crypto.randomUUID();
  const liveness = deps.livenessMs ?? LIVENESS_MS;
  const store = createStore<PhoneOwnerState>()(() => ({ role: "off", tabId, others: 0, move: null }));
  let key = "";
  let channel: TabChannel | undefined;
  /** Bumped at every start and stop: what an older run asked for is let go. */
  let run = 0;
  /** Ends this tab's hold of the lock. */
  let letGo: (() => void) | undefined;
  /** This tab's place in the lock's queue. */
  let queued: AbortController | undefined;
  let checkTimer: ReturnType<typeof setInterval> | undefined;
  /** When this tab last asked the owner, and when an owner last answered. */
  let pingedAt = 0;
  let answeredAt = 0;
  /** Between this page's `freeze` and `resume`. */
  let frozen = false;
  /** The owner: when each other tab was last heard from. */
  const seen = new Map<string, number>();
  const moveWaiters = new Set<(m: ElectionMessage) => void>();
  /** A handover the owner agreed to: if the asking tab does not take the lock, the phone comes back here. */
  let handover: ReturnType<typeof setTimeout> | undefined;

  // The election's moves call each other in circles (a lost lock queues again and a queued one can
  // be lost; a message can take the lock, and stopping unhooks the message handler): those called
  // above where they are written (wait, steal, standAlone, stopTalking) are function declarations,
  // so that all are defined before any runs, whatever order they are written in. Every one of them
  // reads only the state above, which is set before the first runs.
  const post = (m: ElectionMessage) => channel?.postMessage(m);
  const role = () => store.getState().role;

  const countOthers = () => {
    const limit = Date.now() - liveness.every * 3;
    for (const [id, at] of seen) if (at < limit) seen.delete(id);
    if (store.getState().others !== seen.size) store.setState({ others: seen.size });
  };

  const onMessage = (e: { data: unknown }) => {
    const parsed = v.safeParse(ElectionMessage, e.data);
    if (!parsed.success) return;
    const m = parsed.output;
    switch (m.type) {
      case "ping":
        // Chromium still hands a frozen page its channel's messages: a frozen owner stays silent.
        if (role() !== "owner" || frozen) return;
        seen.set(m.from, Date.now());
        countOthers();
        post({ type: "pong", from: tabId });
        return;
      case "pong":
        if (m.from === tabId) return;
        answeredAt = Date.now();
        if (role() === "electing") store.setState({ role: "other" });
        return;
      case "bye":
        if (seen.delete(m.from)) countOthers();
        return;
      case "asleep":
        // The owner is being frozen and names the tab to take the phone (any, if it knew none);
        // should that one not, the others find the owner silent as ever.
        if (m.to !== undefined && m.to !== tabId) return;
        if ((role() === "other" || role() === "electing") && store.getState().move !== "asking") steal(run);
        return;
      case "release":
        if (role() !== "owner" || handover) return;
        if (!deps.canRelease()) return post({ type: "busy", to: m.from });
        handover = setTimeout(() => {
          handover = undefined;
          // The asking tab did not take the phone (it closed meanwhile): this tab has it again.
          if (role() === "other" && letGo) store.setState({ role: "owner" });
        }, liveness.answerWithin * 2);
        store.setState({ role: "other" });
        void deps.release().finally(() => post({ type: "released", to: m.from }));
        return;
      case "released":
      case "busy":
        if (m.to === tabId) for (const w of moveWaiters) w(m);
        return;
    }
  };

  /** The phone is this tab's until `letGo`, or until another tab takes the lock. */
  const hold = (myRun: number) => {
    if (myRun !== run) return Promise.resolve();
    clearTimeout(handover);
    handover = undefined;
    seen.clear();
    store.setState({ role: "owner", others: 0, move: null });
    return new Promise<void>((resolve) => (letGo = resolve));
  };

  /**
   * A request of this tab failed. An AbortError: the lock went to another tab while this one held
   * it (it was frozen, or gave the phone up). Anything else (a SecurityError where the browser
   * keeps storage from the page, as in a third-party frame without storage access): the tabs
   * cannot be coordinated, and this one has its own phone.
   */
  const lost = (myRun: number, e: unknown) => {
    if (myRun === run && (e as { name?: unknown } | null)?.name !== "AbortError") {
      console.info("agentbar: this page cannot share the phone with the agent's other tabs", e);
      return standAlone();
    }
    letGo?.();
    letGo = undefined;
    if (myRun !== run) return;
    clearTimeout(handover);
    handover = undefined;
    if (role() === "owner") void deps.release();
    store.setState({ role: "other", others: 0 });
    answeredAt = pingedAt = 0;
    wait(myRun);
  };

  /** Takes a place in the lock's queue: the phone comes here when the tabs before this one are gone. */
  function wait(myRun: number) {
    const locks = deps.locks;
    if (!locks || queued || myRun !== run) return;
    const place = new AbortController();
    queued = place;
    locks
      .request(lockName(key), { signal: place.signal }, () => {
        if (queued === place) queued = undefined;
        return hold(myRun);
      })
      .then(
        () => {
          // Let go by this tab (sign-out): nothing more to do.
        },
        (e: unknown) => {
          if (queued === place) queued = undefined;
          if (!place.signal.aborted) lost(myRun, e);
        },
      );
  }

  /** Takes the lock from the tab that holds it. */
  function steal(myRun: number) {
    const locks = deps.locks;
    if (!locks || myRun !== run) return;
    queued?.abort();
    queued = undefined;
    locks.request(lockName(key), { steal: true }, () => hold(myRun)).catch((e: unknown) => lost(myRun, e));
  }

  /** A tab without the phone asks the owner every second; an owner silent for a few seconds is taken over. */
  const check = (myRun: number) => {
    if (myRun !== run) return;
    if (role() === "owner") return countOthers();
    if ((role() !== "other" && role() !== "electing") || store.getState().move === "asking") return;
    const now = Date.now();
    if (pingedAt && answeredAt < pingedAt && now - pingedAt >= liveness.answerWithin) {
      pingedAt = 0;
      steal(myRun);
      return;
    }
    if (!pingedAt || answeredAt >= pingedAt) {
      pingedAt = now;
      post({ type: "ping", from: tabId });
    }
  };

  // A frozen owner says so on its way to sleep (its phone is gone until it wakes: it unregisters)
  // and hands the phone to the tab it heard from last.
  const onFreeze = () => {
    frozen = true;
    if (role() !== "owner") return;
    const latest = [...seen].sort((a, b) => b[1] - a[1])[0]?.[0];
    post({ type: "asleep", from: tabId, ...(latest ? { to: latest } : {}) });
  };

  // A tab that was frozen itself asks afresh: an answer may not have reached it while it was.
  const onResume = () => {
    frozen = false;
    pingedAt = 0;
  };

  /** Leaves the election and has a phone of its own. */
  function standAlone() {
    stopTalking();
    store.setState({ role: "alone", others: 0, move: null });
  }

  /** Stops everything of the current run: timers, the place in the queue, the hold, the channel. */
  function stopTalking() {
    run++;
    clearInterval(checkTimer);
    clearTimeout(handover);
    handover = undefined;
    queued?.abort();
    queued = undefined;
    letGo?.();
    letGo = undefined;
    deps.document?.removeEventListener("freeze", onFreeze);
    deps.document?.removeEventListener("resume", onResume);
    channel?.removeEventListener("message", onMessage);
    channel?.close();
    channel = undefined;
    seen.clear();
  }

  return {
    store,
    start(k) {
      if (key === k && role() !== "off") return;
      this.stop();
      key = k;
      const myRun = ++run;
      if (!deps.locks || !deps.openChannel) {
        store.setState({ role: "alone" });
        return;
      }
      channel = deps.openChannel(lockName(k));
      channel.addEventListener("message", onMessage);
      deps.document?.addEventListener("freeze", onFreeze);
      deps.document?.addEventListener("resume", onResume);
      store.setState({ role: "electing" });
      answeredAt = pingedAt = 0;
      wait(myRun);
      check(myRun);
      checkTimer = setInterval(() => check(myRun), liveness.every);
    },
    stop() {
      if (role() === "other" || role() === "electing") post({ type: "bye", from: tabId });
      stopTalking();
      key = "";
      store.setState({ role: "off", others: 0, move: null });
    },
    async takeOver() {
      if (role() !== "other") return role() === "owner";
      store.setState({ move: "asking" });
      const myRun = run;
      const answer = await new Promise<ElectionMessage | undefined>((resolve) => {
        const done = (m: ElectionMessage | undefined) => {
          moveWaiters.delete(done);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => done(undefined), liveness.answerWithin * 2);
        moveWaiters.add(done);
        post({ type: "release", from: tabId });
      });
      if (myRun !== run) return false;
      if (answer?.type === "busy") {
        store.setState({ move: "busy" });
        return false;
      }
      // Released, or an owner that does not answer at all: the lock is taken here.
      steal(myRun);
      return true;
    },
    channel: () => channel,
  };
}

/** The browser's Web Locks and BroadcastChannel, where it has both. */
export function browserTabs(): TabCoordination {
  const nav = globalThis.navigator as (Navigator & { locks?: unknown }) | undefined;
  const locks = nav?.locks as LockManagerLike | undefined;
  const openChannel =
    typeof BroadcastChannel === "function"
      ? (name: string) => new BroadcastChannel(name) as unknown as TabChannel
      : undefined;
  return { locks, openChannel, ...(typeof document === "undefined" ? {} : { document }) };
}
