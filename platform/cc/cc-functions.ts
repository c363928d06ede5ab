import { Ajv, type ValidateFunction } from "ajv";
import { describeSchemaError } from "../schema-error";
import type { Channel, Switch } from "../switch/types";
import type { Agent, AgentCall } from "./agent";
import { DIALABLE, parseAgentAddress } from "./agent-address";
import { agentStateRecord, type AgentStateRecord } from "./agent-state-record";
import type { PlatformProfile } from "../profile";
import type { CallCenter } from "./call-center";
import type { CallControlEngine, Party } from "./call-control";
import { CcError, NOT_SIGNED_IN_DIAL, badRequest, noPermission, notFound, wrongState } from "./cc-error";
import { isSupervisor, mayActOn, type CcCaller } from "./cc-caller";

/** The spec's success envelope; `data` carries the uuids a client needs next (ccDial's callID). */
export interface CcEnvelope {
  code: number;
  message: string;
  data?: unknown;
}

const text = { type: ["string", "integer"], maxLength: 128 } as const;
const nonEmpty = { type: ["string", "integer"], minLength: 1, maxLength: 128 } as const;
const uuid = { type: "string", minLength: 1, maxLength: 64 } as const;

const body = (required: string[], properties: Record<string, object>) =>
  ({ type: "object", additionalProperties: false, required, properties }) as const;

/** Bodies of the spec's `POST /api/cc/ccc/<func>`; the same objects are jsapi's `data.data`. */
const SCHEMAS = {
  ccLogin: body(["agent", "extn", "queue"], { agent: nonEmpty, extn: nonEmpty, queue: nonEmpty }),
  ccLogout: body(["agent"], { agent: nonEmpty, queue: text }),
  ccGoReady: body(["agent"], {
    agent: nonEmpty,
    queue: text,
    onDemand: { type: ["boolean", "string"], enum: [true, false, "true", "false"] },
  }),
  ccGoBreak: body(["agent"], { agent: nonEmpty, queue: text, reason: { type: "string", maxLength: 200 } }),
  ccDial: body(["agent", "destNumber"], { agent: nonEmpty, extn: text, destNumber: nonEmpty }),
  ccAnswer: body(["destUUID"], { destUUID: uuid }),
  ccKill: body(["destUUID"], { destUUID: uuid }),
  ccHold: body(["callID"], { callID: uuid }),
  ccUnHold: body(["callID"], { callID: uuid }),
  ccTransfer: body(["callID", "destNumber"], { callID: uuid, destNumber: nonEmpty }),
  ccThreeWay: body(["callID", "destAgent"], { agent: text, callID: uuid, destAgent: nonEmpty, destExtn: text }),
  ccMonitor: body(["agent", "destUUID"], { agent: nonEmpty, extn: text, destAgent: text, destUUID: uuid }),
  ccIntercept: body(["agent", "destUUID"], { agent: nonEmpty, extn: text, destAgent: text, destUUID: uuid }),
  ccConsult: body(["agent", "callID", "destAgent"], {
    agent: nonEmpty,
    destAgent: nonEmpty,
    destExtn: text,
    callID: uuid,
  }),
  ccCancelConsult: body(["callID"], { callID: uuid }),
} as const;

export type CcFunctionName = keyof typeof SCHEMAS;
export const CC_FUNCTIONS = Object.keys(SCHEMAS) as CcFunctionName[];

type Body = Record<string, string | number | boolean | undefined>;

const ajv = new Ajv({
  allowUnionTypes: true,
  allErrors: false,
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
});
const validators = Object.fromEntries(
  Object.entries(SCHEMAS).map(([name, schema]) => [name, ajv.compile(schema)]),
) as Record<CcFunctionName, ValidateFunction>;

const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v).trim());

/**
 * The call-center functions of the spec, one implementation behind both transports: REST
 * (`POST /api/cc/ccc/<func>`, `GET /api/cc/agent_state`) and the JSON-RPC channel (`jsapi` with
 * `{command:'lua', data:{method:'ccc', func, data}}`). Each validates its body, resolves the agent,
 * queue or call it names (refusing unknown ones before changing anything), checks that the caller
 * may act on it, then acts.
 */
