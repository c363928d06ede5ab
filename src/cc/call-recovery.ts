import { cc, type AgentStateCall } from "../api/cc";
import { readJson, type KeyValueStorage } from "../session";
import { isLive, type Call, type IncomingCall, type IncomingCallDecision } from "../softphone";
import type { AfterCallWork } from "./after-call-work";
import type { AgentContext } from "./agent-context";
import { callDataEntries, callDataOf } from "./call-data";
import { ccCallOf } from "./cc-call";
import { CommandError, commandError, commandErrorOf } from "./command-error";
import { answeredAutomatically, CC, ccLabelsOf, conversationOf } from "./queue-calls";

/**
 * The agent's live call, kept in the tab's sessionStorage while it lasts: what a reloaded page
 * needs to find it on the platform and to show it as it was.
 */
export interface KeptCall {
  agent: string;
  /** The agent leg's uuid (the platform's callID). */
  callId: string;
  customerUuid: string;
  memberUuid: string;
  action: string;
  queue: string;
  joinedAt: number;
  /** When the conversation began, ms since epoch: the card's timer goes on from it. */
  answeredAt: number;
  /** Who it is with, for after-call work if it ends while no page has it. */
  name: string;
  number: string;
  /** The agent had muted it: the leg taken back starts muted, so the customer does not hear the agent unawares. */
  muted: boolean;
  /** The first leg was answered by itself (not by the agent): the card keeps saying so, and only then. */
  autoAnswered: boolean;
  /** The conversation (conversationOf): what is kept with it (notes) goes on with the leg taken back. */
  conversation: string;
  /** The data the call came with (call-data.ts): the leg taken back carries none of its own. */
  data: Record<string, string>;
}

export const LIVE_CALL_KEY = "agentbar.live-call";

/** Calls the platform can give back: the agent's own calls with a customer (not supervision legs). */
const KEPT_ACTIONS = new Set(["queue", "dial", "intercept", "transfer"]);

/** How long the platform's leg may take to come after ccIntercept was accepted. */
export const TAKE_BACK_TIMEOUT_MS = 10_000;

/**
 * A page reload (or a lost connection the phone could not resume) must not lose the customer. The
 * phone leaves such calls to the platform when the page goes away (`keepOnUnload`), and the
 * platform plays music to the customer meanwhile. The next page, once it reads `agent_state` and
 * finds the call it kept, takes it back with ccIntercept of its own call: a new leg, answering by
 * itself, which this module recognises and labels as the call it continues (queue, customer,
 * start time), so its card, timer and after-call work go on as they were. A platform that refuses
 * is said in words (the store's `error`), and the call is left to it.
 */
export interface CallRecovery {
  /** The INVITE of a call being taken back, labelled as the call it continues; undefined for any other. */
  decide(incoming: IncomingCall): IncomingCallDecision | undefined;
  /** What the phone keeps of a call the call center labelled: calls with a customer outlive the page. */
  keep(decision: IncomingCallDecision): IncomingCallDecision;
  /** The phone's calls changed: the live call is kept, a call that ended is forgotten. */
  onCalls(calls: readonly Call[]): void;
  /** agent_state was read: a kept call the platform still has and the phone does not is taken back. */
  onRead(platformCall: AgentStateCall | null): void;
  stop(): void;
}

export interface CallRecoveryDeps {
  ctx: AgentContext;
  /** sessionStorage: it lives as long as the tab, across reloads. */
  tabStorage: KeyValueStorage;
  afterCall: Pick<AfterCallWork, "startFor">;
  takeBackTimeoutMs?: number;
}

