import { randomUUID } from "node:crypto";
import type { Channel, HangupCause, OriginateTarget, Switch } from "../switch/types";
import {
  supervisionModeOfKey,
  supervisionWordOf,
  type SupervisionMode,
  type SupervisionWord,
} from "../../shared/supervision-mode";
import type { Agent, AgentCall } from "./agent";
import { controlLegHeaders } from "./agent-leg-headers";
import { sipHeaderVariablesOf } from "../switch/sip-header-variables";
import type { CallCenter } from "./call-center";
import { CcError, wrongState } from "./cc-error";

/** Where a leg the call center originates goes: a registered extension or a number. */
export type Party = { extension: string } | { number: string };

/** A supervisor's (or a PSTN number's) leg listening to, or talking in, an agent's call. */
export interface SupervisionLeg {
  /** What the leg does now; the eavesdrop keys pressed on the leg change it (supervisionModeOfKey). */
  mode: SupervisionMode;
  /** What it was asked for: ccMonitor or ccThreeWay. */
  readonly purpose: "monitor" | "three-way";
  readonly leg: Channel;
  readonly call: AgentCall;
  /** Who asked: an agent number, or the outside number for PSTN. */
  readonly by: string;
  readonly party: Party;
  /** A supervisor watching the agent (ccMonitor, or barging in from its own phone), not a party the agent asked in. */
  readonly supervising: boolean;
  /** The mode the agent was last told; undefined: not told anything (the platform does not tell, or not yet). */
  told?: SupervisionMode | "none";
  /** The call's agent leg is now `to` (a take-back): the supervision goes on there. */
  follow(from: Channel, to: Channel): void;
  stop(): void;
}

export interface CallControlEngineOptions {
  /** Agents are told when a supervisor listens, whispers or joins (the platform's tellMonitoredAgents). */
  tellAgents: boolean;
}

const targetOf = (p: Party): OriginateTarget => ("extension" in p ? { extension: p.extension } : { number: p.number });
const partyKey = (p: Party) => ("extension" in p ? `extension:${p.extension}` : `number:${p.number}`);

/**
 * What agents and supervisors do to calls: ccDial, ccAnswer, ccKill, ccHold, ccUnHold, ccTransfer,
 * ccConsult, ccCancelConsult, ccThreeWay, ccMonitor, ccIntercept. Each works through the Switch the
 * way FreeSWITCH's primitives do (originate, uuid_bridge, uuid_hold, uuid_transfer, eavesdrop,
 * intercept), so a phone sees what it would see from the real platform.
 */
export class CallControlEngine {
  private readonly supervisions = new Set<SupervisionLeg>();

  constructor(
    private readonly cc: CallCenter,
    private readonly sw: Switch,
    readonly options: CallControlEngineOptions = { tellAgents: false },
  ) {
    cc.agentLegEnded = (call, cause) => this.agentLeftConsultation(call, cause);
  }