/** One waiting caller of `GET /api/cc/queue_members` (mod_callcenter's member fields). */
export interface QueueMemberRecord {
  uuid: string;
  session_uuid: string;
  queue: string;
  cid_number: string;
  cid_name: string;
  /** Epoch seconds (a zone-free time, unlike the platform's stamps). */
  joined_epoch: number;
  /** `Waiting`, or `Trying` while an agent is offered it. */
  state: string;
}

export class CcService {
  constructor(
    private readonly cc: CallCenter,
    private readonly control: CallControlEngine,
    private readonly sw: Switch,
    /** False while no soft-switch runs: functions that need calls answer 503. */
    private readonly switchRunning = true,
    private readonly profile: PlatformProfile = "full",
  ) {}

  isFunction(name: string): name is CcFunctionName {
    return Object.hasOwn(SCHEMAS, name);
  }

  /** Runs a function; never throws: refusals come back as `{code, message}`. */
  async run(func: string, input: unknown, caller: CcCaller): Promise<CcEnvelope> {
    try {
      if (!this.isFunction(func)) throw notFound(`unknown call-center function '${func}'`);
      const validate = validators[func];
      const data = input ?? {};
      if (!validate(data)) throw badRequest(describeSchemaError(validate.errors ?? [], "body"));
      const result = await this.dispatch(func, data as Body, caller);
      // The spec shows every function answering `{code:200, message:'success'}`, nothing more.
      return result === undefined || this.profile === "spec-minimal"
        ? { code: 200, message: "success" }
        : { code: 200, message: "success", data: result };
    } catch (e) {
      if (e instanceof CcError) return { code: e.code, message: e.message };
      throw e;
    }
  }

  private dispatch(func: CcFunctionName, b: Body, caller: CcCaller): Promise<unknown> | unknown {
    switch (func) {
      case "ccLogin":
        return this.login(b, caller);
      case "ccLogout": {
        const agent = this.ownAgent(b.agent, caller, b.queue);
        this.cc.setStatus(agent, "Logged Out");
        return undefined;
      }
      case "ccGoReady": {
        const agent = this.signedInAgent(b.agent, caller, b.queue);
        this.cc.setStatus(agent, b.onDemand === true || b.onDemand === "true" ? "Available (On Demand)" : "Available");
        return undefined;
      }
      case "ccGoBreak": {
        const agent = this.signedInAgent(b.agent, caller, b.queue);
        this.cc.setStatus(agent, "On Break", str(b.reason));
        return undefined;
      }
      case "ccDial":
        return this.dial(b, caller);
      case "ccAnswer": {
        const ch = this.channelFor(str(b.destUUID), caller);
        this.control.answer(ch);
        return undefined;
      }
      case "ccKill": {
        const ch = this.channelFor(str(b.destUUID), caller);
        this.control.kill(ch);
        return undefined;
      }
      case "ccHold":
        return this.control.hold(this.ownCall(str(b.callID), caller)).then(() => undefined);
      case "ccUnHold":
        return this.control.unhold(this.ownCall(str(b.callID), caller)).then(() => undefined);
      case "ccTransfer":
        return this.transfer(b, caller);
      case "ccConsult":
        return this.consult(b, caller);
      case "ccCancelConsult":
        this.control.cancelConsult(this.ownCall(str(b.callID), caller));
        return undefined;
      case "ccThreeWay":
        return this.threeWay(b, caller);
      case "ccMonitor":
      case "ccIntercept":
        return this.supervise(func, b, caller);
    }
  }

  // ---- agents ---------------------------------------------------------------------------------

