import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import type { SupervisionWord } from "../../shared/supervision-mode";
import type { Channel, HangupCause, Switch } from "../switch/types";
import type { Agent, AgentCall, Member, Offer } from "./agent";
import { ccEvent, epochSeconds, type CcAction, type CcEvent } from "./cc-event";
import type { CallCenterDirectory, QueueInfo, TierInfo } from "./directory";
import { agentLegHeaders, agentLegVariables } from "./agent-leg-headers";
import type { CcAgentState, CcAgentStatus } from "./vocabulary";
import { isAvailable, statusFromAgentInfo } from "./vocabulary";

/** mod_callcenter's fixed delay after an offer to an agent whose phone is not registered. */
export const NOT_REGISTERED_DELAY_SECONDS = 5;

/** The break reason given when max_no_answer puts an agent On Break. */
export const MAX_NO_ANSWER_REASON = "max-no-answer";

interface CallCenterEvents {
  event: [CcEvent];
  /** An agent's call appeared, changed (held, consulting) or ended: agent_state changed. */
  "call-change": [Agent];
}

/**
 * The queue engine, modelled on FreeSWITCH's mod_callcenter: callers dialling a queue become
 * members and hear music; members are offered, oldest first, to agents that may take calls (tier
 * in the queue, status Available or Available (On Demand), state Waiting, wrap-up time over, ready
 * time reached), one agent at a time (longest-idle-agent) or all at once (ring-all); the agent
 * leg is an INVITE to the agent's extension carrying the caller as From; on answer the caller and
 * the agent are bridged. Failed offers delay the agent (busy, reject, no answer) and enough
 * unanswered ones put it On Break. Every change fires the event mod_callcenter fires, in its order.
 *
 * The engine dispatches when something changes (a caller joins, an agent becomes ready, a call
 * ends) and when a delay runs out, rather than polling every 100 ms as mod_callcenter does.
 */
export class CallCenter {
  readonly events = new EventEmitter<CallCenterEvents>();
  private readonly agents = new Map<string, Agent>();
  private readonly members = new Map<string, Member>();
  private dispatchQueued = false;
  private wakeTimer?: ReturnType<typeof setTimeout>;
  private wakeAt = 0;
  private closed = false;
  /**
   * Consulted when an agent leg of a call in consultation ends (call control hands the customer
   * to the consulted party); returns true when it took care of the customer.
   */
  agentLegEnded?: (call: AgentCall, cause: HangupCause) => boolean;

  /** The `X-CC-*` headers of a leg to a phone, or none when the platform keeps to the spec. */
  legHeaders(headers: string[]): string[] {
    return this.sendLegHeaders ? headers : [];
  }

  constructor(
    readonly directory: CallCenterDirectory,
    readonly sw: Switch,
    /** False: legs to phones go without the `X-CC-*` headers (the spec shows none). */
    private readonly sendLegHeaders = true,
  ) {
    // Statuses survive a restart through agent_info (mod_callcenter keeps them in its database);
    // states, offers and calls do not (mod_callcenter resets them to Waiting on start too).
    for (const identity of directory.agents()) {
      const status = statusFromAgentInfo(identity.storedStatus);
      if (status !== "Logged Out") this.agent(identity.number);
    }
    sw.addRoute(
      (destination) => directory.queue(destination) !== undefined,
      (caller, destination) => this.enqueue(caller, destination),
    );
  }

  close(): void {
    this.closed = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
  }

  // ---- agents and their status ---------------------------------------------------------------

  /** The agent with this number (a user's extension number), loaded on first use. */
  agent(number: string): Agent | undefined {
    const known = this.agents.get(number);
    if (known) return known;
    const identity = this.directory.agent(number);
    if (!identity) return undefined;
    const status = statusFromAgentInfo(identity.storedStatus);
    const now = Date.now();
    const agent: Agent = {
      number,
      userId: identity.userId,
      status,
      state: "Waiting",
      breakReason: "",
      contact: number,
      // An agent signed in before a restart keeps its first queue as its group.
      group: status === "Logged Out" ? "" : (this.directory.queuesOf(number)[0] ?? ""),
      noAnswerCount: 0,
      callsAnswered: 0,
      talkTime: 0,
      lastOfferedCall: 0,
      lastBridgeStart: 0,
      lastBridgeEnd: 0,
      readyTime: 0,
      statusSince: now,
    };
    this.agents.set(number, agent);
    return agent;
  }