  /**
   * ccDial: the agent's phone rings first (marked to answer by itself); once it answers, the agent
   * hears ringback while the destination is called, and the two are bridged when it answers.
   */
  dial(agent: Agent, extension: string, destination: string): AgentCall {
    const uuid = randomUUID();
    const identity = this.cc.directory.agent(agent.number);
    const leg = this.sw.originate(
      { extension },
      {
        callerIdName: destination,
        callerIdNumber: destination,
        autoAnswer: true,
        uuid,
        timeoutSeconds: this.cc.directory.settings(agent.number).timeout,
        headers: this.cc.legHeaders(controlLegHeaders({ purpose: "dial", agent: agent.number, agentUuid: uuid })),
        variables: { cc_side: "agent", cc_agent: agent.number, cc_dial_destination: destination },
      },
    );
    const call: AgentCall = {
      kind: "dial",
      agent,
      leg,
      remoteName: destination,
      remoteNumber: destination,
      calledAt: Date.now(),
      held: false,
      ended: false,
    };
    this.cc.track(call);
    leg.once("answer", () => {
      if (call.ended || leg.state === "hungup") return;
      call.answeredAt = Date.now();
      this.sw.playTone(leg, "ringback");
      const peer = this.sw.originate(
        { number: destination },
        {
          callerIdName: identity?.cidName ?? this.cc.nameOf(agent),
          callerIdNumber: identity?.cidNumber ?? agent.number,
          uuid: randomUUID(),
          variables: { cc_side: "destination", cc_agent: agent.number },
        },
      );
      call.peer = peer;
      this.cc.callChanged(call);
      peer.once("answer", () => {
        if (leg.state === "hungup") peer.hangup("ORIGINATOR_CANCEL");
        else {
          this.sw.bridge(leg, peer);
          this.cc.callChanged(call);
        }
      });
      peer.once("hangup", (cause) => {
        // Before the bridge the switch does not carry the failure over: the agent's leg ends with it.
        if (leg.state !== "hungup" && this.sw.partnerOf(leg) === undefined) leg.hangup(cause);
      });
    });
    // The agent giving up before the destination answered cancels it. Once answered, the
    // destination is a customer like any other: a hang-up of the agent's leg reaches it through its
    // bridge, and an intercept or a consultation that moved it elsewhere must leave it alone.
    leg.once("hangup", () => {
      if (call.peer && call.peer.state !== "hungup" && call.peer.state !== "answered")
        call.peer.hangup("ORIGINATOR_CANCEL");
    });
    return call;
  }

  /** ccAnswer: asks a ringing phone to answer, as uuid_phone_event talk (NOTIFY Event: talk) does. */
  answer(ch: Channel): void {
    if (ch.state !== "ringing" && ch.state !== "early") throw wrongState(`call ${ch.uuid} is not ringing`);
    if (ch.direction !== "outbound" || ch.kind !== "sip") throw wrongState(`call ${ch.uuid} is not ringing at a phone`);
    if (!this.sw.phoneEvent) throw new CcError(501, "this switch cannot ask a phone to answer; answer on the phone");
    // The NOTIFY goes in the phone's early dialog, which exists once the phone has sent 180.
    if (!this.sw.phoneEvent(ch, "talk"))
      throw wrongState(`the phone of call ${ch.uuid} cannot be asked to answer yet; answer on the phone`);
  }

  /** ccKill: ends a channel (uuid_kill). */
  kill(ch: Channel): void {
    ch.hangup("NORMAL_CLEARING");
  }

  /** ccHold: the agent's leg is held (a=sendonly to the phone) and the customer hears music. */
  async hold(call: AgentCall): Promise<void> {
    this.requireTalking(call);
    if (call.held) return;
    await this.sw.hold(call.leg);
    call.held = true;
    this.cc.callChanged(call);
  }

  async unhold(call: AgentCall): Promise<void> {
    if (call.ended) throw wrongState(`call ${call.leg.uuid} has ended`);
    if (!call.held) return;
    await this.sw.unhold(call.leg);
    call.held = false;
    this.cc.callChanged(call);
  }

  /**
   * ccTransfer: the customer goes to the destination through the dialplan (a queue, an outside
   * number, an extension of no agent's) and the agent's leg ends, as after uuid_transfer of the
   * customer leg. To an agent, see transferToAgent.
   */
  transfer(call: AgentCall, destination: string): void {
    const customer = this.requireTalking(call);
    if (call.held) {
      // The customer leaves the agent: the agent's hold (and its music) goes with the old bridge.
      call.held = false;
    }
    this.sw.transfer(customer, destination);
    this.cc.endCall(call, "NORMAL_CLEARING");
    call.leg.hangup("NORMAL_CLEARING");
  }

