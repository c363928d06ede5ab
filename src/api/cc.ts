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

const AgentStateList = v.array(AgentStateRecordSchema);

/** Text as `text` reads it ("" for absent or null); undefined: something else. */
const plainText = (x: unknown): string | undefined =>
  typeof x === "string" ? x : x === undefined || x === null ? "" : typeof x === "number" ? String(x) : undefined;
/** A flag that may be absent (false); undefined: not a boolean. */
const plainFlag = (x: unknown): boolean | undefined =>
  x === undefined ? false : typeof x === "boolean" ? x : undefined;
const plainObject = (x: unknown): Record<string, unknown> | undefined =>
  x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
/** Each of `keys` of `o` as text, or undefined when one is not. */
function texts<K extends string>(o: Record<string, unknown>, keys: readonly K[]): Record<K, string> | undefined {
  const out = {} as Record<K, string>;
  for (const k of keys) {
    const t = plainText(o[k]);
    if (t === undefined) return undefined;
    out[k] = t;
  }
  return out;
}

const RECORD_TEXTS = [
  "agent_id",
  "extn",
  "group_id",
  "queue_id",
  "agent_uuid",
  "state",
  "callstate",
  "name",
  "status",
  "cc_state",
  "reason",
  "status_since",
  "ready_time",
  "wrap_up_until",
] as const;
const CALL_TEXTS = [
  "uuid",
  "kind",
  "direction",
  "queue",
  "member_uuid",
  "customer_uuid",
  "cid_name",
  "cid_number",
] as const;

/**
 * One agent's record as `AgentStateRecordSchema` reads it, written out: a board reads thousands
 * at once, and the schema's generic walk over each was a good part of its opening. undefined:
 * anything out of the ordinary, left to the schema (which says what is wrong).
 */
function plainAgentState(x: unknown): AgentStateRecord | undefined {
  const o = plainObject(x);
  const fields = o && texts(o, RECORD_TEXTS);
  if (!o || !fields) return undefined;
  const count = o.no_answer_count;
  const noAnswerCount =
    count === undefined
      ? 0
      : typeof count === "number" && !Number.isNaN(count)
        ? count
        : typeof count === "string" && /^-?\d+(\.\d+)?$/.test(count)
          ? Number(count)
          : undefined;
  if (noAnswerCount === undefined) return undefined;
  let call: AgentStateRecord["call"] = null;
  if (o.call !== undefined && o.call !== null) {
    const c = plainObject(o.call);
    const callTexts = c && texts(c, CALL_TEXTS);
    const answered = plainFlag(c?.answered);
    const held = plainFlag(c?.held);
    if (!c || !callTexts || answered === undefined || held === undefined) return undefined;
    let consult: NonNullable<AgentStateRecord["call"]>["consult"] = null;
    if (c.consult !== undefined && c.consult !== null) {
      const k = plainObject(c.consult);
      const kTexts = k && texts(k, ["uuid", "target"] as const);
      const kAnswered = plainFlag(k?.answered);
      if (!kTexts || kAnswered === undefined) return undefined;
      consult = { ...kTexts, answered: kAnswered };
    }
    call = { ...callTexts, answered, held, consult };
  }
  let supervision: AgentStateRecord["supervision"];
  if (o.supervision === null) supervision = null;
  else if (o.supervision !== undefined) {
    const w = plainObject(o.supervision);
    const wTexts = w && texts(w, ["mode", "by", "by_name"] as const);
    if (!wTexts) return undefined;
    supervision = wTexts;
  }
  return {
    ...fields,
    no_answer_count: noAnswerCount,
    call,
    ...("supervision" in o ? { supervision } : {}),
  };
}

/** The records of `GET /api/cc/agent_state`: each written out (`plainAgentState`), else by the schema, with its issues. */
const AgentStates = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset, addIssue, NEVER }): AgentStateRecord[] => {
    const rows = dataset.value;
    if (Array.isArray(rows)) {
      const out: AgentStateRecord[] = [];
      for (const r of rows) {
        const plain = plainAgentState(r);
        if (!plain) break;
        out.push(plain);
      }
      if (out.length === rows.length) return out;
    }
    const checked = v.safeParse(AgentStateList, rows);
    if (checked.success) return checked.output;
    for (const issue of checked.issues)
      addIssue({
        message: issue.message,
        expected: issue.expected,
        received: issue.received,
        ...(issue.path ? { path: issue.path } : {}),
      });
    return NEVER as never;
  }),
);

/** GET /api/cc/agent_state — the agents of `queue`, or (without it) the caller's own record. */
export function getAgentState(
  client: PlatformClient,
  query: { queue?: string; type?: string } = {},
): Promise<AgentStateRecord[]> {
  return client.request("GET", "/api/cc/agent_state", { query, schema: AgentStates });
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
