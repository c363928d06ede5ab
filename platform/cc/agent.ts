import type { Channel } from "../switch/types";
import type { CcAgentState, CcAgentStatus } from "./vocabulary";

/**
 * One agent as the engine holds it (mod_callcenter's `agents` row). The agent number is the
 * user's extension number; `contact` is the extension its queue calls ring, chosen at sign-in.
 */
export interface Agent {
  readonly number: string;
  readonly userId: number;
  status: CcAgentStatus;
  state: CcAgentState;
  /** Why the agent is On Break ('' otherwise): ccGoBreak's reason, or 'max-no-answer'. */
  breakReason: string;
  /** The extension that rings for this agent's calls. */
  contact: string;
  /** The queue the agent signed into (its group, the `<group>` of `<group>.<number>`); '' when signed out. */
  group: string;
  noAnswerCount: number;
  callsAnswered: number;
  /** Seconds spent in queue calls since the agent last became Available. */
  talkTime: number;
  /** Epoch ms; 0 = never. longest-idle-agent offers to the agent offered a call longest ago. */
  lastOfferedCall: number;
  lastBridgeStart: number;
  /** Epoch ms the last queue call ended; wrap_up_time counts from here. */
  lastBridgeEnd: number;
  /** Epoch ms before which no call is offered (busy, reject and no-answer delays). */
  readyTime: number;
  /** Epoch ms of the last status change, for the toolbar's "on break for 5 min". */
  statusSince: number;
  /** The queue call being offered to this agent (state Receiving). */
  offer?: Offer;
  /** The call the agent is in: a queue call, a ccDial call, an intercepted customer. */
  call?: AgentCall;
}

/** A caller waiting in (or served from) a queue: mod_callcenter's `members` row. */
export interface Member {
  readonly uuid: string;
  readonly queue: string;
  /** The caller's channel (mod_callcenter's member session). */
  readonly channel: Channel;
  readonly cidName: string;
  readonly cidNumber: string;
  readonly joinedAt: number;
  state: "Waiting" | "Trying" | "Answered" | "Abandoned";
  /** Agents being offered this caller (one, or several with ring-all), by agent number. */
  readonly offers: Map<string, Offer>;
}

/** A queue call ringing at an agent. */
export interface Offer {
  readonly member: Member;
  readonly agent: Agent;
  /** The agent leg; its uuid is the callID the agent will use. */
  channel?: Channel;
  readonly calledAt: number;
  settled: boolean;
}

export type AgentCallKind =
  /** A queue call the agent answered. */
  | "queue"
  /** ccDial: the agent leg first, then the destination. */
  | "dial"
  /** A customer handed over by another agent (consultation, transfer), or taken over with ccIntercept. */
  | "handover";

/**
 * A call the engine knows an agent is in; `leg.uuid` is its callID. Its `peer` is who the agent is
 * talking to, which answers the toolbar's "who am I talking to" through agent_state.
 */
export interface AgentCall {
  readonly kind: AgentCallKind;
  readonly agent: Agent;
  /** The agent's leg (callID); a new one when the agent takes the call back after losing its phone. */
  leg: Channel;
  /** The other party: the customer, or the number dialled. Unset while a ccDial leg rings. */
  peer?: Channel;
  /** The number dialled (ccDial) or the customer's number. */
  readonly remoteNumber: string;
  readonly remoteName: string;
  readonly member?: Member;
  readonly queue?: string;
  readonly calledAt: number;
  answeredAt?: number;
  /** The agent put the call on hold (ccHold): the customer hears music. */
  held: boolean;
  /** A consultation in progress (ccConsult). */
  consult?: Consult;
  ended: boolean;
}

export interface Consult {
  /** The target's leg. */
  readonly leg: Channel;
  /** What was called: an agent number or an outside number. */
  readonly target: string;
  answered: boolean;
}