  /**
   * ccTransfer to an agent: a handover the platform tracks, not a plain transfer through the
   * dialplan. The customer hears ringback while the agent's phone rings with a leg that carries
   * the call-center headers (its own callID), and the agent's agent_state shows the customer from
   * the first ring, so that the agent can hold or transfer the call through the platform. The
   * transferring agent's leg ends at once, as with any ccTransfer.
   */
  transferToAgent(call: AgentCall, to: Agent, extension: string): void {
    const customer = this.requireTalking(call);
    // The agent's hold (and its music) goes with the old bridge.
    call.held = false;
    this.sw.unbridge(call.leg);
    this.sw.playTone(customer, "ringback");
    const uuid = randomUUID();
    const leg = this.sw.originate(
      { extension },
      {
        callerIdName: call.remoteName,
        callerIdNumber: call.remoteNumber,
        uuid,
        headers: this.cc.legHeaders(
          controlLegHeaders({
            purpose: "transfer",
            agent: to.number,
            agentUuid: uuid,
            targetUuid: customer.uuid,
            queue: call.queue,
          }),
        ),
        // The customer's data goes with the customer to the agent who takes the call.
        variables: { ...sipHeaderVariablesOf(customer), cc_side: "transfer", cc_agent: to.number },
      },
    );
    this.cc.endCall(call, "NORMAL_CLEARING");
    call.leg.hangup("NORMAL_CLEARING");
    const handover = this.trackHandover(to, leg, customer, call, false);
    this.handOverOnAnswer(leg, customer, call, () => {
      handover.answeredAt = Date.now();
      this.cc.handoverBridged(handover);
    });
  }

  /**
   * ccConsult: the customer hears music while the agent calls the target. The target hangs up: the
   * agent is back with the customer. The agent hangs up: the target gets the customer.
   */
  async consult(call: AgentCall, target: Party, label: string): Promise<void> {
    const customer = this.requireTalking(call);
    if (call.held) await this.unhold(call);
    this.sw.unbridge(call.leg);
    this.sw.playMusic(customer);
    this.sw.playTone(call.leg, "ringback");
    const identity = this.cc.directory.agent(call.agent.number);
    const leg = this.sw.originate(targetOf(target), {
      callerIdName: identity?.cidName ?? this.cc.nameOf(call.agent),
      callerIdNumber: identity?.cidNumber ?? call.agent.number,
      uuid: randomUUID(),
      headers: this.cc.legHeaders(
        controlLegHeaders({
          purpose: "consult",
          agent: call.agent.number,
          agentUuid: call.leg.uuid,
          targetUuid: customer.uuid,
          queue: call.queue,
        }),
      ),
      // The one consulted may be handed the customer: it sees the customer's data from the first ring.
      variables: { ...sipHeaderVariablesOf(customer), cc_side: "consult", cc_agent: call.agent.number },
    });
    const consult = { leg, target: label, answered: false };
    call.consult = consult;
    this.cc.callChanged(call);
    leg.once("answer", () => {
      if (call.consult !== consult) return;
      consult.answered = true;
      this.joinConsultation(call.leg, leg);
      this.cc.callChanged(call);
    });
    leg.once("hangup", () => {
      if (call.consult !== consult) return;
      call.consult = undefined;
      this.backToCustomer(call, customer);
    });
  }

  /** The agent's leg and the consulted party talk. Both stay up when the other hangs up: whoever remains is joined with the customer. */
  private joinConsultation(agentLeg: Channel, target: Channel): void {
    this.sw.bridge(agentLeg, target, { parkAfterBridge: "both" });
  }

  /** ccCancelConsult: the target's leg ends and the agent is back with the customer. */
  cancelConsult(call: AgentCall): void {
    const consult = call.consult;
    if (!consult) throw wrongState(`call ${call.leg.uuid} has no consultation in progress`);
    const customer = call.peer!;
    call.consult = undefined;
    consult.leg.hangup(consult.answered ? "NORMAL_CLEARING" : "ORIGINATOR_CANCEL");
    this.backToCustomer(call, customer);
  }

  private backToCustomer(call: AgentCall, customer: Channel) {
    if (call.ended || call.leg.state === "hungup") return;
    if (customer.state === "hungup") {
      call.leg.hangup("NORMAL_CLEARING");
      return;
    }
    this.sw.bridge(call.leg, customer);
    this.cc.callChanged(call);
  }

