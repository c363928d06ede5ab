/**
 * How much the local platform offers beyond the spec (`../shared/spec/000_*.txt`):
 * - `full`: everything docs/platform-contract.md describes, the spec's surface and the additions
 *   that let a toolbar show more (the sign-in refusal's counts, the call-center SIP headers,
 *   agent_state's status and current call, ccDial's callID, the events on `/ws`);
 * - `spec-minimal`: only what the spec shows, so that the client is proven against a platform
 *   that offers no more. The additions are switched off where they leave the platform, one
 *   function each below; the behaviour behind them (offers, holds, transfers, locks) is the same.
 */
export type PlatformProfile = "full" | "spec-minimal";

export const PLATFORM_PROFILES: readonly PlatformProfile[] = ["full", "spec-minimal"];

/** The spec's agent state record: "callstate, group_id, queue_id, agent_uuid, state, agent_id, extn". */
export interface SpecAgentStateRecord {
  agent_id: string;
  extn: string;
  group_id: string;
  queue_id: string;
  agent_uuid: string;
  state: string;
  callstate: string;
}

/**
 * An agent state record cut to the spec's fields. mod_callcenter knows the calls it made, not
 * those a phone makes or receives by itself: a call of the phone alone (`call.kind` "direct", the
 * local platform's addition) leaves the record idle, with no `agent_uuid`.
 */
export function specAgentStateRecord(
  r: SpecAgentStateRecord & { call: { kind: string } | null },
): SpecAgentStateRecord {
  const direct = r.call?.kind === "direct";
  return {
    agent_id: r.agent_id,
    extn: r.extn,
    group_id: r.group_id,
    queue_id: r.queue_id,
    agent_uuid: direct ? "" : r.agent_uuid,
    state: r.state,
    callstate: direct ? "IDLE" : r.callstate,
  };
}
