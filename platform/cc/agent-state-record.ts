import type { SupervisionWord } from "../../shared/supervision-mode";
import { timestamp } from "../store/db";
import type { Channel, Switch } from "../switch/types";
import type { Agent } from "./agent";
import type { CallControlEngine } from "./call-control";
import type { AgentSettings, QueueInfo } from "./directory";
import type { CcAgentState, CcAgentStatus, CcCallState } from "./vocabulary";
import { xswitchState } from "./vocabulary";

/** The call an agent_state record describes: who the agent is talking to, and the uuids to act on. */
export interface AgentStateCall {
  /** The agent's leg: the callID of ccHold, ccTransfer, ccConsult ... */
  uuid: string;
  kind: "queue" | "dial" | "handover" | "monitor" | "three-way" | "direct";
  /** inbound: the call came to the agent; outbound: the agent called out. */
  direction: "inbound" | "outbound";
  queue: string;
  member_uuid: string;
  /** The other party's leg (the customer, the number dialled); '' while it is not there yet. */
  customer_uuid: string;
  /** Who the agent is talking to. */
  cid_name: string;
  cid_number: string;
  answered: boolean;
  held: boolean;
  consult: { uuid: string; target: string; answered: boolean } | null;
}

/**
 * One row of GET /api/cc/agent_state. The spec's fields (agent_id, extn, group_id, queue_id,
 * agent_uuid, state, callstate) in XSwitch's vocabulary, then mod_callcenter's own values and the
 * current call, so the toolbar can show status, break reason, wrap-up and the caller.
 */
export interface AgentStateRecord {
  agent_id: string;
  extn: string;
  group_id: string;
  queue_id: string;
  agent_uuid: string;
  state: "READY" | "UNREADY" | "LOGOUT";
  callstate: CcCallState;
  name: string;
  status: CcAgentStatus;
  cc_state: CcAgentState;
  reason: string;
  status_since: string;
  no_answer_count: number;
  /** When the next offer may come: after a busy/reject/no-answer delay or wrap-up; '' when not delayed. */
  ready_time: string;
  wrap_up_until: string;
  call: AgentStateCall | null;
  /**
   * The local platform's addition, present only when it tells agents (tellMonitoredAgents): a
   * supervisor's leg on this agent's call and what it does, in the platform's documented words
   * (`listen`, `whisper`, `whisper-partner`, `three-way`: shared/supervision-mode.ts), or null.
   */
  supervision?: { mode: SupervisionWord; by: string; by_name: string } | null;
}

export function agentStateRecord(o: {
  agent: Agent;
  /** The agent's name now (CallCenter.nameOf). */
  name: string;
  queue?: QueueInfo;
  settings: AgentSettings;
  sw: Switch;
  control: CallControlEngine;
  now?: number;
}): AgentStateRecord {
  const { agent } = o;
  const now = o.now ?? Date.now();
  const wrapUpUntil = agent.lastBridgeEnd ? agent.lastBridgeEnd + o.settings.wrapUpTime * 1000 : 0;
  const call = currentCall(agent, o.sw, o.control);
  return {
    agent_id: agent.number,
    extn: agent.contact,
    group_id: agent.group,
    queue_id: o.queue ? String(o.queue.id) : "",
    agent_uuid: call?.record.uuid ?? "",
    state: xswitchState(agent.status),
    callstate: call?.callstate ?? "IDLE",
    name: o.name,
    status: agent.status,
    cc_state: agent.state,
    reason: agent.breakReason,
    status_since: timestamp(new Date(agent.statusSince)),
    no_answer_count: agent.noAnswerCount,
    ready_time: agent.readyTime > now ? timestamp(new Date(agent.readyTime)) : "",
    wrap_up_until: wrapUpUntil > now ? timestamp(new Date(wrapUpUntil)) : "",
    call: call?.record ?? null,
    ...(o.control.options.tellAgents ? { supervision: o.control.toldSupervisionOf(agent.call) } : {}),
  };
}

function currentCall(
  agent: Agent,
  sw: Switch,
  control: CallControlEngine,
): { record: AgentStateCall; callstate: CcCallState } | undefined {
  const offer = agent.offer;
  if (offer?.channel && !offer.settled) {
    return {
      callstate: "RINGING",
      record: {
        uuid: offer.channel.uuid,
        kind: "queue",
        direction: "inbound",
        queue: offer.member.queue,
        member_uuid: offer.member.uuid,
        customer_uuid: offer.member.channel.uuid,
        cid_name: offer.member.cidName,
        cid_number: offer.member.cidNumber,
        answered: false,
        held: false,
        consult: null,
      },
    };
  }
  const call = agent.call;
  if (call && !call.ended) {
    const answered = call.leg.state === "answered";
    let callstate: CcCallState = "TALKING";
    if (!answered) callstate = "RINGING";
    else if (call.kind === "dial" && call.peer?.state !== "answered") callstate = "DIALING";
    else if (call.consult) callstate = "CONSULTING";
    else if (call.held) callstate = "HOLD";
    return {
      callstate,
      record: {
        uuid: call.leg.uuid,
        kind: call.kind,
        direction: call.kind === "dial" ? "outbound" : "inbound",
        queue: call.queue ?? "",
        member_uuid: call.member?.uuid ?? "",
        customer_uuid: call.peer?.uuid ?? "",
        cid_name: call.remoteName,
        cid_number: call.remoteNumber,
        answered,
        held: call.held,
        consult: call.consult
          ? { uuid: call.consult.leg.uuid, target: call.consult.target, answered: call.consult.answered }
          : null,
      },
    };
  }
  const supervision = control.supervisionsBy(agent.number)[0];
  if (supervision) {
    const customer = supervision.call.peer;
    return {
      callstate:
        supervision.leg.state !== "answered" ? "RINGING" : supervision.mode === "barge" ? "TALKING" : "MONITORING",
      record: {
        uuid: supervision.leg.uuid,
        kind: supervision.purpose,
        direction: "inbound",
        queue: supervision.call.queue ?? "",
        member_uuid: supervision.call.member?.uuid ?? "",
        customer_uuid: customer?.uuid ?? "",
        cid_name: supervision.call.remoteName,
        cid_number: supervision.call.remoteNumber,
        answered: supervision.leg.state === "answered",
        held: false,
        consult: null,
      },
    };
  }
  const direct = sw
    .channels()
    .find((ch) => ch.kind === "sip" && ch.extension === agent.contact && ch.state !== "hungup");
  if (direct) return directCall(direct, sw);
  return undefined;
}

/** A call the phone made or received outside the call center: still worth showing who it is with. */
function directCall(leg: Channel, sw: Switch): { record: AgentStateCall; callstate: CcCallState } {
  const partner = sw.partnerOf(leg);
  // A phone's own call comes into the switch (inbound leg): the other party is what it dialled.
  const outbound = leg.direction === "inbound";
  return {
    callstate: leg.state === "answered" ? "TALKING" : "RINGING",
    record: {
      uuid: leg.uuid,
      kind: "direct",
      direction: outbound ? "outbound" : "inbound",
      queue: "",
      member_uuid: "",
      customer_uuid: partner?.uuid ?? "",
      cid_name: outbound ? (partner?.callerIdName ?? leg.destinationNumber) : leg.callerIdName,
      cid_number: outbound ? leg.destinationNumber : leg.callerIdNumber,
      answered: leg.state === "answered",
      held: false,
      consult: null,
    },
  };
}