  /** The agent hung up during a consultation: the target gets the customer (now or on answer). */
  private agentLeftConsultation(call: AgentCall, cause: HangupCause): boolean {
    const consult = call.consult;
    const customer = call.peer;
    if (!consult || !customer || customer.state === "hungup" || consult.leg.state === "hungup") return false;
    call.consult = undefined;
    this.cc.endCall(call, cause);
    const handOver = () => {
      const target =
        consult.leg.kind === "sip" && consult.leg.extension ? this.agentAt(consult.leg.extension) : undefined;
      if (target && !target.call) this.trackHandover(target, consult.leg, customer, call);
    };
    if (consult.answered) {
      this.sw.bridge(consult.leg, customer);
      handOver();
    } else {
      // The target is still ringing: the customer keeps the music until it answers.
      this.handOverOnAnswer(consult.leg, customer, call, handOver);
    }
    return true;
  }

  /**
   * The customer goes to `leg` when it answers (bridged, then `onAnswer`). Meanwhile the customer
   * hanging up cancels the leg; the leg failing means nobody took the customer: back to the queue
   * it came from, or the call ends.
   */
  private handOverOnAnswer(leg: Channel, customer: Channel, from: AgentCall, onAnswer: () => void): void {
    const cancel = () => leg.hangup("ORIGINATOR_CANCEL");
    customer.once("hangup", cancel);
    leg.once("answer", () => {
      customer.off("hangup", cancel);
      this.sw.bridge(leg, customer);
      onAnswer();
    });
    leg.once("hangup", (failure) => {
      customer.off("hangup", cancel);
      if (leg.answeredAt || customer.state === "hungup") return;
      if (from.queue) this.sw.transfer(customer, from.queue);
      else customer.hangup(failure);
    });
  }

  /** ccThreeWay: the party joins the call; all three hear each other. `supervising`: a supervisor barging in. */
  threeWay(call: AgentCall, party: Party, by: string, autoAnswer: boolean, supervising = false): SupervisionLeg {
    return this.supervise(call, party, by, "barge", autoAnswer, supervising);
  }

  /** ccMonitor: the party hears the agent and the customer; neither hears it. */
  monitor(call: AgentCall, party: Party, by: string): SupervisionLeg {
    return this.supervise(call, party, by, "monitor", true, true);
  }

  /** What the agent of `call` is told a supervisor does on it now, when the platform tells agents. */
  toldSupervisionOf(call: AgentCall | undefined): { mode: SupervisionWord; by: string; by_name: string } | null {
    const s = call ? this.supervisionsOf(call).find((x) => x.told && x.told !== "none") : undefined;
    if (!s || !s.told || s.told === "none") return null;
    return { mode: supervisionWordOf(s.told), by: s.by, by_name: this.cc.directory.agent(s.by)?.name ?? s.by };
  }

  /** Tells the agent the supervisor's leg's mode, if the platform tells agents and it changed. */
  private tell(s: SupervisionLeg, mode: SupervisionMode | "none") {
    if (!this.options.tellAgents || !s.supervising || s.told === mode || (mode === "none" && s.told === undefined))
      return;
    s.told = mode;
    this.cc.supervisionChanged(s.call, mode === "none" ? mode : supervisionWordOf(mode), s.by);
  }

  /**
   * ccIntercept: the party takes the customer; the agent's leg ends with PICKED_OFF, which a phone
   * sees as BYE with `Reason: SIP;cause=200;text="Call completed elsewhere"`. A party already
   * monitoring the call takes it on the leg it listens on; otherwise its phone is called first.
   */
  intercept(call: AgentCall, party: Party, by: string, byAgent?: Agent): void {
    const customer = this.requireAnswered(call);
    const listening = [...this.supervisions].find(
      (s) => s.call === call && partyKey(s.party) === partyKey(party) && s.leg.state === "answered",
    );
    const takeOver = (leg: Channel) => {
      if (call.ended || customer.state === "hungup") {
        leg.hangup("NORMAL_CLEARING");
        return;
      }
      if (call.consult) {
        const consult = call.consult;
        call.consult = undefined;
        consult.leg.hangup(consult.answered ? "NORMAL_CLEARING" : "ORIGINATOR_CANCEL");
      }
      this.sw.unbridge(call.leg);
      this.sw.bridge(leg, customer);
      this.cc.endCall(call, "PICKED_OFF");
      call.leg.hangup("PICKED_OFF");
      if (byAgent && !byAgent.call && leg.state === "answered") this.trackHandover(byAgent, leg, customer, call);
    };
    if (listening) {
      listening.stop();
      takeOver(listening.leg);
      return;
    }
    const leg = this.originateFor(call, party, by, "intercept");
    const endIfCallEnds = () => leg.hangup("ORIGINATOR_CANCEL");
    call.leg.once("hangup", endIfCallEnds);
    leg.once("answer", () => {
      call.leg.off("hangup", endIfCallEnds);
      takeOver(leg);
    });
  }