  /** The agent named by `agent` (number or `<group>.<number>`), which the caller may act on. */
  private ownAgent(value: unknown, caller: CcCaller, queue?: unknown): Agent {
    const address = parseAgentAddress(str(value), "agent");
    if (address.kind === "pstn") throw badRequest("field 'agent' must name an agent here, not PSTN");
    if (address.group !== undefined && !this.cc.directory.queue(address.group))
      throw notFound(`group '${address.group}' not found`);
    if (str(queue) && !this.cc.directory.queue(str(queue))) throw notFound(`queue '${str(queue)}' not found`);
    const agent = this.cc.agent(address.number);
    if (!agent) throw notFound(`agent '${address.number}' not found`);
    if (!mayActOn(caller, agent.number))
      throw noPermission(`an agent may act only on itself, not on agent ${agent.number}`);
    return agent;
  }

  private signedInAgent(value: unknown, caller: CcCaller, queue?: unknown): Agent {
    const agent = this.ownAgent(value, caller, queue);
    if (agent.status === "Logged Out")
      throw wrongState(`agent ${agent.number} is not signed in; sign in with ccLogin first`);
    return agent;
  }

  private login(b: Body, caller: CcCaller) {
    const agent = this.ownAgent(b.agent, caller);
    const queue = this.cc.directory.queue(str(b.queue));
    if (!queue) throw notFound(`queue '${str(b.queue)}' not found`);
    // Membership is the platform's (the queue's tiers, GET /api/users/<id>/queue/name): an agent
    // joins its own queues only. Supervisors and administrators, who see every queue, choose.
    if (!isSupervisor(caller) && !this.cc.directory.queuesOf(agent.number).includes(queue.name)) {
      throw noPermission(`queue ${queue.name} does not list agent ${agent.number}`);
    }
    const extn = str(b.extn);
    if (!this.cc.directory.extension(extn)) throw notFound(`extension '${extn}' not found`);
    if (!isSupervisor(caller) && !caller.extensions.includes(extn)) {
      throw noPermission(`extension ${extn} is not one of yours`);
    }
    const holder = this.cc.knownAgents().find((a) => a !== agent && a.contact === extn && a.status !== "Logged Out");
    if (holder) throw wrongState(`extension ${extn} is in use by agent ${holder.number}`);
    this.cc.signIn(agent, extn, queue.name);
    return undefined;
  }

  // ---- calls ----------------------------------------------------------------------------------

  private requireSwitch() {
    if (!this.switchRunning) throw new CcError(503, "the soft-switch is not running");
  }

  private dial(b: Body, caller: CcCaller) {
    const agent = this.ownAgent(b.agent, caller);
    if (agent.status === "Logged Out") throw wrongState(NOT_SIGNED_IN_DIAL);
    const destination = str(b.destNumber);
    if (!DIALABLE.test(destination)) throw badRequest("field 'destNumber' has an invalid format");
    const extn = str(b.extn) || agent.contact;
    if (!this.cc.directory.extension(extn)) throw notFound(`extension '${extn}' not found`);
    if (extn !== agent.contact && !isSupervisor(caller) && !caller.extensions.includes(extn)) {
      throw noPermission(`extension ${extn} is not one of yours`);
    }
    if (agent.call || agent.offer) throw wrongState(`agent ${agent.number} is already in a call`);
    this.requireSwitch();
    const call = this.control.dial(agent, extn, destination);
    return { callID: call.leg.uuid };
  }

  /** The call a callID names (the agent's leg, or the other party's), which the caller may act on. */
  private ownCall(callID: string, caller: CcCaller): AgentCall {
    const call = this.cc.callByUuid(callID);
    if (!call) throw notFound(`call '${callID}' not found`);
    if (!mayActOn(caller, call.agent.number)) throw noPermission(`call ${callID} is agent ${call.agent.number}'s`);
    this.requireSwitch();
    return call;
  }

  /** A live channel the caller may answer or end: its own phone's leg, or a leg of its calls. */
  private channelFor(uuid: string, caller: CcCaller): Channel {
    const ch = this.sw.channel(uuid);
    if (!ch || ch.state === "hungup") throw notFound(`call '${uuid}' not found`);
    if (isSupervisor(caller)) return ch;
    const mine =
      (ch.extension !== undefined && caller.extensions.includes(ch.extension)) || this.ownsCallWith(ch, caller);
    if (!mine) throw noPermission(`call ${uuid} is not one of yours`);
    return ch;
  }

