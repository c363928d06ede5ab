import * as v from "valibot";
import type { KeyValueStorage, PhoneOwner, TabChannel } from "../session";
import { PhoneError, type Call, type CallsStore, type PhoneErrorInfo } from "../softphone";
import type { AgentSession } from "./agent-session";
import { initialAgentState, type AgentState } from "./agent-state";
import { LIVE_CALL_KEY } from "./call-recovery";
import { CommandError, type CommandErrorInfo } from "./command-error";
import { actionsOf, type AgentActions, type Command, type Dispatch } from "./commands";

/** How long a tab waits for the tab with the phone to carry out a command. */
export const COMMAND_TIMEOUT_MS = 15_000;

/** Bumped when a message changes meaning: tabs of an older and a newer version of the app ignore each other's. */
const VERSION = 1;

const id = v.pipe(v.string(), v.maxLength(200));
const text = v.pipe(v.string(), v.maxLength(2000));
const callId = { callId: id };
const target = v.variant("kind", [
  v.strictObject({ kind: v.literal("agent"), number: id }),
  v.strictObject({ kind: v.literal("queue"), name: id }),
  v.strictObject({ kind: v.literal("number"), number: id }),
  v.strictObject({ kind: v.literal("address"), address: id }),
]);
const status = v.variant("kind", [
  v.strictObject({ kind: v.picklist(["ready", "on-demand", "logged-out", "sign-in"]) }),
  v.strictObject({ kind: v.literal("break"), reason: id }),
]);
const only = <T extends string>(type: T) => v.strictObject({ type: v.literal(type) });
const onCall = <T extends string>(type: T) => v.strictObject({ type: v.literal(type), ...callId });
/** Every command of `commands.ts`, strictly: what another tab may ask the tab with the phone. */
const CommandSchema = v.variant("type", [
  v.strictObject({ type: v.literal("status"), status }),
  only("clear-next"),
  v.strictObject({ type: v.literal("dial"), input: id }),
  only("cancel-dial"),
  onCall("answer"),
  v.strictObject({ type: v.literal("reject"), ...callId, reason: v.optional(v.picklist(["decline", "busy"])) }),
  onCall("hang-up"),
  v.strictObject({ type: v.literal("mute"), ...callId, muted: v.boolean() }),
  v.strictObject({ type: v.literal("dtmf"), ...callId, tones: v.pipe(v.string(), v.regex(/^[0-9A-D*#]{1,32}$/i)) }),
  onCall("hold"),
  onCall("resume"),
  onCall("swap"),
  v.strictObject({ type: v.literal("transfer"), ...callId, target }),
  v.strictObject({ type: v.literal("consult"), ...callId, target }),
  onCall("complete-consult"),
  onCall("cancel-consult"),
  v.strictObject({ type: v.literal("three-way"), ...callId, target }),
  onCall("accept-refer"),
  onCall("reject-refer"),
  onCall("dismiss"),
  v.strictObject({ type: v.literal("set-disposition"), disposition: text }),
  v.strictObject({ type: v.literal("set-notes"), notes: v.pipe(v.string(), v.maxLength(20_000)) }),
  v.strictObject({ type: v.literal("set-call-notes"), ...callId, notes: v.pipe(v.string(), v.maxLength(20_000)) }),
  v.strictObject({
    type: v.literal("extend-wrap-up"),
    seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3600))),
  }),
  only("finish-wrap-up"),
  only("refresh"),
  only("load-colleagues"),
  only("retry"),
  only("dismiss-error"),
  only("dismiss-phone-note"),
]);

/** How a refusal travels back: the kinds the surfaces tell apart, as data. */
const Failure = v.variant("kind", [
  v.strictObject({
    kind: v.literal("command"),
    error: v.looseObject({ kind: v.string(), command: v.string(), message: v.string(), at: v.number() }),
  }),
  v.strictObject({ kind: v.literal("phone"), info: v.looseObject({ kind: v.string() }) }),
  v.strictObject({ kind: v.literal("other"), message: text }),
]);
type Failure = v.InferOutput<typeof Failure>;

const TabMessage = v.variant("type", [
  v.strictObject({ v: v.literal(VERSION), type: v.literal("hello"), from: id }),
  // The agent and the calls are the owner's own stores' data, as they are (the same app wrote them).
  v.strictObject({
    v: v.literal(VERSION),
    type: v.literal("state"),
    agent: v.looseObject({ phase: v.string() }),
    calls: v.array(v.looseObject({ id, state: v.string() })),
    kept: v.nullable(v.string()),
  }),
  v.strictObject({ v: v.literal(VERSION), type: v.literal("command"), id, from: id, command: CommandSchema }),
  v.strictObject({ v: v.literal(VERSION), type: v.literal("result"), id, to: id, failure: v.nullable(Failure) }),
]);
type TabMessage = v.InferOutput<typeof TabMessage>;
type StateMessage = Extract<TabMessage, { type: "state" }>;

export interface TabMirrorDeps {
  owner: Pick<PhoneOwner, "store" | "channel">;
  agent: Pick<AgentSession, "store" | "dispatch" | "mirror">;
  /** The phone's calls: the owner's are shown in this store while another tab has the phone. */
  calls: CallsStore;
  /** sessionStorage: the owner's live call is kept here too, so that this tab can take it back if the owner goes. */
  tabStorage: KeyValueStorage;
  commandTimeoutMs?: number;
}

export interface TabMirror {
  /** What a surface asks: carried out here when this tab has the phone, else by the tab that has it. */
  actions: AgentActions;
  dispatch: Dispatch;
  dispose(): void;
}

/**
 * The agent's other tabs show what the tab with the phone has: its agent (status, the calls'
 * call-center view, after-call work, notes) and its phone's calls, sent on every change over the
 * agent's BroadcastChannel; they act through it: a command (answer, hang up, hold, status,
 * notes...) goes to the owner as data, is carried out there by the same code as a click, and its
 * outcome (or its error, kind kept) comes back. The call's sound stays with the owner: a
 * MediaStream cannot cross tabs.
 */
export function createTabMirror(deps: TabMirrorDeps): TabMirror {
  const { owner, agent, calls, tabStorage } = deps;
  const pending = new Map<
    string,
    { resolve: () => void; reject: (e: unknown) => void; timer: ReturnType<typeof setTimeout> }
  >();
  let listening: { channel: TabChannel; listener: (e: { data: unknown }) => void } | undefined;
  let queued = false;
  const role = () => owner.store.getState().role;
  const tabId = () => owner.store.getState().tabId;
  const post = (m: TabMessage) => owner.channel()?.postMessage(m);

  /** The owner tells the others what it has, once per turn of the event loop however many changes. */
  const share = () => {
    if (role() !== "owner" || queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (role() !== "owner") return;
      const s = agent.store.getState();
      post({
        v: VERSION,
        type: "state",
        agent: { ...s, tracking: initialAgentState().tracking },
        calls: calls.getState().calls as unknown as StateMessage["calls"],
        kept: tabStorage.getItem(LIVE_CALL_KEY),
      });
    });
  };

  const carryOut = (m: Extract<TabMessage, { type: "command" }>) => {
    agent.dispatch(m.command as Command).then(
      () => post({ v: VERSION, type: "result", id: m.id, to: m.from, failure: null }),
      (e: unknown) => post({ v: VERSION, type: "result", id: m.id, to: m.from, failure: failureOf(e) }),
    );
  };

  const onMessage = (e: { data: unknown }) => {
    const parsed = v.safeParse(TabMessage, e.data);
    if (!parsed.success) return;
    const m = parsed.output;
    switch (m.type) {
      case "hello":
        return share();
      case "state":
        if (role() !== "other") return;
        agent.mirror(m.agent as unknown as AgentState);
        calls.setState({ calls: m.calls as unknown as Call[] });
        if (m.kept) tabStorage.setItem(LIVE_CALL_KEY, m.kept);
        else tabStorage.removeItem(LIVE_CALL_KEY);
        return;
      case "command":
        if (role() === "owner") carryOut(m);
        return;
      case "result": {
        const p = m.to === tabId() ? pending.get(m.id) : undefined;
        if (!p) return;
        pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.failure) p.reject(errorOf(m.failure));
        else p.resolve();
        return;
      }
    }
  };

  /** The channel changes with each sign-in: listen on the current one. */
  const follow = () => {
    const channel = owner.channel();
    if (listening?.channel === channel) return;
    listening?.channel.removeEventListener("message", listening.listener);
    listening = undefined;
    if (!channel) return;
    channel.addEventListener("message", onMessage);
    listening = { channel, listener: onMessage };
  };

  const unsubscribe = [
    owner.store.subscribe((o, before) => {
      follow();
      if (o.role === before.role) return;
      if (o.role === "other") post({ v: VERSION, type: "hello", from: o.tabId });
      if (before.role === "other") {
        // This tab has the phone now (or nobody is signed in): its own calls and its own agent from here on.
        calls.setState({ calls: [] });
        agent.mirror(null);
      }
      share();
    }),
    agent.store.subscribe(share),
    calls.subscribe(share),
  ];
  follow();

  const dispatch: Dispatch = (command) => {
    if (role() !== "other") return agent.dispatch(command);
    const id = globalThis.crypto.randomUUID();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new PhoneError({ kind: "timeout", detail: "the tab with the phone did not answer" }));
      }, deps.commandTimeoutMs ?? COMMAND_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      post({ v: VERSION, type: "command", id, from: tabId(), command });
    });
  };

  return {
    actions: actionsOf(dispatch),
    dispatch,
    dispose() {
      unsubscribe.forEach((u) => u());
      listening?.channel.removeEventListener("message", listening.listener);
      for (const p of pending.values()) clearTimeout(p.timer);
      pending.clear();
    },
  };
}

function failureOf(e: unknown): Failure {
  if (e instanceof CommandError) return { kind: "command", error: { ...e.info } };
  if (e instanceof PhoneError) return { kind: "phone", info: { ...e.info } };
  return { kind: "other", message: String(e instanceof Error ? e.message : e).slice(0, 2000) };
}

function errorOf(f: Failure): unknown {
  if (f.kind === "command") return new CommandError(f.error as CommandErrorInfo<string>);
  if (f.kind === "phone") return new PhoneError(f.info as PhoneErrorInfo);
  return new Error(f.message);
}
