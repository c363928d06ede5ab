import { CommandError, callViewOf, ccLabelsOf, type AgentSession, type CallControl, type CallTarget } from "../cc";
import type { StoreApi } from "zustand/vanilla";
import { SignInError, type SessionStore } from "../session";
import { PhoneError, isLive, isTalking, type Call, type CallId, type Phone } from "../softphone";
import {
  agentOf,
  callOf,
  endOf,
  nextStatusOf,
  registrationOf,
  snapshotOf,
  userOf,
  wrapUpOf,
  type AppStates,
  type PhoneSessionStatus,
} from "./app-view";
import type { CommandArgs } from "./host/commands";
import {
  PROTOCOL_VERSIONS,
  type DiagnosticsFile,
  type CallInfo,
  type CommandName,
  type CommandResult,
  type ErrorCode,
  type EventData,
  type EventName,
  type UserInfo,
  type WrapUpInfo,
  type RegistrationInfo,
  type AgentInfo,
} from "./host/protocol";
import { EmbedCommandError, type EmbedApp } from "./endpoint";

export interface BridgeDeps {
  session: SessionStore;
  /** Whether the phone could start, and its registration and calls. */
  phoneSession: { store: StoreApi<PhoneSessionStatus>; phone: Pick<Phone, "phoneStore" | "callsStore"> };
  /** The agent at work and its actions: the same the toolbar uses. */
  agentSession: Pick<AgentSession, "store" | "actions">;
  /** Whether the browser lets the framed app keep its storage, for getDiagnostics. */
  storage: "browser" | "memory";
  /** The diagnostics file the devices panel downloads, made now. */
  diagnosticsFile: () => Promise<DiagnosticsFile>;
  appVersion: string;
  now?: () => number;
  /** How long a command waits for the state it asked for. */
  confirmTimeoutMs?: number;
}

type Listener = <E extends EventName>(event: E, data: EventData<E>) => void;

/**
 * The app as a host sees it: the stores read in the protocol's words, their changes as events,
 * and the commands carried out with the same actions as the toolbar's buttons (the session, the
 * phone and the agent session). Each command resolves once the stores show the state it asked for:
 * the platform's confirmation for call-center commands, the phone's for the rest.
 */
