import * as v from "valibot";
import type { PlatformClient } from "./client";
import { numberish, text } from "./schemas";

/**
 * The call-center control endpoints (`/api/cc`). Every `POST /api/cc/ccc/<func>` answers the
 * envelope `{code:200, message:'success'}` (a refusal such as `{code:500, message:'can not find
 * group?'}` becomes a PlatformError); some add `data` with the uuids to act on next.
 */

/** The call an agent is on, as the platform sees it (the local platform's addition to the record). */
const AgentStateCallSchema = v.object({
  uuid: text,
  kind: text,
  direction: text,
  queue: text,
  member_uuid: text,
  customer_uuid: text,
  cid_name: text,
  cid_number: text,
  answered: v.optional(v.boolean(), false),
  held: v.optional(v.boolean(), false),
  consult: v.optional(
    v.nullable(v.object({ uuid: text, target: text, answered: v.optional(v.boolean(), false) })),
    null,
  ),
});

/**
 * One row of `GET /api/cc/agent_state`. The spec names `agent_id, extn, group_id, queue_id,
 * agent_uuid, state, callstate`; the rest is optional (the local platform adds mod_callcenter's
 * own status and state, the break reason, delays and the current call). Values are kept as they
 * come: a platform may use words this client has never seen.
 */
const AgentStateRecordSchema = v.object({
  agent_id: text,
  extn: text,
  group_id: text,
  queue_id: text,
  agent_uuid: text,
  state: text,
  callstate: text,
  name: text,
  status: text,
  cc_state: text,
  reason: text,
  status_since: text,
  no_answer_count: v.optional(numberish, 0),
  ready_time: text,
  wrap_up_until: text,
  call: v.optional(v.nullable(AgentStateCallSchema), null),
  /**
   * The local platform's addition, present only where the platform tells agents they are
   * supervised: what a supervisor's leg does on the agent's call, in the platform's words
   * (listen, whisper, whisper-partner, three-way; agent-sync.ts reads them as the app's modes),
   * or null. Absent: the platform does not say.
   */
  supervision: v.optional(v.nullable(v.object({ mode: text, by: text, by_name: text }))),
});

export type AgentStateRecord = v.InferOutput<typeof AgentStateRecordSchema>;
export type AgentStateCall = NonNullable<AgentStateRecord["call"]>;

/** GET /api/cc/agent_state — the agents of `queue`, or (without it) the caller's own record. */
export function getAgentState(
  client: PlatformClient,
  query: { queue?: string; type?: string } = {},
): Promise<AgentStateRecord[]> {
  return client.request("GET", "/api/cc/agent_state", { query, schema: v.array(AgentStateRecordSchema) });
}

const Success = v.unknown();

function ccc<T>(client: PlatformClient, func: string, body: object, schema: v.GenericSchema<unknown, T>): Promise<T> {
  return client.request("POST", `/api/cc/ccc/${func}`, { body, envelope: true, schema });
}

const run = (client: PlatformClient, func: string, body: object) =>
  ccc(client, func, body, Success).then(() => undefined);

/** Numbers of the agent forms: an agent number, `<group>.<number>` (and its extension), or `PSTN` with the number in the extension field. */
export interface AgentTarget {
  destAgent: string;
  destExtn: string;
}

/**
 * What ccMonitor and ccThreeWay answer about the leg they make: its uuid, and whether the agent
 * is told (the local platform's `agent_told`); each is absent when the platform does not say.
 */
export interface SupervisionLeg {
  uuid?: string;
  agentTold?: boolean;
}

const SupervisionLegSchema = v.pipe(
  v.optional(v.nullable(v.object({ uuid: v.optional(v.string()), agent_told: v.optional(v.boolean()) })), null),
  v.transform((d): SupervisionLeg => ({
    ...(d?.uuid ? { uuid: d.uuid } : {}),
    ...(d?.agent_told !== undefined ? { agentTold: d.agent_told } : {}),
  })),
);

export const cc = {
  login: (client: PlatformClient, b: { agent: string; extn: string; queue: string }) => run(client, "ccLogin", b),
  logout: (client: PlatformClient, b: { agent: string; queue: string }) => run(client, "ccLogout", b),
  /** `onDemand`: Available (On Demand), which goes Idle after each call (the local platform's addition). */
  goReady: (client: PlatformClient, b: { agent: string; queue: string; onDemand?: boolean }) =>
    run(client, "ccGoReady", b),
  goBreak: (client: PlatformClient, b: { agent: string; reason: string; queue: string }) => run(client, "ccGoBreak", b),
  /** Rings the agent's phone first (auto-answer), then `destNumber`; answers the agent leg's uuid when the platform gives it. */
  dial: async (
    client: PlatformClient,
    b: { agent: string; extn: string; destNumber: string },
  ): Promise<{ callID?: string }> => {
    const data = await ccc(
      client,
      "ccDial",
      b,
      v.optional(v.nullable(v.object({ callID: v.optional(v.string()) })), null),
    );
    return data?.callID ? { callID: data.callID } : {};
  },
  kill: (client: PlatformClient, b: { destUUID: string }) => run(client, "ccKill", b),
  hold: (client: PlatformClient, b: { callID: string }) => run(client, "ccHold", b),
  unhold: (client: PlatformClient, b: { callID: string }) => run(client, "ccUnHold", b),
  transfer: (client: PlatformClient, b: { callID: string; destNumber: string }) => run(client, "ccTransfer", b),
  consult: (client: PlatformClient, b: { agent: string; callID: string } & AgentTarget) => run(client, "ccConsult", b),
  cancelConsult: (client: PlatformClient, b: { callID: string }) => run(client, "ccCancelConsult", b),
  /** Answers the new leg (see SupervisionLeg) when the platform says it. */
  threeWay: (client: PlatformClient, b: { agent: string; callID: string } & AgentTarget): Promise<SupervisionLeg> =>
    ccc(client, "ccThreeWay", b, SupervisionLegSchema),
  /** Answers the new leg (see SupervisionLeg) when the platform says it (the spec does not show it). */
  monitor: (
    client: PlatformClient,
    b: { agent: string; extn?: string; destAgent?: string; destUUID: string },
  ): Promise<SupervisionLeg> => ccc(client, "ccMonitor", b, SupervisionLegSchema),
  intercept: (client: PlatformClient, b: { agent: string; extn?: string; destAgent?: string; destUUID: string }) =>
    run(client, "ccIntercept", b),
};

/** A caller waiting in a queue (the local platform's `GET /api/cc/queue_members`, as mod_callcenter lists members). */
export interface QueueMember {
  uuid: string;
  /** The caller's channel (the call records' and agent_state's uuid of its leg). */
  sessionUuid: string;
  cidNumber: string;
  cidName: string;
  /** ms since epoch. */
  joinedAt: number;
}

const QueueMemberSchema = v.pipe(
  v.object({ uuid: text, session_uuid: text, cid_number: text, cid_name: text, joined_epoch: numberish }),
  v.transform((m): QueueMember => ({
    uuid: m.uuid,
    sessionUuid: m.session_uuid,
    cidNumber: m.cid_number,
    cidName: m.cid_name,
    joinedAt: m.joined_epoch * 1000,
  })),
);

/**
 * The callers waiting in `queue`, oldest first. Not in the spec: a platform without it answers
 * 404, and the board then says that callers waiting before it opened are not known.
 */
export function getQueueMembers(client: PlatformClient, queue: string): Promise<QueueMember[]> {
  return client.request("GET", "/api/cc/queue_members", { query: { queue }, schema: v.array(QueueMemberSchema) });
}