  private ownsCallWith(ch: Channel, caller: CcCaller): boolean {
    const call = this.cc.callByUuid(ch.uuid) ?? this.cc.calls().find((c) => c.consult?.leg.uuid === ch.uuid);
    if (call && mayActOn(caller, call.agent.number)) return true;
    const offer = caller.agentNumber ? this.cc.agent(caller.agentNumber)?.offer : undefined;
    return offer?.channel?.uuid === ch.uuid;
  }

  /**
   * To an agent (`1002`, `support.1002`) the customer is handed over, tracked as that agent's
   * call; anything else (a queue, an extension of nobody's, an outside number) goes through the
   * dialplan.
   */
  private transfer(b: Body, caller: CcCaller) {
    const call = this.ownCall(str(b.callID), caller);
    const destination = str(b.destNumber);
    if (!DIALABLE.test(destination)) throw badRequest("field 'destNumber' has an invalid format");
    const to = this.agentNamed(destination);
    if (!to) {
      this.control.transfer(call, destination);
      return undefined;
    }
    if (to === call.agent) throw badRequest(`call ${call.leg.uuid} is agent ${to.number}'s own`);
    if (to.call || to.offer) throw wrongState(`agent ${to.number} is already in a call`);
    // A signed-in agent is reached where it signed in, which may be another extension.
    this.control.transferToAgent(call, to, to.status === "Logged Out" ? to.number : to.contact);
    return undefined;
  }

  /** The agent a destination names (its number, or `<group>.<number>` with an existing group), if any. */
  private agentNamed(destination: string): Agent | undefined {
    const address = parseAgentAddress(destination, "destNumber");
    if (address.kind === "pstn") return undefined;
    const agent = this.cc.agent(address.number);
    if (agent && address.group !== undefined && !this.cc.directory.queue(address.group))
      throw notFound(`group '${address.group}' not found`);
    return agent;
  }

  /** Where `destAgent` / `destExtn` (or `agent` / `extn`) point: an agent's phone or an outside number. */
  private party(
    agentField: string,
    agentValue: unknown,
    extnField: string,
    extnValue: unknown,
  ): { party: Party; label: string; agent?: Agent } {
    const address = parseAgentAddress(str(agentValue), agentField);
    const extn = str(extnValue);
    if (address.kind === "pstn") {
      if (!extn) throw badRequest(`missing required field '${extnField}' (the outside number for PSTN)`);
      if (!DIALABLE.test(extn)) throw badRequest(`field '${extnField}' has an invalid format`);
      return { party: { number: extn }, label: extn };
    }
    if (address.group !== undefined && !this.cc.directory.queue(address.group))
      throw notFound(`group '${address.group}' not found`);
    const agent = this.cc.agent(address.number);
    if (!agent) throw notFound(`agent '${address.number}' not found`);
    const extension = extn || agent.contact;
    if (!this.cc.directory.extension(extension)) throw notFound(`extension '${extension}' not found`);
    return { party: { extension }, label: agent.number, agent };
  }

  private consult(b: Body, caller: CcCaller) {
    const agent = this.ownAgent(b.agent, caller);
    const call = this.ownCall(str(b.callID), caller);
    if (call.agent !== agent)
      throw badRequest(`call ${call.leg.uuid} is agent ${call.agent.number}'s, not agent ${agent.number}'s`);
    const { party, label } = this.party("destAgent", b.destAgent, "destExtn", b.destExtn);
    return this.control.consult(call, party, label).then(() => undefined);
  }