export function createBridge(deps: BridgeDeps): EmbedApp & { dispose(): void } {
  const { session, agentSession } = deps;
  const phone = deps.phoneSession.phone;
  const now = deps.now ?? Date.now;
  const confirmTimeoutMs = deps.confirmTimeoutMs ?? 30_000;
  const listeners = new Set<Listener>();

  /** When the other side of a click-to-dial answered, as first seen (the phone's own answer comes before). */
  const answeredSeen = new Map<CallId, number>();
  /** The phone's call of each platform uuid seen, so that after-call work names the call as commands do. */
  const callOfPlatformId = new Map<string, CallId>();
  /** Calls the agent ended through the platform (a transfer): the platform's BYE is the agent's doing. */
  const endedByAgent = new Set<CallId>();

  const states = (): AppStates => ({
    session: session.getState(),
    phoneSession: deps.phoneSession.store.getState(),
    phone: phone.phoneStore.getState(),
    calls: phone.callsStore.getState().calls,
    agent: agentSession.store.getState(),
  });
  const infoOf = (call: Call, s = states()): CallInfo => callOf(call, s.agent, s.calls, answeredSeen.get(call.id));
  const snapshot = () =>
    snapshotOf(
      states(),
      (id) => answeredSeen.get(id),
      (id) => callOfPlatformId.get(id),
    );

  // ---- events: what changed since the last look ----

  const emit: Listener = (event, data) => {
    for (const l of listeners) l(event, data);
  };
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  let last:
    | {
        user: UserInfo | null;
        registration: RegistrationInfo;
        agent: AgentInfo | null;
        calls: Map<CallId, CallInfo>;
        wrapUp: WrapUpInfo | null;
      }
    | undefined;

  const updateCalls = (s: AppStates) => {
    const known = last!.calls;
    for (const call of s.calls) {
      const before = known.get(call.id);
      if (call.state === "ended") {
        if (!before) continue;
        known.delete(call.id);
        emit("call.ended", { call: infoOf(call, s), ...endOf(call, endedByAgent.delete(call.id)) });
        continue;
      }
      let info = infoOf(call, s);
      if (info.state === "connected" && ccLabelsOf(call)?.action === "dial" && !answeredSeen.has(call.id)) {
        answeredSeen.set(call.id, now());
        info = infoOf(call, s);
      }
      if (info.platformCallId) callOfPlatformId.set(info.platformCallId, call.id);
      known.set(call.id, info);
      if (!before) {
        emit(
          info.state === "ringing" ? "call.ringing" : info.state === "dialling" ? "call.dialling" : "call.answered",
          { call: info },
        );
        continue;
      }
      const events: EventName[] = [];
      if (before.state !== "connected" && info.state === "connected") events.push("call.answered");
      if (before.held !== info.held) events.push(info.held ? "call.held" : "call.resumed");
      if (before.muted !== info.muted) events.push(info.muted ? "call.muted" : "call.unmuted");
      if (!events.length && !same(before, info)) events.push("call.updated");
      for (const e of events) emit(e as "call.updated", { call: info });
    }
    // A call the phone forgot while it was live (the phone stopped): it is over for the host too.
    for (const [id, info] of known) {
      if (s.calls.some((c) => c.id === id)) continue;
      known.delete(id);
      emit("call.ended", { call: { ...info, state: "ended" }, cause: "NORMAL_UNSPECIFIED", hungUpBy: "unknown" });
    }
  };

  const updateWrapUp = (s: AppStates, wrapUp: WrapUpInfo | null) => {
    const before = last!.wrapUp;
    last = { ...last!, wrapUp };
    if (before && before.callId !== wrapUp?.callId) {
      // Ended: with what was recorded (the store keeps it as the last disposition).
      const d = s.agent.lastDisposition;
      const recorded =
        d && (callOfPlatformId.get(d.id) ?? d.id) === before.callId ? { outcome: d.disposition, notes: d.notes } : {};
      emit("wrapup.ended", { wrapUp: { ...before, ...recorded } });
    }
    if (wrapUp && before?.callId !== wrapUp.callId) emit("wrapup.started", { wrapUp });
    else if (wrapUp && !same(before, wrapUp)) emit("wrapup.updated", { wrapUp });
  };

  // What changed since the last look, told to the hosts: the session, the phone, the agent, then
  // the calls and the after-call work (their parts above).
  const update = () => {
    const s = states();
    const user = userOf(s.session);
    const registration = registrationOf(s);
    const agent = agentOf(s.agent);
    const wrapUp = wrapUpOf(s.agent, (id) => callOfPlatformId.get(id));
    if (!last) {
      last = { user, registration, agent, calls: new Map(), wrapUp };
      for (const c of s.calls.filter(isLive)) last.calls.set(c.id, infoOf(c, s));
      return;
    }
    if (!same(user, last.user)) emit("session", { user });
    if (!same(registration, last.registration)) emit("registration", { registration });
    if (!same(agent, last.agent)) emit("agent", { agent });
    last = { ...last, user, registration, agent };
    updateCalls(s);
    updateWrapUp(s, wrapUp);
  };

  const unsubscribe = [
    session.subscribe(update),
    deps.phoneSession.store.subscribe(update),
    phone.phoneStore.subscribe(update),
    phone.callsStore.subscribe(update),
    agentSession.store.subscribe(update),
  ];
  update();

  // ---- commands ----

  /** Resolves with what `read` gives once it gives something (it may throw to fail early); a time-out fails. */
  const until = <T>(what: string, read: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const stops: (() => void)[] = [];
      const finish = () => {
        clearTimeout(timer);
        stops.forEach((s) => s());
      };
      const check = () => {
        try {
          const value = read();
          if (value === undefined) return;
          finish();
          resolve(value);
        } catch (e) {
          finish();
          reject(e);
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new EmbedCommandError("timeout", `${what}: not confirmed within ${confirmTimeoutMs / 1000} s`));
      }, confirmTimeoutMs);
      stops.push(phone.callsStore.subscribe(check), agentSession.store.subscribe(check), session.subscribe(check));
      check();
    });

  const requireSignedIn = () => {
    if (session.getState().status !== "signed-in")
      throw new EmbedCommandError("not-signed-in", "Nobody is signed in to Agentbar");
  };
  const requireAgent = () => {
    requireSignedIn();
    if (agentSession.store.getState().phase !== "on")
      throw new EmbedCommandError("not-an-agent", "The user is not working in the call center");
  };
  const actions = agentSession.actions;

  /**
   * The call a command is about: the one named, or the first live call that has the control now
   * (the call card's controls, `callViewOf`), a talking one first. `what` words it for errors.
   */
  const callFor = (callId: string | undefined, control: CallControl, what: string): Call => {
    requireSignedIn();
    const calls = phone.callsStore.getState().calls;
    const agent = agentSession.store.getState();
    const has = (c: Call) => callViewOf(c, agent, calls).controls.includes(control);
    if (callId !== undefined) {
      const call = calls.find((c) => c.id === callId && isLive(c));
      if (!call) throw new EmbedCommandError("no-call", `No call ${callId}`);
      if (!has(call)) throw new EmbedCommandError("invalid-state", `Call ${callId} cannot be ${what} now`);
      return call;
    }
    const call = [...calls.filter((c) => isLive(c) && isTalking(c)), ...calls.filter(isLive)].find(has);
    if (!call) throw new EmbedCommandError("no-call", `No call to be ${what}`);
    return call;
  };
  /** A colleague by agent number, else the number or address as typed (the endpoint cleaned it up). */
  const targetOf = (destination: string): CallTarget =>
    agentSession.store.getState().colleagues.some((c) => c.number === destination)
      ? { kind: "agent", number: destination }
      : { kind: "address", address: destination };
  const current = (id: CallId): Call | undefined => phone.callsStore.getState().calls.find((c) => c.id === id);
  /** The call once `done` holds for it; fails if it ends first (unless ending is what was asked). */
  const callWhen = (id: CallId, what: string, done: (c: CallInfo) => boolean) =>
    until(what, () => {
      const call = current(id);
      if (!call) throw new EmbedCommandError("no-call", `Call ${id} is gone`);
      const info = infoOf(call);
      if (done(info)) return { call: info };
      if (info.state === "ended")
        throw new EmbedCommandError("invalid-state", `Call ${id} ended before it was ${what}`);
      return undefined;
    });
  const ended = (id: CallId, what: string) => callWhen(id, what, (c) => c.state === "ended");

  const commands: { [C in CommandName]: (args: CommandArgs<C>) => Promise<CommandResult<C>> } = {
    async getState() {
      return snapshot();
    },

    async getDiagnostics() {
      const s = states();
      return {
        appVersion: deps.appVersion,
        protocolVersion: Math.max(...PROTOCOL_VERSIONS),
        registration: registrationOf(s),
        eventFeed: s.agent.phase === "on" ? s.agent.feed : "off",
        storage: deps.storage,
      };
    },

    async getDiagnosticsFile() {
      requireSignedIn();
      return deps.diagnosticsFile();
    },

    async dial({ number }) {
      requireSignedIn();
      if (phone.phoneStore.getState().registration.status !== "registered")
        throw new EmbedCommandError("not-signed-in", "The agent's phone is not connected");
      const before = new Set(phone.callsStore.getState().calls.map((c) => c.id));
      // The dial pad's action: through the call center (ccDial) while the agent works in it, else the phone.
      await actions.dial(number);
      // The call is there once the phone has it: its own INVITE, or the platform's leg ringing it first.
      return until("dial", () => {
        const call = phone.callsStore
          .getState()
          .calls.find(
            (c) => !before.has(c.id) && isLive(c) && (c.direction === "outbound" || ccLabelsOf(c)?.action === "dial"),
          );
        if (call) return { call: infoOf(call) };
        const failed = agentSession.store.getState().dialling?.failed;
        if (failed)
          throw new EmbedCommandError(
            "failed",
            failed === "no-ring"
              ? "The platform's call never reached the agent's phone"
              : "The call ended before the agent's phone rang",
          );
        return undefined;
      });
    },

    async answer({ callId }) {
      const call = callFor(callId, "answer", "answered");
      await actions.answer(call.id);
      return callWhen(call.id, "answered", (c) => c.state === "connected");
    },

    async reject({ callId, busy }) {
      const call = callFor(callId, busy ? "busy" : "reject", "rejected");
      await actions.reject(call.id, busy ? "busy" : "decline");
      return ended(call.id, "rejected");
    },

    async hangUp({ callId }) {
      const call = callFor(callId, "hang-up", "hung up");
      await actions.hangUp(call.id);
      return ended(call.id, "hung up");
    },

    async hold({ callId }) {
      const call = callFor(callId, "hold", "held");
      await actions.hold(call.id);
      return callWhen(call.id, "held", (c) => c.held);
    },

    async resume({ callId }) {
      const call = callFor(callId, "resume", "resumed");
      await actions.resume(call.id);
      return callWhen(call.id, "resumed", (c) => !c.held);
    },

    async mute({ callId }) {
      const call = callFor(callId, "mute", "muted");
      await actions.mute(call.id, true);
      return callWhen(call.id, "muted", (c) => c.muted);
    },

    async unmute({ callId }) {
      const call = callFor(callId, "mute", "unmuted");
      await actions.mute(call.id, false);
      return callWhen(call.id, "unmuted", (c) => !c.muted);
    },

    async sendDtmf({ callId, digits }) {
      const call = callFor(callId, "dtmf", "sent tones");
      await actions.sendDtmf(call.id, digits.toUpperCase());
      return { call: infoOf(current(call.id)!) };
    },

    async transfer({ callId, destination }) {
      const call = callFor(callId, "transfer", "transferred");
      const queue = agentSession.store.getState().queues.some((q) => q.name === destination);
      endedByAgent.add(call.id);
      try {
        await actions.transfer(
          call.id,
          queue ? { kind: "queue", name: destination } : { kind: "address", address: destination },
        );
        return await ended(call.id, "transferred");
      } catch (e) {
        endedByAgent.delete(call.id);
        throw e;
      }
    },

    async consult({ callId, destination }) {
      const call = callFor(callId, "consult", "consulted on");
      await actions.consult(call.id, targetOf(destination));
      // Confirmed: the platform shows the consultation (ccConsult), or the phone's consultation call answered.
      return { call: infoOf(current(call.id)!) };
    },

    async completeTransfer({ callId }) {
      const call = callFor(callId, "complete-consult", "handed over");
      endedByAgent.add(call.id);
      try {
        await actions.completeConsult(call.id);
        return await ended(call.id, "handed over");
      } catch (e) {
        endedByAgent.delete(call.id);
        throw e;
      }
    },

    async cancelConsultation({ callId }) {
      const call = callFor(callId, "cancel-consult", "taken back from its consultation");
      await actions.cancelConsult(call.id);
      return { call: infoOf(current(call.id)!) };
    },

    async threeWay({ callId, destination }) {
      const call = callFor(callId, "three-way", "joined by a third party");
      await actions.threeWay(call.id, targetOf(destination));
      return { call: infoOf(current(call.id)!) };
    },

    async setStatus({ status, reason }) {
      requireAgent();
      // Signed out of the queues, any other status needs them joined first.
      if (agentOf(agentSession.store.getState())?.status === "signed-out" && status !== "signed-out")
        await actions.choose({ kind: "sign-in" });
      await actions.choose(nextStatusOf(status, reason ?? ""));
      const agent = agentOf(agentSession.store.getState());
      if (!agent) throw new EmbedCommandError("not-an-agent", "The user stopped working in the call center");
      const appliedNow = agent.status === status && (status !== "break" || agent.reason === (reason ?? ""));
      return { agent, applied: appliedNow ? "now" : "after-call" };
    },

    async setDisposition({ callId, outcome, notes, done }) {
      requireAgent();
      const w = agentSession.store.getState().wrapUp;
      if (!w) throw new EmbedCommandError("no-call", "No after-call work is under way");
      if (callId !== w.id && callId !== w.customerUuid && callOfPlatformId.get(w.id) !== callId) {
        throw new EmbedCommandError("no-call", `The after-call work under way is not call ${callId}'s`);
      }
      await actions.setDisposition(outcome);
      await actions.setNotes(notes);
      if (done) await actions.finishWrapUp();
      return { callId };
    },
  };

  return {
    snapshot,
    async run(command, args) {
      try {
        return await commands[command](args as never);
      } catch (e) {
        throw embedErrorOf(e);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    signInWithToken(token) {
      // A session being restored after a reload comes first; the credential is for when there is none.
      void until("sign-in", () =>
        /^(restoring|signing-in|signing-out)$/.test(session.getState().status) ? undefined : true,
      )
        .then(() => session.getState().signInWithToken(token))
        .catch((e: unknown) => {
          const message =
            e instanceof SignInError
              ? `the credential was refused (${e.kind})`
              : `signing in with the credential failed: ${embedErrorOf(e).message}`;
          emit("error", { error: { code: "refused", message } });
        });
    },
    dispose() {
      unsubscribe.forEach((u) => u());
      listeners.clear();
    },
  };
}

const COMMAND_ERROR_CODES: Record<string, ErrorCode> = {
  "not-working": "not-an-agent",
  refused: "refused",
  "not-confirmed": "timeout",
  "unknown-call": "no-call",
  "invalid-target": "invalid-destination",
  "not-available": "invalid-state",
};

const PHONE_ERROR_CODES: Partial<Record<string, ErrorCode>> = {
  "invalid-number": "invalid-destination",
  "no-such-call": "no-call",
  "invalid-state": "invalid-state",
  "too-many-calls": "invalid-state",
  "not-connected": "not-signed-in",
};

/** What a host is told of a failure: the toolbar's and the phone's errors in the protocol's codes. */
export function embedErrorOf(e: unknown): EmbedCommandError {
  if (e instanceof EmbedCommandError) return e;
  if (e instanceof CommandError) return new EmbedCommandError(COMMAND_ERROR_CODES[e.kind] ?? "failed", e.message);
  if (e instanceof PhoneError)
    return new EmbedCommandError(
      PHONE_ERROR_CODES[e.kind] ?? "failed",
      `${e.kind}${e.status ? ` ${e.status}` : ""}: ${e.message}`,
    );
  return new EmbedCommandError("failed", e instanceof Error ? e.message : String(e));
}