  /**
   * The agent's name as the platform's users say now, not when the engine loaded the agent: a
   * renamed agent shows its new name in the next report (agent_state, the legs it originates).
   */
  nameOf(agent: Agent): string {
    return this.directory.user(agent.userId)?.name ?? agent.number;
  }

  /** Agents the engine has loaded: everyone signed in, and anyone asked about since start. */
  knownAgents(): Agent[] {
    return [...this.agents.values()];
  }

  /** Signs an agent in at an extension, in a queue (its group): On Break until it goes ready. */
  signIn(agent: Agent, contact: string, group: string): void {
    agent.contact = contact;
    agent.group = group;
    if (agent.status === "Logged Out") this.setStatus(agent, "On Break", "");
    this.events.emit("call-change", agent);
  }

  /**
   * Sets an agent's status as mod_callcenter's `agent set status` does: Available resets the
   * no-answer count; any status that takes no calls cancels an offer ringing at the agent
   * (ORIGINATOR_CANCEL, no penalty). Setting an available status also ends Idle (mod_callcenter
   * needs a separate `agent set state Waiting`, which the REST API has no call for).
   */
  setStatus(agent: Agent, status: CcAgentStatus, reason = ""): void {
    const now = Date.now();
    agent.status = status;
    agent.breakReason = status === "On Break" ? reason : "";
    agent.statusSince = now;
    if (status === "Available") {
      agent.noAnswerCount = 0;
      agent.talkTime = 0;
      agent.callsAnswered = 0;
    }
    if (status === "Logged Out") agent.group = "";
    this.directory.saveStatus(agent.number, status);
    this.emit("agent-status-change", {
      "CC-Agent": agent.number,
      "CC-Agent-Status": status,
      "CC-Agent-Break-Reason": status === "On Break" ? agent.breakReason : undefined,
    });
    if (!isAvailable(status) && agent.offer?.channel && !agent.offer.settled) {
      agent.offer.channel.hangup("ORIGINATOR_CANCEL");
    }
    if (isAvailable(status) && agent.state === "Idle") this.setState(agent, "Waiting");
    this.scheduleDispatch();
  }

  private setState(agent: Agent, state: CcAgentState): void {
    agent.state = state;
    this.emit("agent-state-change", { "CC-Agent": agent.number, "CC-Agent-State": state });
  }

  // ---- members --------------------------------------------------------------------------------

  /** Callers waiting (or being offered) in a queue, oldest first. */
  waiting(queue?: string): Member[] {
    return [...this.members.values()]
      .filter((m) => (m.state === "Waiting" || m.state === "Trying") && (!queue || m.queue === queue))
      .sort((a, b) => a.joinedAt - b.joinedAt);
  }

  member(uuid: string): Member | undefined {
    return this.members.get(uuid);
  }

  /** A caller reached a queue's name: it becomes a member and hears music while it waits. */
  async enqueue(caller: Channel, queueName: string): Promise<void> {
    const queue = this.directory.queue(queueName);
    if (!queue || caller.state === "hungup") return;
    try {
      // mod_callcenter answers the member before it joins, so waiting time is billed and music flows.
      if (caller.state !== "answered") await caller.answer();
    } catch {
      return; // the caller hung up while being answered
    }
    // The await above may have let the caller hang up; TypeScript cannot know the state changed.
    if ((caller.state as Channel["state"]) === "hungup") return;
    const now = Date.now();
    const member: Member = {
      uuid: randomUUID(),
      queue: queue.name,
      channel: caller,
      cidName: caller.callerIdName,
      cidNumber: caller.callerIdNumber,
      joinedAt: now,
      state: "Waiting",
      offers: new Map(),
    };
    this.members.set(member.uuid, member);
    caller.variables.set("cc_side", "member");
    caller.variables.set("cc_member_uuid", member.uuid);
    caller.variables.set("cc_queue", queue.name);
    caller.variables.set("cc_queue_joined_epoch", epochSeconds(now));
    caller.on("hangup", (cause) => this.memberHungUp(member, cause));
    this.sw.playMusic(caller);
    this.emit("member-queue-start", { "CC-Queue": queue.name, ...memberHeaders(member) });
    this.emitMembersCount(queue.name);
    this.scheduleDispatch();
  }