  /**
   * An agent brings a third party into its own call; a supervisor or administrator into anyone's
   * (barging in by naming itself). The leg rings like any call, except at the caller's own phone,
   * which answers by itself.
   */
  private threeWay(b: Body, caller: CcCaller) {
    const call = this.ownCall(str(b.callID), caller);
    if (str(b.agent)) {
      const named = parseAgentAddress(str(b.agent), "agent");
      if (named.kind === "agent" && named.number !== call.agent.number) {
        throw badRequest(`call ${call.leg.uuid} is agent ${call.agent.number}'s, not agent ${named.number}'s`);
      }
    }
    const { party, label } = this.party("destAgent", b.destAgent, "destExtn", b.destExtn);
    const extension = "extension" in party ? party.extension : undefined;
    if (extension === call.agent.contact)
      throw badRequest(`extension ${extension} is already in call ${call.leg.uuid}`);
    const ownPhone = extension !== undefined && caller.extensions.includes(extension);
    // A supervisor bringing its own phone into another agent's call is barging in: a supervision.
    const bargingIn = ownPhone && isSupervisor(caller) && call.agent.number !== caller.agentNumber;
    const supervision = this.control.threeWay(call, party, label, ownPhone, bargingIn);
    return { uuid: supervision.leg.uuid, ...(bargingIn ? { agent_told: this.control.options.tellAgents } : {}) };
  }

  /**
   * ccMonitor / ccIntercept: `agent` + `extn` is the supervising party, `destAgent` + `destUUID` the
   * call. An agent may not supervise, but may intercept its own call (named by either leg's uuid):
   * a page that reloaded takes its customer back on a fresh leg to its own phone (`takeBack`).
   */
  private supervise(func: "ccMonitor" | "ccIntercept", b: Body, caller: CcCaller) {
    if (!isSupervisor(caller) && func === "ccIntercept") return this.takeBack(b, caller);
    if (!isSupervisor(caller)) throw noPermission(`${func} needs a supervisor or an administrator`);
    const address = parseAgentAddress(str(b.agent), "agent");
    let by: Agent | undefined;
    let party: Party;
    let label: string;
    if (address.kind === "pstn") {
      const extn = str(b.extn);
      if (!extn) throw badRequest("missing required field 'extn' (the outside number for PSTN)");
      if (!DIALABLE.test(extn)) throw badRequest("field 'extn' has an invalid format");
      party = { number: extn };
      label = extn;
    } else {
      by = this.ownAgent(b.agent, caller);
      if (by.status === "Logged Out")
        throw wrongState(`agent ${by.number} is not signed in; the monitoring agent signs in first`);
      const extension = str(b.extn) || by.contact;
      if (!this.cc.directory.extension(extension)) throw notFound(`extension '${extension}' not found`);
      party = { extension };
      label = by.number;
    }
    const call = this.namedCall(b);
    if (by && call.agent === by) {
      if (func === "ccMonitor") throw badRequest(`agent ${by.number} cannot monitor its own call`);
      return this.takeBack(b, caller);
    }
    this.requireSwitch();
    // The local platform's addition: whether the agent is told (tellMonitoredAgents), for the supervisor to know.
    if (func === "ccMonitor")
      return { uuid: this.control.monitor(call, party, label).leg.uuid, agent_told: this.control.options.tellAgents };
    this.control.intercept(call, party, label, by);
    return undefined;
  }

  /** The call `destUUID` names (either of its legs), checked against `destAgent` when given. */
  private namedCall(b: Body): AgentCall {
    const call = this.cc.callByUuid(str(b.destUUID));
    if (!call) throw notFound(`call '${str(b.destUUID)}' not found`);
    if (str(b.destAgent)) {
      const target = parseAgentAddress(str(b.destAgent), "destAgent");
      if (target.kind !== "agent" || target.number !== call.agent.number) {
        throw badRequest(`call ${call.leg.uuid} is agent ${call.agent.number}'s, not ${str(b.destAgent)}'s`);
      }
    }
    return call;
  }