  /**
   * An agent takes its own call back (its page reloaded, its phone's connection was lost): a new
   * leg to `extension`, answering by itself and showing the customer as the caller, takes the
   * customer over; the call goes on as the same call with the new leg as its callID, and the old
   * leg ends as picked off. Until the new leg answers the customer stays where it was (hearing
   * music while the old leg's phone is away); a call that ends meanwhile cancels the new leg. A call
   * on hold stays on hold, one in a consultation stays in it, and parties listening to it or added
   * to it stay.
   */
  takeBack(call: AgentCall, extension: string): Channel {
    this.requireAnswered(call);
    const uuid = randomUUID();
    const old = call.leg;
    const variables = Object.fromEntries([...old.variables].filter(([k]) => k.startsWith("cc_")));
    const leg = this.sw.originate(
      { extension },
      {
        callerIdName: call.remoteName,
        callerIdNumber: call.remoteNumber,
        autoAnswer: true,
        uuid,
        headers: controlLegHeaders({
          purpose: "intercept",
          agent: call.agent.number,
          agentUuid: uuid,
          targetUuid: old.uuid,
          ...(call.queue ? { queue: call.queue } : {}),
        }),
        variables: {
          ...variables,
          cc_side: variables.cc_side ?? "agent",
          cc_agent: call.agent.number,
          cc_taken_back_from: old.uuid,
        },
      },
    );
    const endIfCallEnds = () => leg.hangup("ORIGINATOR_CANCEL");
    old.once("hangup", endIfCallEnds);
    leg.once("answer", () => {
      old.off("hangup", endIfCallEnds);
      const customer = call.peer;
      if (call.ended || call.leg !== old || !customer || customer.state === "hungup") {
        leg.hangup("NORMAL_CLEARING");
        return;
      }
      this.sw.unbridge(old);
      const consult = call.consult;
      if (consult) {
        // In a consultation the new leg takes the old one's place: with the target once it has
        // answered (ringback until then), while the customer goes on hearing music.
        if (consult.answered) this.joinConsultation(leg, consult.leg);
        else this.sw.playTone(leg, "ringback");
      } else {
        // A call the agent held stays held: the new leg is held before it meets the customer, who
        // goes on hearing music and never the agent's room.
        if (call.held) void this.sw.hold(leg);
        this.sw.bridge(leg, customer);
      }
      this.cc.replaceLeg(call, leg);
      for (const supervision of this.supervisionsOf(call)) supervision.follow(old, leg);
      old.hangup("PICKED_OFF");
    });
    return leg;
  }

  /** Legs listening to or talking in calls, for agent_state of the supervisor. */
  supervisionsBy(agentNumber: string): SupervisionLeg[] {
    return [...this.supervisions].filter((s) => s.by === agentNumber && s.leg.state !== "hungup");
  }

  supervisionsOf(call: AgentCall): SupervisionLeg[] {
    return [...this.supervisions].filter((s) => s.call === call && s.leg.state !== "hungup");
  }