export function createCallRecovery(deps: CallRecoveryDeps): CallRecovery {
  const { ctx, tabStorage } = deps;
  const { store, now } = ctx;
  /** The ccIntercept under way or accepted, of the platform's leg `target`, until its leg arrives. */
  let pending: { kept: KeptCall; target: string; timer: ReturnType<typeof setTimeout> | undefined } | undefined;

  const load = (): KeptCall | undefined => {
    const v = readJson(tabStorage, LIVE_CALL_KEY) as Partial<KeptCall> | undefined;
    if (!v || typeof v !== "object" || typeof v.callId !== "string" || !v.callId || v.agent !== store.getState().number)
      return undefined;
    return {
      agent: v.agent,
      callId: v.callId,
      customerUuid: String(v.customerUuid ?? ""),
      memberUuid: String(v.memberUuid ?? ""),
      action: String(v.action ?? ""),
      queue: String(v.queue ?? ""),
      joinedAt: Number(v.joinedAt) || 0,
      answeredAt: Number(v.answeredAt) || 0,
      name: String(v.name ?? ""),
      number: String(v.number ?? ""),
      // A call kept by an older page, without the flag, is taken back muted: silence is the safe side.
      muted: v.muted !== false,
      autoAnswered: v.autoAnswered === true,
      conversation: String(v.conversation ?? "") || String(v.customerUuid ?? "") || v.callId,
      data: Object.fromEntries(
        Object.entries(typeof v.data === "object" && v.data ? v.data : {}).filter(([, x]) => typeof x === "string"),
      ),
    };
  };
  const save = (k: KeptCall) => tabStorage.setItem(LIVE_CALL_KEY, JSON.stringify(k));
  const forget = () => tabStorage.removeItem(LIVE_CALL_KEY);

  const settle = () => {
    clearTimeout(pending?.timer);
    pending = undefined;
  };

  const fail = (e: CommandError) => {
    settle();
    forget();
    store.setState({ error: e.info });
  };

  /** The phone has this call (by its leg, or by its customer). */
  const onPhone = (k: KeptCall, calls: readonly Call[]) =>
    calls.some(
      (c) =>
        isLive(c) &&
        (c.context[CC.callId] === k.callId || (!!k.customerUuid && c.context[CC.customerUuid] === k.customerUuid)),
    );

  const takeBack = (k: KeptCall, pc: AgentStateCall) => {
    const client = ctx.client;
    const user = ctx.user;
    if (!client || !user) return;
    pending = { kept: k, target: pc.uuid, timer: undefined };
    const mine = pending;
    const number = store.getState().number;
    cc.intercept(client, { agent: number, extn: user.extension, destAgent: number, destUUID: pc.uuid }).then(
      () => {
        if (pending !== mine) return;
        mine.timer = setTimeout(() => {
          if (pending === mine)
            fail(
              new CommandError({
                kind: "failed",
                command: "take-back",
                message: "the platform did not call the phone back",
                at: now(),
              }),
            );
        }, deps.takeBackTimeoutMs ?? TAKE_BACK_TIMEOUT_MS);
      },
      (e: unknown) => {
        if (pending !== mine) return;
        console.warn("agentbar: taking the call back failed", e);
        fail(commandErrorOf("take-back", e, now()));
      },
    );
  };

  return {
    decide(incoming) {
      if (!pending) return undefined;
      const k = pending.kept;
      const header = (name: string) => incoming.header(name)?.trim() || "";
      const target = header("X-CC-Target-UUID");
      const customer = header("X-CC-Member-Session-UUID");
      // The leg asked for, or one naming the kept call. A page reloaded again while the last
      // take-back's leg rang kept that leg, which never answered: the platform's call still has
      // its older leg, the one asked for.
      const ours =
        target === pending.target ||
        target === k.callId ||
        (!!k.customerUuid && (target === k.customerUuid || customer === k.customerUuid));
      if (!ours) return undefined;
      settle();
      const callId = header("X-CC-Agent-UUID") || k.callId;
      save({ ...k, callId });
      const context: Record<string, string> = {
        ...callDataEntries(k.data),
        [CC.action]: k.action,
        [CC.callId]: callId,
      };
      const put = (key: string, value: string) => {
        if (value) context[key] = value;
      };
      put(CC.queue, k.queue);
      put(CC.customerUuid, k.customerUuid);
      put(CC.memberUuid, k.memberUuid);
      if (k.joinedAt) context[CC.joinedAt] = String(k.joinedAt);
      // The new leg answers by itself, but the conversation was answered as it was the first time.
      context[CC.continued] = k.autoAnswered ? "auto" : "manual";
      context[CC.conversation] = k.conversation;
      return {
        context,
        autoAnswer: true,
        keepOnUnload: true,
        muted: k.muted,
        ...(k.answeredAt ? { answeredAt: k.answeredAt } : {}),
      };
    },

    keep(decision) {
      const action = decision.context?.[CC.action];
      return action && KEPT_ACTIONS.has(action) ? { ...decision, keepOnUnload: true } : decision;
    },

    onCalls(calls) {
      const kept = load();
      const live = calls.filter(isLive);
      for (const c of calls) {
        const labels = ccLabelsOf(c);
        if (!labels?.callId || !KEPT_ACTIONS.has(labels.action)) continue;
        if (isLive(c) && c.answeredAt) {
          const party = ccCallOf(c, store.getState(), live)?.party ?? c.remote;
          const autoAnswered = answeredAutomatically(c);
          if (
            kept?.callId === labels.callId &&
            kept.answeredAt === c.answeredAt &&
            kept.name === (party.name ?? "") &&
            kept.number === (party.number ?? "") &&
            kept.muted === c.muted &&
            kept.autoAnswered === autoAnswered
          )
            continue;
          save({
            agent: store.getState().number,
            callId: labels.callId,
            customerUuid: c.context[CC.customerUuid] ?? "",
            memberUuid: c.context[CC.memberUuid] ?? "",
            action: labels.action,
            queue: labels.queue,
            joinedAt: labels.joinedAt,
            answeredAt: c.answeredAt,
            name: party.name ?? "",
            number: party.number ?? "",
            muted: c.muted,
            autoAnswered,
            conversation: conversationOf(c),
            data: callDataOf(c),
          });
        } else if (!isLive(c) && kept?.callId === labels.callId && c.end?.kind !== "connection-lost") {
          // Over for good (a connection lost is not: the platform may still have it for the next page).
          forget();
        }
      }
    },

    onRead(pc) {
      const k = load();
      if (!k || pending) return;
      const calls = ctx.calls.getState().calls;
      if (onPhone(k, calls)) return;
      const same = !!pc && (pc.uuid === k.callId || (!!k.customerUuid && pc.customer_uuid === k.customerUuid));
      if (!same) {
        // The platform no longer has it: it ended while no page was there.
        forget();
        if (k.action === "queue" || k.queue) {
          deps.afterCall.startFor({
            id: k.callId,
            customerUuid: k.customerUuid,
            queue: k.queue,
            customerName: k.name,
            customerNumber: k.number,
            endedAt: now(),
            conversation: k.conversation,
          });
        }
        return;
      }
      if (!pc.answered) {
        fail(commandError("unknown-call", "take-back", now()));
        return;
      }
      takeBack(k, pc);
    },

    stop: settle,
  };
}