  private memberHungUp(member: Member, cause: HangupCause): void {
    if (member.state === "Waiting" || member.state === "Trying") {
      this.abandon(member, "BREAK_OUT");
      return;
    }
    // An answered member hanging up ends its agent's call.
    const call = this.callOfMember(member);
    if (call) this.endCall(call, cause);
  }

  /** A caller left the queue before an agent answered: mod_callcenter's abandoned member. */
  private abandon(member: Member, reason: string): void {
    const now = Date.now();
    member.state = "Abandoned";
    this.members.delete(member.uuid);
    member.channel.variables.set("cc_queue_canceled_epoch", epochSeconds(now));
    member.channel.variables.set("cc_cause", "cancel");
    member.channel.variables.set("cc_cancel_reason", reason);
    this.emit("member-queue-end", {
      "CC-Queue": member.queue,
      "CC-Member-Leaving-Time": epochSeconds(now),
      "CC-Member-Joined-Time": epochSeconds(member.joinedAt),
      "CC-Cause": "Cancel",
      "CC-Cancel-Reason": reason,
      ...memberHeaders(member),
    });
    for (const offer of member.offers.values()) offer.channel?.hangup("ORIGINATOR_CANCEL");
    this.emitMembersCount(member.queue);
  }

  private emitMembersCount(queue: string): void {
    this.emit("members-count", {
      "CC-Queue": queue,
      "CC-Count": String(this.waiting(queue).length),
      "CC-Selection": "Single-Queue",
    });
  }

  // ---- dispatch -------------------------------------------------------------------------------

  /** Runs a dispatch pass once the current work is done (several changes make one pass). */
  scheduleDispatch(): void {
    if (this.dispatchQueued || this.closed) return;
    this.dispatchQueued = true;
    queueMicrotask(() => {
      this.dispatchQueued = false;
      if (!this.closed) this.dispatch();
    });
  }

  private dispatch(): void {
    const now = Date.now();
    let nextWake = Infinity;
    for (const member of this.waiting()) {
      const queue = this.directory.queue(member.queue);
      if (!queue) continue;
      // ring-all keeps adding agents that become free while the member is being offered.
      if (member.state === "Trying" && queue.strategy !== "ring-all") continue;
      for (const { agent } of this.candidates(queue)) {
        if (member.state === "Answered" || member.state === "Abandoned") break;
        if (member.offers.has(agent.number)) continue;
        const readyAt = this.readyAt(agent);
        if (readyAt === undefined) continue;
        if (readyAt > now) {
          nextWake = Math.min(nextWake, readyAt);
          continue;
        }
        this.offer(member, agent, queue);
        if (queue.strategy !== "ring-all") break;
      }
    }
    this.wakeUpAt(nextWake);
  }

  /** Agents of a queue that may be offered calls, in the strategy's order. */
  private candidates(queue: QueueInfo): { agent: Agent; tier: TierInfo }[] {
    const list = this.directory
      .tiersOf(queue.name)
      .map((tier) => ({ tier, agent: this.agent(tier.agent) }))
      .filter((c): c is { tier: TierInfo; agent: Agent } => c.agent !== undefined && isAvailable(c.agent.status));
    if (queue.strategy === "ring-all") {
      return list.sort((a, b) => a.tier.level - b.tier.level || a.tier.position - b.tier.position);
    }
    return list.sort(
      (a, b) =>
        a.tier.level - b.tier.level ||
        a.agent.lastOfferedCall - b.agent.lastOfferedCall ||
        a.tier.position - b.tier.position,
    );
  }

