import type { AgentStateCall } from "../api/cc";
import { isLive, type Call, type CallId } from "../softphone";
import type { AgentContext } from "./agent-context";
import { track, type AgentState, type Supervised } from "./agent-state";
import type { CallCenterEventData } from "./agent-status";
import { CC, ccLabelsOf } from "./queue-calls";

/** A phone call seen with the call center's eyes: its labels and what the platform says of it now. */
export interface CcCall {
  action: string;
  callId: string;
  queue: string;
  joinedAt: number;
  /** Held by the platform (ccHold): the customer hears music. */
  held: boolean;
  /** A consultation in progress (ccConsult). */
  consult: { target: string; answered: boolean } | null;
  /** Who the agent is talking to, as the platform sees it (after a handover it is not who SIP says). */
  party: { name: string; number: string } | null;
  callstate: string;
  /** A supervisor on this call, when the platform tells the agent (see AgentState's `supervised`). */
  supervised: Pick<Supervised, "mode" | "by"> | null;
  /** The supervisor's own leg listening to, whispering in or joining an agent's call (see supervisionOf). */
  supervising: LegSupervision | null;
}

/**
 * What the supervisor's own leg does (the supervisor's call card says it): the mode the
 * supervisor chose last (`monitor`, `whisper`, `whisper-customer`, `barge`) and whose call it is.
 * The supervision writes it into the phone call's context; the leg's INVITE tells at least what
 * it was made for (`monitor`, `three-way`, `intercept`).
 */
export interface LegSupervision {
  mode: string;
  agent: string;
}

/** Keys of the supervision in a phone call's context. */
export const SUPERVISION = { mode: "cc.supervision", agent: "cc.supervisedAgent" } as const;

/**
 * Who the call is with, where neither SIP nor the platform's record of this phone's user says it:
 * a supervisor's leg that took the customer by intercept still shows the agent in its SIP.
 */
export const PARTY = { name: "cc.party.name", number: "cc.party.number" } as const;

const LEG_MODES: Record<string, string> = { monitor: "monitor", "three-way": "barge", intercept: "intercept" };

function supervisingOf(call: Call, action: string): LegSupervision | null {
  const mode = call.context[SUPERVISION.mode];
  if (mode) return { mode, agent: call.context[SUPERVISION.agent] ?? "" };
  // A leg the platform made for a supervisor answers by itself; a three-way leg that rings is a colleague's call.
  const fromLeg = LEG_MODES[action];
  return fromLeg && call.direction === "inbound" && (action !== "three-way" || !!call.autoAnswer)
    ? { mode: fromLeg, agent: call.remote.name || call.remote.number }
    : null;
}

/**
 * A phone call seen with the call center's eyes, or undefined for calls of the phone alone: its
 * labels (queue-calls.ts), and the platform's current call when it is this one (by its callID, or
 * as the only live call).
 */
export function ccCallOf(
  call: Call,
  s: Pick<AgentState, "platformCall" | "agent"> & Partial<Pick<AgentState, "supervised">>,
  liveCalls: readonly Call[],
): CcCall | undefined {
  const labels = ccLabelsOf(call);
  const pc = s.platformCall;
  const onlyCall = liveCalls.length === 1 && liveCalls[0]!.id === call.id;
  const platform = pc && (labels?.callId ? pc.uuid === labels.callId : onlyCall && pc.kind !== "direct") ? pc : null;
  // A supervisor's leg is labelled by the supervision even where the call center labelled nothing.
  const partyNumber = call.context[PARTY.number];
  if (!labels && !platform && !call.context[SUPERVISION.mode] && !partyNumber) return undefined;
  const callId = labels?.callId || platform?.uuid || "";
  const action = labels?.action ?? platform?.kind ?? "";
  const told = s.supervised;
  const supervised =
    told && call.state !== "ended" && (told.callId ? told.callId === callId : !!platform)
      ? { mode: told.mode, by: told.by }
      : null;
  return {
    action,
    callId,
    queue: labels?.queue || platform?.queue || "",
    joinedAt: labels?.joinedAt ?? 0,
    held: platform?.held ?? false,
    consult: platform?.consult ? { target: platform.consult.target, answered: platform.consult.answered } : null,
    party:
      platform && (platform.cid_name || platform.cid_number)
        ? { name: platform.cid_name, number: platform.cid_number }
        : partyNumber
          ? { name: call.context[PARTY.name] ?? "", number: partyNumber }
          : null,
    callstate: platform ? (s.agent?.callstate ?? "") : "",
    supervised,
    supervising: supervisingOf(call, action),
  };
}

/** Whether the call center labelled the call (a queue call, a click-to-dial leg, a consultation...). */
export function isCallCenterCall(call: Call): boolean {
  return !!ccLabelsOf(call);
}

/** Whether the phone has a live call the call center labelled. */
export function hasLiveCcCall(calls: readonly Call[]): boolean {
  return calls.some((c) => isLive(c) && isCallCenterCall(c));
}

/**
 * A queue's customer handed over to this agent by another (a consultation the other agent left, a
 * transfer, an intercept): the call ends in after-call work like a queue call, and the card names
 * the customer the platform names, not who the INVITE said.
 */
export interface Handovers {
  /** bridge-agent-start: the platform tells which of the phone's calls now carries a queue's customer. */
  take(e: CallCenterEventData): void;
  /** agent_state showed the current call as a handover (`kind: handover` with a queue). */
  note(platformCall: AgentStateCall | null): void;
  /** Whether a call that just ended was handed over to this agent; it is forgotten. */
  ended(id: CallId): boolean;
}

export function createHandovers(ctx: AgentContext): Handovers {
  const { store } = ctx;
  const add = (id: CallId) => {
    const { handedOver } = store.getState().tracking;
    if (!handedOver.includes(id)) track(store, { handedOver: [...handedOver, id] });
  };
  return {
    take(e) {
      // A leg that was no queue offer (a consultation, a transfer, an intercept); a consultation
      // leg carries the consulting agent's callID, so it is found by its customer's uuid.
      const leg = e["CC-Agent-UUID"] ?? "";
      const customer = e["CC-Member-Session-UUID"] ?? "";
      const call = ctx.calls.getState().calls.find((c) => {
        const labels = ccLabelsOf(c);
        return (
          isLive(c) &&
          !!labels &&
          labels.action !== "queue" &&
          ((!!leg && labels.callId === leg) || (!!customer && c.context[CC.customerUuid] === customer))
        );
      });
      if (!call) return;
      add(call.id);
      // The card names the customer now: a short handover may end before agent_state is read again.
      store.setState({
        platformCall: {
          uuid: leg,
          kind: "handover",
          direction: "inbound",
          queue: e["CC-Queue"] ?? "",
          member_uuid: e["CC-Member-UUID"] ?? "",
          customer_uuid: customer,
          cid_name: e["CC-Member-CID-Name"] ?? "",
          cid_number: e["CC-Member-CID-Number"] ?? "",
          answered: true,
          held: false,
          consult: null,
        },
      });
    },
    note(platformCall) {
      if (platformCall?.kind !== "handover" || !platformCall.queue) return;
      const live = ctx.calls.getState().calls.filter(isLive);
      const call = live.find((c) => ccCallOf(c, store.getState(), live)?.callId === platformCall.uuid);
      if (call) add(call.id);
    },
    ended(id) {
      const { handedOver } = store.getState().tracking;
      if (!handedOver.includes(id)) return false;
      track(store, { handedOver: handedOver.filter((h) => h !== id) });
      return true;
    },
  };
}