  /**
   * ccIntercept of the caller's own call: the customer comes back to the agent on a new leg to one
   * of its own phones (answering by itself), and the call goes on as the same call (its queue, its
   * member, its talk time); the old leg ends as picked off. Another agent's call is refused.
   */
  private takeBack(b: Body, caller: CcCaller) {
    const by = this.ownAgent(b.agent, caller);
    const call = this.cc.callByUuid(str(b.destUUID));
    if (!call) throw notFound(`call '${str(b.destUUID)}' not found`);
    if (call.agent !== by)
      throw noPermission(`ccIntercept of another agent's call needs a supervisor or an administrator`);
    this.namedCall(b);
    const extension = str(b.extn) || by.contact;
    if (!this.cc.directory.extension(extension)) throw notFound(`extension '${extension}' not found`);
    if (!isSupervisor(caller) && !caller.extensions.includes(extension))
      throw noPermission(`extension ${extension} is not one of yours`);
    this.requireSwitch();
    return { uuid: this.control.takeBack(call, extension).uuid };
  }

  // ---- agent_state ----------------------------------------------------------------------------

  /**
   * GET /api/cc/agent_state: the agents of a queue (its tiers, and anyone signed into it), or
   * without a queue every agent the caller may see. An agent may read the queues it is in.
   */
  agentState(queueName: string | undefined, caller: CcCaller): AgentStateRecord[] {
    const directory = this.cc.directory;
    if (queueName) {
      const queue = directory.queue(queueName);
      if (!queue) throw notFound(`queue '${queueName}' not found`);
      const members = new Set(directory.tiersOf(queue.name).map((t) => t.agent));
      for (const a of this.cc.knownAgents()) if (a.group === queue.name) members.add(a.number);
      if (!isSupervisor(caller) && !members.has(caller.agentNumber))
        throw noPermission(`agent ${caller.agentNumber || caller.login} is not in queue ${queue.name}`);
      return [...members]
        .flatMap((n) => {
          const agent = this.cc.agent(n);
          return agent ? [agent] : [];
        })
        .map((agent) => this.record(agent, queue.name));
    }
    if (!isSupervisor(caller)) {
      const self = caller.agentNumber ? this.cc.agent(caller.agentNumber) : undefined;
      return self ? [this.record(self)] : [];
    }
    const numbers = new Set(this.cc.knownAgents().map((a) => a.number));
    for (const q of directory.queues()) for (const t of directory.tiersOf(q.name)) numbers.add(t.agent);
    return [...numbers].sort().flatMap((n) => {
      const agent = this.cc.agent(n);
      return agent ? [this.record(agent)] : [];
    });
  }

  /**
   * The callers waiting in a queue, oldest first (the local platform's addition, as
   * mod_callcenter's `callcenter_config queue list members`): a board opened while callers wait
   * shows them and their wait at once. A supervisor or administrator reads any queue, an agent
   * the queues it is in.
   */
  queueMembers(queueName: string, caller: CcCaller): QueueMemberRecord[] {
    const queue = this.cc.directory.queue(queueName);
    if (!queue) throw notFound(`queue '${queueName}' not found`);
    if (!isSupervisor(caller)) {
      const inQueue =
        this.cc.directory.tiersOf(queue.name).some((t) => t.agent === caller.agentNumber) ||
        this.cc.agent(caller.agentNumber)?.group === queue.name;
      if (!inQueue) throw noPermission(`agent ${caller.agentNumber || caller.login} is not in queue ${queue.name}`);
    }
    return this.cc.waiting(queue.name).map((m) => ({
      uuid: m.uuid,
      session_uuid: m.channel.uuid,
      queue: m.queue,
      cid_number: m.cidNumber,
      cid_name: m.cidName,
      joined_epoch: Math.floor(m.joinedAt / 1000),
      state: m.state,
    }));
  }

  private record(agent: Agent, queueName?: string): AgentStateRecord {
    const queue = this.cc.directory.queue(queueName ?? agent.group);
    return agentStateRecord({
      agent,
      name: this.cc.nameOf(agent),
      queue,
      settings: this.cc.directory.settings(agent.number),
      sw: this.sw,
      control: this.control,
    });
  }
}