  /**
   * When an available agent may next be offered a call, or undefined while it cannot be at all
   * (not Waiting, on a call, its phone busy). mod_callcenter's conditions: wrap-up time passed
   * since the last queue call, ready time (busy/reject/no-answer delay) reached.
   */
  private readyAt(agent: Agent): number | undefined {
    if (agent.state !== "Waiting" || agent.offer || agent.call) return undefined;
    if (this.phoneBusy(agent)) return undefined;
    const { wrapUpTime } = this.directory.settings(agent.number);
    return Math.max(agent.lastBridgeEnd ? agent.lastBridgeEnd + wrapUpTime * 1000 : 0, agent.readyTime);
  }

  /**
   * An agent whose phone is in another call (dialled from the phone itself, say) is skipped, as
   * mod_callcenter does with its "no external calls" check.
   */
  private phoneBusy(agent: Agent): boolean {
    return this.sw
      .channels()
      .some((ch) => ch.kind === "sip" && ch.extension === agent.contact && ch.state !== "hungup");
  }

  private wakeUpAt(at: number): void {
    if (at === Infinity || this.closed) return;
    if (this.wakeTimer && this.wakeAt <= at) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.dispatch();
      },
      Math.max(0, at - Date.now()),
    );
  }

  // ---- offers ---------------------------------------------------------------------------------

  private offer(member: Member, agent: Agent, queue: QueueInfo): void {
    const now = Date.now();
    const offer: Offer = { member, agent, calledAt: now, settled: false };
    agent.offer = offer;
    agent.lastOfferedCall = now;
    member.state = "Trying";
    member.offers.set(agent.number, offer);
    this.setState(agent, "Receiving");
    this.emit("agent-offering", {
      "CC-Queue": queue.name,
      "CC-Agent": agent.number,
      "CC-Agent-Type": "callback",
      "CC-Agent-System": "single_box",
      ...memberHeaders(member),
      "CC-Member-DNIS": member.channel.destinationNumber,
    });
    const uuid = randomUUID();
    const settings = this.directory.settings(agent.number);
    let leg: Channel;
    try {
      leg = this.sw.originate(
        { extension: agent.contact },
        {
          callerIdName: member.cidName,
          callerIdNumber: member.cidNumber,
          timeoutSeconds: settings.timeout,
          uuid,
          headers: this.legHeaders(
            agentLegHeaders({ queue: queue.name, member, agentUuid: uuid, agent: agent.number }),
          ),
          variables: agentLegVariables({ queue: queue.name, member, agent: agent.number }),
        },
      );
    } catch {
      this.offerFailed(offer, "USER_NOT_REGISTERED");
      return;
    }
    offer.channel = leg;
    this.events.emit("call-change", agent);
    leg.once("answer", () => this.offerAnswered(offer));
    leg.once("hangup", (cause) => {
      if (!offer.settled) this.offerFailed(offer, cause);
    });
  }

  private offerAnswered(offer: Offer): void {
    const { member, agent } = offer;
    const leg = offer.channel!;
    if (offer.settled) return;
    if (member.state !== "Trying" || member.channel.state === "hungup") {
      // The caller is gone or another agent won: this leg has nobody to talk to.
      leg.hangup(member.state === "Answered" ? "LOSE_RACE" : "ORIGINATOR_CANCEL");
      return;
    }
    const now = Date.now();
    offer.settled = true;
    agent.offer = undefined;
    member.offers.delete(agent.number);
    member.state = "Answered";
    // ring-all: the others stop ringing; their phones see "Call completed elsewhere".
    for (const other of member.offers.values()) other.channel?.hangup("LOSE_RACE");

    const call: AgentCall = {
      kind: "queue",
      agent,
      leg,
      peer: member.channel,
      remoteName: member.cidName,
      remoteNumber: member.cidNumber,
      member,
      queue: member.queue,
      calledAt: offer.calledAt,
      answeredAt: now,
      held: false,
      ended: false,
    };
    agent.call = call;
    agent.callsAnswered++;
    agent.noAnswerCount = 0;
    agent.lastBridgeStart = now;
    this.followLeg(call, leg);

    this.emit("bridge-agent-start", bridgeHeaders(call, member, now));
    member.channel.variables.set("cc_agent", agent.number);
    member.channel.variables.set("cc_agent_uuid", leg.uuid);
    member.channel.variables.set("cc_queue_answered_epoch", epochSeconds(now));
    member.channel.variables.set("cc_cause", "answered");
    this.setState(agent, "In a queue call");
    this.sw.bridge(member.channel, leg);
    this.emitMembersCount(member.queue);
    this.events.emit("call-change", agent);
  }

  /** mod_callcenter's handling of an offer that ended without an answer (its table of causes). */
  private offerFailed(offer: Offer, cause: HangupCause): void {
    const { member, agent } = offer;
    const now = Date.now();
    offer.settled = true;
    if (agent.offer === offer) agent.offer = undefined;
    member.offers.delete(agent.number);
    if (member.state === "Trying" && member.offers.size === 0) member.state = "Waiting";

    const settings = this.directory.settings(agent.number);
    let delay = 0;
    switch (cause) {
      case "ORIGINATOR_CANCEL":
      case "LOSE_RACE":
        break;
      case "USER_BUSY":
      case "NORMAL_TEMPORARY_FAILURE":
        delay = settings.busyDelayTime;
        break;
      case "CALL_REJECTED":
        delay = settings.rejectDelayTime;
        break;
      case "USER_NOT_REGISTERED":
        delay = NOT_REGISTERED_DELAY_SECONDS;
        break;
      default:
        delay = settings.noAnswerDelayTime;
        agent.noAnswerCount++;
        if (settings.maxNoAnswer > 0 && agent.noAnswerCount >= settings.maxNoAnswer) {
          this.emit("agent-max-no-answer", {
            "CC-Agent": agent.number,
            "CC-Agent-No-Answer-Count": String(agent.noAnswerCount),
            "CC-Agent-No-Answer-Status": "On Break",
          });
          this.setStatus(agent, "On Break", MAX_NO_ANSWER_REASON);
        }
    }
    if (delay > 0) agent.readyTime = Math.max(agent.readyTime, now + delay * 1000);

    this.emit("bridge-agent-fail", {
      "CC-Queue": member.queue,
      "CC-Hangup-Cause": cause,
      "CC-Agent": agent.number,
      "CC-Agent-System": "single_box",
      "CC-Agent-Called-Time": epochSeconds(offer.calledAt),
      "CC-Agent-Aborted-Time": epochSeconds(now),
      ...memberHeaders(member),
    });
    this.setState(agent, agent.status === "Available (On Demand)" ? "Idle" : "Waiting");
    this.events.emit("call-change", agent);
    this.scheduleDispatch();
  }

  // ---- calls ----------------------------------------------------------------------------------

  /** Starts tracking a call an agent is in that the engine did not offer (ccDial, ccIntercept). */
  track(call: AgentCall): void {
    call.agent.call = call;
    this.followLeg(call, call.leg);
    this.events.emit("call-change", call.agent);
  }

  /** The call goes on with a new agent leg (the agent took it back on a fresh leg); the old one's end no longer ends it. */
  replaceLeg(call: AgentCall, leg: Channel): void {
    call.leg = leg;
    this.followLeg(call, leg);
    this.events.emit("call-change", call.agent);
  }

  private followLeg(call: AgentCall, leg: Channel): void {
    leg.on("hangup", (cause) => {
      if (call.leg === leg) this.agentLegHungUp(call, cause);
    });
  }

  /** The call whose agent leg or other party has this channel uuid (the spec's callID). */
  callByUuid(uuid: string): AgentCall | undefined {
    for (const agent of this.agents.values()) {
      const call = agent.call;
      if (call && !call.ended && (call.leg.uuid === uuid || call.peer?.uuid === uuid)) return call;
    }
    return undefined;
  }

  calls(): AgentCall[] {
    return [...this.agents.values()].flatMap((a) => (a.call && !a.call.ended ? [a.call] : []));
  }

  private callOfMember(member: Member): AgentCall | undefined {
    return this.calls().find((c) => c.member === member);
  }

  /**
   * A queue's customer handed over to this agent (consult, transfer to an agent, intercept) is now
   * bridged with it. mod_callcenter never bridged this agent, but its bridge-agent-start, with the
   * member's headers, tells the agent's toolbar at once whom it talks to and that the call ends
   * in after-call work; bridge-agent-end follows when it ends (see endCall).
   */
  handoverBridged(call: AgentCall): void {
    if (call.member) this.emit("bridge-agent-start", bridgeHeaders(call, call.member, call.answeredAt ?? Date.now()));
    this.events.emit("call-change", call.agent);
  }

  /** Something about a call changed (held, consulting): tell agent_state watchers. */
  callChanged(call: AgentCall): void {
    this.events.emit("call-change", call.agent);
  }

  private agentLegHungUp(call: AgentCall, cause: HangupCause): void {
    if (call.ended) return;
    if (call.consult && this.agentLegEnded?.(call, cause)) return;
    this.endCall(call, cause);
  }

  /**
   * The agent's part in a call is over (a hang-up on either side, a transfer, an intercept). For a
   * queue call this is mod_callcenter's end of bridge: bridge-agent-end, member-queue-end, and the
   * agent back to Waiting (Idle when Available (On Demand)) with wrap-up time starting. A queue's
   * customer handed over to this agent (consult, transfer, intercept) is a queue call for it too:
   * its bridge ends as it started (handoverBridged) and its wrap-up time starts; the member left
   * its queue with the first agent's call, and this agent's state was never changed for it.
   */
  endCall(call: AgentCall, cause: HangupCause): void {
    if (call.ended) return;
    call.ended = true;
    const { agent } = call;
    if (agent.call === call) agent.call = undefined;
    const member = call.member;
    if (member && (call.kind === "queue" || (call.kind === "handover" && call.answeredAt))) {
      const now = Date.now();
      agent.lastBridgeEnd = now;
      const bridge = { ...bridgeHeaders(call, member, now), "CC-Hangup-Cause": cause };
      this.emit("bridge-agent-end", {
        ...bridge,
        "CC-Bridge-Terminated-Time": epochSeconds(now),
        "CC-Agent-Bridged": "true",
      });
      if (call.kind === "queue") {
        agent.talkTime += Math.round((now - (call.answeredAt ?? now)) / 1000);
        this.members.delete(member.uuid);
        member.channel.variables.set("cc_queue_terminated_epoch", epochSeconds(now));
        this.emit("member-queue-end", {
          ...bridge,
          "CC-Cause": "Terminated",
          "CC-Member-Leaving-Time": epochSeconds(now),
        });
        this.setState(agent, agent.status === "Available (On Demand)" ? "Idle" : "Waiting");
      }
    }
    this.events.emit("call-change", agent);
    this.scheduleDispatch();
  }

  /**
   * Tells an agent what a supervisor's leg does on its call, in the event's documented words
   * (`none`: it left), when the platform tells agents. Only the agent (and supervisors, who see
   * every event) get it: it names no queue.
   */
  supervisionChanged(call: AgentCall, mode: SupervisionWord | "none", by: string): void {
    this.emit("agent-supervision", {
      "CC-Agent": call.agent.number,
      "CC-Agent-UUID": call.leg.uuid,
      "CC-Supervision-Mode": mode,
      "CC-Supervisor": by,
      "CC-Supervisor-Name": this.directory.agent(by)?.name ?? by,
    });
  }

  private emit(action: CcAction, headers: Record<string, string | undefined>): void {
    this.events.emit("event", ccEvent(action, headers));
  }
}

/** mod_callcenter's headers of an agent's bridge with a queue's customer (bridge-agent-start, -end, member-queue-end). */
function bridgeHeaders(call: AgentCall, member: Member, now: number) {
  return {
    "CC-Queue": member.queue,
    "CC-Agent": call.agent.number,
    "CC-Agent-System": "single_box",
    "CC-Agent-UUID": call.leg.uuid,
    "CC-Agent-Called-Time": epochSeconds(call.calledAt),
    "CC-Agent-Answered-Time": epochSeconds(call.answeredAt ?? now),
    "CC-Member-Joined-Time": epochSeconds(member.joinedAt),
    ...memberHeaders(member),
  };
}

function memberHeaders(member: Member) {
  return {
    "CC-Member-UUID": member.uuid,
    "CC-Member-Session-UUID": member.channel.uuid,
    "CC-Member-CID-Name": member.cidName,
    "CC-Member-CID-Number": member.cidNumber,
  };
}
