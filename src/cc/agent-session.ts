import { getUser, type PlatformClient, type User } from "../api";
import type { AgentStateCall } from "../api/cc";
import {
  memoryStorage,
  type KeyValueStorage,
  type PhoneOwnerState,
  type PhoneSession,
  type PhoneSessionState,
  type SessionState,
  type SessionStore,
  type SettingsStore,
} from "../session";
import { isLive, type IncomingCall, type IncomingCallDecision, type PageEventTarget, type Phone } from "../softphone";
import { createAfterCallWork, type AfterCallWork } from "./after-call-work";
import { createAgentContext } from "./agent-context";
import {
  createAgentStore,
  initialAgentState,
  track,
  type AgentState,
  type AgentStore,
  type CallDisposition,
} from "./agent-state";
import { POLL_MS, createAgentSync, type PollMs } from "./agent-sync";
import { createCallActions, type CallPhone } from "./call-actions";
import { callDataContext } from "./call-data";
import { createCallNotes } from "./call-notes";
import { createCallRecovery } from "./call-recovery";
import { createCallerStories } from "./caller-story";
import { createMyDay } from "./my-day";
import { createHandovers } from "./cc-call";
import { createClickToDial } from "./click-to-dial";
import { loadColleagues } from "./colleagues";
import { dispatcherOf, type AgentActions, type Dispatch } from "./commands";
import type { EventFeed } from "./event-feed";
import { createPhoneWatch } from "./phone-watch";
import { conversationOf, decideIncomingCall, labelFromAgentState, offeringOf } from "./queue-calls";
import { createStatusCommands, signIntoQueues } from "./status-commands";
import { userQueueNames } from "./user-queues";

/** What the agent session uses of the phone session: the phone's calls and controls, its dial pad, and its two hooks. */
export type AgentPhone = Pick<PhoneSession, "setCallCenterHook" | "setDialer"> & {
  phone: CallPhone & Pick<Phone, "phoneStore" | "decorate">;
  store: { getState(): Pick<PhoneSessionState, "dial"> };
  /** Which tab has the agent's phone: the queues are left at sign-out only by the last tab. */
  owner?: { store: { getState(): Pick<PhoneOwnerState, "role" | "others"> } };
};

export interface AgentSessionDeps {
  session: SessionStore;
  phoneSession: AgentPhone;
  settings: SettingsStore;
  /** localStorage: the wrap-up, the dispositions and when the status began. */
  deviceStorage: KeyValueStorage;
  /** sessionStorage: the live call, so that a reload of the page takes it back. */
  tabStorage?: KeyValueStorage;
  /** The platform's events, shared with the page's other consumers; without it the session polls. */
  feed?: EventFeed;
  now?: () => number;
  /** How long a command waits for the platform to confirm it. */
  confirmTimeoutMs?: number;
  /** agent_state polling: with the event channel open (idle, in a call), without it, and while a call is being set up. */
  pollMs?: PollMs;
  /**
   * The page whose phone this is, for the phone's watch (`freeze`, `resume`): the tab that owns
   * the registration. `null`: none. Default: `document`.
   */
  page?: PageEventTarget | null;
  /** How long the phone's registration may be gone before offers are held back (phone-watch.ts). */
  phoneLostGraceMs?: number;
  /**
   * The headers of an INVITE that are the call's data, by name or prefix ending in `*` (the
   * deployment's `embed.callData`, call-data.ts), read when a call arrives. Default: none.
   */
  callDataHeaders?: () => readonly string[];
}

export interface AgentSession {
  /** The agent at work, as plain data (agent-state.ts): what every surface reads. */
  store: AgentStore;
  /** Everything a surface can ask: status, calls, click-to-dial, after-call work. */
  actions: AgentActions;
  /** The same, as data (commands.ts): for a host page's messages or another tab's. */
  dispatch: Dispatch;
  /** What was recorded after a call (outcome, notes), by the uuid of either of its legs. */
  disposition(uuid: string): CallDisposition | undefined;
  /**
   * Another tab has the agent's phone: the store shows that tab's agent (`state`, tab-mirror.ts)
   * and this session does nothing of its own; `null` ends that, and the session starts again once
   * this tab's phone is registered.
   */
  mirror(state: AgentState | null): void;
  dispose(): void;
}