  private supervise(
    call: AgentCall,
    party: Party,
    by: string,
    mode: SupervisionMode,
    autoAnswer: boolean,
    supervising: boolean,
  ): SupervisionLeg {
    this.requireAnswered(call);
    const leg = this.originateFor(call, party, by, mode === "monitor" ? "monitor" : "three-way", autoAnswer);
    // The listener goes when the call it listens to ends (eavesdrop ends with its target).
    const endWithCall = () => leg.hangup("NORMAL_CLEARING");
    const supervision: SupervisionLeg = {
      mode,
      purpose: mode === "monitor" ? "monitor" : "three-way",
      leg,
      call,
      by,
      party,
      supervising,
      follow: (from, to) => {
        from.off("hangup", endWithCall);
        to.once("hangup", endWithCall);
        if (leg.state === "answered") this.sw.eavesdrop(leg, to, supervision.mode);
      },
      stop: () => {
        call.leg.off("hangup", endWithCall);
        this.supervisions.delete(supervision);
        this.tell(supervision, "none");
      },
    };
    this.supervisions.add(supervision);
    call.leg.once("hangup", endWithCall);
    leg.once("answer", () => {
      if (call.ended || call.leg.state === "hungup") leg.hangup("NORMAL_CLEARING");
      else {
        this.sw.eavesdrop(leg, call.leg, mode);
        this.tell(supervision, mode);
      }
      this.cc.events.emit("call-change", call.agent);
    });
    // The keys of FreeSWITCH's eavesdrop switch the mode without dropping anyone.
    const onDigit = (digit: string) => {
      const next = supervisionModeOfKey(digit);
      if (!next || next === supervision.mode || !this.supervisions.has(supervision) || leg.state !== "answered") return;
      if (call.ended || call.leg.state === "hungup") return;
      supervision.mode = next;
      this.sw.eavesdrop(leg, call.leg, next);
      this.tell(supervision, next);
      this.cc.events.emit("call-change", call.agent);
    };
    leg.on("dtmf", onDigit);
    leg.once("hangup", () => {
      leg.off("dtmf", onDigit);
      supervision.stop();
    });
    return supervision;
  }

  /** A leg joining an agent's call, showing that agent as the caller; a supervisor's is marked to answer by itself. */
  private originateFor(
    call: AgentCall,
    party: Party,
    by: string,
    purpose: "monitor" | "three-way" | "intercept",
    autoAnswer = true,
  ): Channel {
    const uuid = randomUUID();
    return this.sw.originate(targetOf(party), {
      callerIdName: this.cc.nameOf(call.agent),
      callerIdNumber: call.agent.number,
      autoAnswer,
      uuid,
      headers: this.cc.legHeaders(
        controlLegHeaders({ purpose, agent: by, agentUuid: uuid, targetUuid: call.leg.uuid, queue: call.queue }),
      ),
      variables: { cc_side: purpose, cc_agent: by, cc_target_agent: call.agent.number },
    });
  }

  /** The customer of `from` is now `agent`'s call (answered: bridged with it; or still ringing at its phone). */
  private trackHandover(agent: Agent, leg: Channel, customer: Channel, from: AgentCall, answered = true): AgentCall {
    const now = Date.now();
    const call: AgentCall = {
      kind: "handover",
      agent,
      leg,
      peer: customer,
      remoteName: from.remoteName,
      remoteNumber: from.remoteNumber,
      member: from.member,
      queue: from.queue,
      calledAt: now,
      ...(answered ? { answeredAt: now } : {}),
      held: false,
      ended: false,
    };
    this.cc.track(call);
    if (answered) this.cc.handoverBridged(call);
    return call;
  }

  private agentAt(extension: string): Agent | undefined {
    return (
      this.cc.knownAgents().find((a) => a.contact === extension && a.status !== "Logged Out") ??
      this.cc.agent(extension)
    );
  }

  private requireAnswered(call: AgentCall): Channel {
    if (call.ended) throw wrongState(`call ${call.leg.uuid} has ended`);
    if (call.leg.state !== "answered" || !call.peer || call.peer.state !== "answered") {
      throw wrongState(`call ${call.leg.uuid} is not connected yet`);
    }
    return call.peer;
  }

  /** The call is connected and not in a consultation: the agent is talking (or holding) the customer. */
  private requireTalking(call: AgentCall): Channel {
    const peer = this.requireAnswered(call);
    if (call.consult) throw wrongState(`call ${call.leg.uuid} is in a consultation; cancel it first`);
    return peer;
  }
}