/**
 * The agent at work: after sign-in and registration it loads the agent's queues and signs into
 * them, follows status, state and the current call (agent-sync.ts), labels queue calls
 * (queue-calls.ts), runs after-call work (after-call-work.ts), and carries out what surfaces ask
 * (commands.ts): status (status-commands.ts), calls (call-actions.ts), click-to-dial
 * (click-to-dial.ts). For a user in no queue it still carries the phone's calls.
 */
export function createAgentSession(deps: AgentSessionDeps): AgentSession {
  const { session, phoneSession, settings } = deps;
  const phone = phoneSession.phone;
  const now = deps.now ?? Date.now;
  const store = createAgentStore();
  const ctx = createAgentContext({ store, calls: phone.callsStore, settings, now });
  const handovers = createHandovers(ctx);
  // The parts are built in the order they need each other. Where two need each other both ways,
  // they are joined in a second step once both are built (below), never by a closure that works
  // only because the later one happens to be declared further down: agent-sync with what reads
  // agent_state through it (click-to-dial, handovers, the recovery), and the status commands with
  // after-call work (a status chosen during it waits for it; it applies the next one).
  const readers: Array<(platformCall: AgentStateCall | null, askedAt: number) => void> = [];
  const sync = createAgentSync({
    ctx,
    feed: deps.feed,
    deviceStorage: deps.deviceStorage,
    onRead: (platformCall, askedAt) => readers.forEach((read) => read(platformCall, askedAt)),
    confirmTimeoutMs: deps.confirmTimeoutMs ?? 10_000,
    pollMs: deps.pollMs ?? POLL_MS,
  });
  const clickToDial = createClickToDial({ ctx, sync });
  const joined: { afterCall?: AfterCallWork } = {};
  const status = createStatusCommands({
    ctx,
    sync,
    afterCall: {
      active: () => joined.afterCall?.active() ?? false,
      chooseNext: async (next) => joined.afterCall?.chooseNext(next),
    },
  });
  const notes = createCallNotes({ store, storage: deps.deviceStorage, now });
  const afterCall = createAfterCallWork({
    ctx,
    deviceStorage: deps.deviceStorage,
    handovers,
    notes,
    applyStatus: status.apply,
  });
  const stories = createCallerStories({ ctx, deviceStorage: deps.deviceStorage });
  const day = createMyDay({ ctx, deviceStorage: deps.deviceStorage });
  const recovery = createCallRecovery({ ctx, tabStorage: deps.tabStorage ?? memoryStorage(), afterCall });
  // The second step: the parts that need each other both ways, joined now that all are built.
  joined.afterCall = afterCall;
  readers.push(
    (platformCall) => {
      const label = labelFromAgentState(platformCall, phone.callsStore.getState().calls.filter(isLive));
      if (label) phone.decorate(label.id, label.context);
    },
    (platformCall, askedAt) => clickToDial.follow(platformCall, askedAt),
    (platformCall) => handovers.note(platformCall),
    (platformCall) => recovery.onRead(platformCall),
  );
  const page = deps.page === null ? undefined : (deps.page ?? (globalThis as { document?: PageEventTarget }).document);
  const phoneWatch = createPhoneWatch({
    ctx,
    sync,
    registration: phone.phoneStore,
    choose: status.choose,
    document: page,
    ...(deps.phoneLostGraceMs !== undefined ? { graceMs: deps.phoneLostGraceMs } : {}),
  });
  let listening: (() => void)[] = [];
  /** The store shows another tab's agent (mirror). */
  let mirrored = false;

  const actions: AgentActions = {
    ...createCallActions({ ctx, sync, phone }),
    choose: status.choose,
    clearNext: async () => status.clearNext(),
    dial: async (input) => void (await phoneSession.store.getState().dial(input)),
    cancelDial: clickToDial.cancel,
    setDisposition: async (disposition) => afterCall.setDisposition(disposition),
    setNotes: async (text) => afterCall.setNotes(text),
    async setCallNotes(callId, text) {
      const call = phone.callsStore.getState().calls.find((c) => c.id === callId);
      if (call) notes.set(conversationOf(call), text);
    },
    extendWrapUp: afterCall.extend,
    finishWrapUp: afterCall.finish,
    refresh: () => sync.refresh(),
    loadColleagues: () => loadColleagues(ctx),
    async retry() {
      if (store.getState().phase === "failed") void start(ctx.run);
    },
    dismissError: async () => store.setState({ error: null }),
    dismissPhoneNote: async () => phoneWatch.dismiss(),
  };

  /** Listens to the feed for this agent: its offers (to label the INVITE), handovers, and what agent-sync follows. */
  const listen = (agent: string) => {
    const feed = deps.feed;
    if (feed) {
      listening = [
        feed.subscribe({ agents: [agent], actions: ["agent-offering"] }, (e) =>
          track(store, { offering: offeringOf(e, now()) }),
        ),
        feed.subscribe({ agents: [agent], actions: ["bridge-agent-start"] }, handovers.take),
      ];
    }
    sync.start();
  };

  /**
   * The agent's record (its wrap_up_time; a platform that does not show it leaves the spec's
   * default) and queue names: read at sign-in, while the phone registers, and used once it is
   * (the supervisor's board shares that read of the queue names); a retry reads them anew.
   */
  let reading: { run: number; done: Promise<[User | null, string[]]> } | undefined;
  const readAgent = (client: PlatformClient, userId: string, fresh = false) => {
    const done = Promise.all([getUser(client, userId).catch(() => null), userQueueNames(client, userId, { fresh })]);
    done.catch(() => undefined); // a failure is reported by the start that uses it
    reading = { run: ctx.run, done };
  };

  const start = async (myRun: number) => {
    const client = ctx.client;
    const user = ctx.user;
    if (!client || !user || myRun !== ctx.run) return;
    store.setState({ phase: "starting", problem: "", number: user.extension });
    // The reads begun at sign-in serve the first start; a retry reads again.
    if (reading?.run !== myRun) readAgent(client, user.id, true);
    const { done } = reading!;
    reading = undefined;
    try {
      const [info, queueNames] = await done;
      if (myRun !== ctx.run) return;
      const wrapUpSec = Number(info?.agent_info.wrap_up_time ?? 10);
      store.setState({ wrapUpSec: Number.isFinite(wrapUpSec) && wrapUpSec >= 0 ? wrapUpSec : 10 });
      if (!queueNames.length || !user.extension) {
        store.setState({ phase: "no-queues" });
        return;
      }
      store.setState({ queues: queueNames.map((name) => ({ name, waiting: null })) });
      await signIntoQueues(client, user.extension, user.extension, queueNames);
      if (myRun !== ctx.run) return;
    } catch (e) {
      if (myRun !== ctx.run) return;
      console.warn("agentbar: joining the queues failed", e);
      store.setState({ phase: "failed", problem: e instanceof Error ? e.message : String(e) });
      return;
    }
    notes.begin(user.extension);
    day.begin(user.extension);
    const kept = afterCall.begin(user.extension);
    store.setState({ phase: "on", wrapUp: kept });
    listen(user.extension);
    await sync.refresh(myRun);
    if (myRun !== ctx.run) return;
    if (kept) afterCall.resume();
    sync.schedulePoll();
    phoneWatch.start();
  };

  /** Everything of the run that ended is put away; the store starts afresh. */
  const reset = () => {
    sync.stop();
    afterCall.stop();
    notes.stop();
    clickToDial.stop();
    recovery.stop();
    stories.stop();
    day.stop();
    phoneWatch.stop();
    listening.forEach((stop) => stop());
    listening = [];
    store.setState(initialAgentState());
  };

  const onSession = (s: SessionState) => {
    // Signing out still has the session: the sign-out step leaves the queues with it.
    const signedIn = (s.status === "signed-in" || s.status === "signing-out") && !!s.user && !!s.client;
    if (signedIn && s.client !== ctx.client) {
      ctx.begin(s.client, s.user);
      reset();
      store.setState({ phase: "waiting-for-phone", number: s.user!.extension });
      readAgent(s.client!, s.user!.id);
      startWhenRegistered();
    } else if (!signedIn && ctx.client) {
      ctx.begin(null, null);
      reset();
    }
  };

  const startWhenRegistered = () => {
    if (mirrored) return;
    if (
      store.getState().phase === "waiting-for-phone" &&
      phone.phoneStore.getState().registration.status === "registered"
    )
      void start(ctx.run);
  };

  // Every INVITE is looked at before it shows: queue calls are labelled (and answered by
  // themselves when the agent asked for it); the leg of a cancelled click-to-dial is declined; the
  // leg of a call taken back after a reload continues that call; calls with a customer outlive
  // the page, so that the next one can take them back.
  const decideIncoming = (incoming: IncomingCall): IncomingCallDecision | void => {
    const s = store.getState();
    if (s.phase !== "on") return undefined;
    const back = recovery.decide(incoming);
    if (back) return back;
    const queueAutoAnswerSec = settings.getState().queueAutoAnswerSec;
    const dialWaiting = !!s.dialling && !s.dialling.failed;
    const decision = decideIncomingCall(incoming, {
      offering: s.tracking.offering,
      now: now(),
      queueAutoAnswerSec: queueAutoAnswerSec < 0 ? null : queueAutoAnswerSec,
      dialWaiting,
    });
    if (!decision) return decision;
    return clickToDial.turnsAway(decision.context) ? { ...decision, reject: 603 } : recovery.keep(decision);
  };
  // Whatever the call is, the data it came with (an IVR's input) goes with it.
  phoneSession.setCallCenterHook((incoming) => {
    const data = callDataContext(incoming, deps.callDataHeaders?.() ?? []);
    const decision = decideIncoming(incoming);
    return Object.keys(data).length ? { ...decision, context: { ...data, ...decision?.context } } : decision;
  });
  // Calls typed in the dial pad go through the call center while the agent works in it.
  phoneSession.setDialer(clickToDial.dialer);

  const unsubscribe = [
    session.subscribe(onSession),
    phone.phoneStore.subscribe(startWhenRegistered),
    phone.callsStore.subscribe((s, before) => {
      if (mirrored || store.getState().phase !== "on") return;
      afterCall.onCalls(s.calls, before.calls);
      clickToDial.onCalls(s.calls);
      recovery.onCalls(s.calls);
      stories.onCalls(s.calls);
      day.onCalls(s.calls, before.calls);
      sync.schedulePoll(0);
    }),
  ];
  // Before the app signs out, the agent leaves the queues (no offers to a phone that is gone),
  // unless another tab of the agent goes on working: it has the phone, or gets it now.
  const removeSignOutStep = session.getState().addSignOutStep(async () => {
    const tabs = phoneSession.owner?.store.getState();
    if (mirrored || (tabs?.role === "owner" && tabs.others > 0)) return;
    if (ctx.client) await status.leaveQueues(ctx.client);
  });
  onSession(session.getState());

  return {
    store,
    actions,
    dispatch: dispatcherOf(actions),
    disposition: afterCall.disposition,
    mirror(state) {
      if (state) {
        if (!mirrored) {
          mirrored = true;
          // What this session had under way is dropped: the owner's agent is shown from now on.
          ctx.begin(ctx.client, ctx.user);
          reset();
        }
        store.setState({ ...state, phoneWatch: { ...state.phoneWatch, elsewhere: true } });
      } else if (mirrored) {
        mirrored = false;
        reset();
        if (ctx.client && ctx.user) store.setState({ phase: "waiting-for-phone", number: ctx.user.extension });
        startWhenRegistered();
      }
    },
    dispose() {
      unsubscribe.forEach((u) => u());
      removeSignOutStep();
      phoneSession.setCallCenterHook(undefined);
      phoneSession.setDialer(undefined);
      ctx.begin(null, null);
      reset();
    },
  };
}
